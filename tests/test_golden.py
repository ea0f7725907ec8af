"""Golden numbers on the committed trace (regenerate with tests/make_golden.py, never by hand)."""

import json

import pytest
from make_golden import GOLDEN, TRACE, golden_numbers, make_trace_text


def test_golden_trace_is_what_the_script_writes():
    assert TRACE.read_text() == make_trace_text()


def test_golden_numbers():
    want = json.loads(GOLDEN.read_text())
    got = golden_numbers(TRACE)
    assert got["stats"] == want["stats"]
    assert got["lru_mrc_misses"] == want["lru_mrc_misses"]
    assert got["ftl"] == want["ftl"]
    for pol, by_cap in got["policies"].items():
        if pol not in want["policies"]:
            pytest.fail(f"policy {pol} has no golden numbers: run tests/make_golden.py")
        assert by_cap == want["policies"][pol], pol
