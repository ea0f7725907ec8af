"""Policy parameters and capacities from the Python API and the command line (issue 12, sections 1-2).

Every registered policy is covered by iterating over the registry: a value of the wrong type, a float for an
int, None where the type has no None, a non-finite float and an integer beyond 64 bits are ValueErrors that
name the parameter; an integer the kernels cannot use is a ValueError too, never a Numba typing error or a
MemoryError; a capacity far beyond the footprint gives the same result as one just above it, in little memory.
"""

from __future__ import annotations

import dataclasses
import json
import time
import tracemalloc
import typing

import numpy as np
import pytest
from conftest import random_trace
from test_cli import run

from flashrepro.cache import POLICIES, Simulator, get_policy, make_params, simulate
from flashrepro.cache.registry import check_params

TRACE = random_trace(5, n=600, n_pages=120)
TIERED = {n for n, p in POLICIES.items() if p.tiers != ["capacity_pages"]}


def _fields(policy: str):
    cls = get_policy(policy).params
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        t = hints[f.name]
        args = [a for a in typing.get_args(t) if a is not type(None)]
        yield f.name, (args[0] if args else t), type(None) in typing.get_args(t)


def _bad_values(typ, optional: bool) -> list:
    """Values that must be refused for a field of type ``typ`` (strings are parsed, as from the command line,
    so only unparseable ones are here)."""
    common = [[1], {"a": 1}, object()]
    if typ is int:
        return common + [1.7, 2.0001, 2.0, "3.0", "x", "1e3", True, np.float64(3.0), 2**63, -2**63 - 1, 10**23,
                         float("nan")] + ([] if optional else [None])
    if typ is float:
        return common + [float("nan"), float("inf"), -float("inf"), "inf", "nan", "1e400", "x", True, None, 10**400]
    if typ is bool:
        return common + [None, 1, 0, "maybe", 1.0, np.int64(1)]
    if typ is str:
        return common + [None, 1, 1.5, True, b"x"]
    raise AssertionError(f"a parameter of type {typ} has no bad values listed here; add them")


CASES = [(p, name, typ, opt, v) for p in sorted(POLICIES) for name, typ, opt in _fields(p)
         for v in _bad_values(typ, opt)]


@pytest.mark.parametrize("policy,name,typ,optional,value", CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_wrong_type_is_a_value_error_naming_the_parameter(policy, name, typ, optional, value):
    with pytest.raises(ValueError, match=name):
        make_params(policy, **{name: value})
    cap = None if policy in TIERED and name.endswith("_pages") else 16
    with pytest.raises(ValueError, match=name):
        simulate(TRACE, policy, cap, **{name: value})


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_negative_numbers_are_refused(policy):
    """No parameter of any policy has a meaning below zero (a count, a size, a period, a fraction)."""
    checked = 0
    for name, typ, _ in _fields(policy):
        if typ in (int, float):
            kw = {"dram_pages": 8, "nvm_pages": 8} if name in ("dram_pages", "nvm_pages") else {}
            with pytest.raises(ValueError, match=name):
                make_params(policy, **{**kw, name: typ(-1)})
            checked += 1
    assert checked or all(typ not in (int, float) for _, typ, _ in _fields(policy))


def test_messages_name_the_policy_the_field_the_value_and_the_type():
    msg = r"policy 'bs_clock': parameter max_bulk_pages: 1.7 \(float\) is not a valid int"
    with pytest.raises(ValueError, match=msg):
        make_params("bs_clock", max_bulk_pages=1.7)
    with pytest.raises(ValueError, match=r"policy 'clock': parameter insert_referenced: None is not a valid bool"):
        make_params("clock", insert_referenced=None)


@pytest.mark.parametrize("cap", [2**63, 2**70, np.uint64(2**63)])
def test_capacity_beyond_64_bits_is_refused(cap):
    with pytest.raises(ValueError, match="policy 'lru': capacity_pages=.* is not a page count"):
        simulate(TRACE, "lru", cap)


def test_the_issue_cases():
    for kw, msg in [({"max_bulk_pages": 2.0001}, "2.0001 \\(float\\) is not a valid int"),
                    ({"max_bulk_pages": 99999999999999999999999}, "does not fit in 64 bits"),
                    ({"insert_referenced": None}, "None is not a valid bool")]:
        with pytest.raises(ValueError, match=msg):
            simulate(TRACE, "bs_clock", 16, **kw)
    for cap in (1.7, 2.0, "3", True, np.float32(4)):
        with pytest.raises(ValueError, match="capacity_pages must be a whole number"):
            simulate(TRACE, "lru", cap)


def test_a_parameter_object_built_directly_is_checked():
    from flashrepro.cache.spatial_clock import BSClockParams

    refs = TRACE.to_pages(4096)
    units, _ = refs.units(1, 0)
    with pytest.raises(ValueError, match="max_bulk_pages: 2.5 \\(float\\)"):
        Simulator("bs_clock", units, {"capacity_pages": 8}, BSClockParams(max_bulk_pages=2.5))
    with pytest.raises(ValueError, match="policy 'clock' takes ClockParams, got BSClockParams"):
        Simulator("clock", units, {"capacity_pages": 8}, BSClockParams())
    assert check_params("bs_clock", BSClockParams(max_bulk_pages=np.int64(4))).max_bulk_pages == 4


def test_good_values_of_every_type_are_kept():
    p = make_params("clock_hbm", read_level=np.int32(2), dram_pages=None, nvm_pages="none", levels=np.bool_(False))
    assert (p.read_level, p.dram_pages, p.levels) == (2, None, False) and type(p.read_level) is int
    p = make_params("cflru", window_fraction=1)  # an int is a valid float
    assert p.window_fraction == 1.0 and type(p.window_fraction) is float
    assert make_params("lru_flush", period_s="2.5").period_s == 2.5
    assert make_params("bs_clock", max_bulk_pages="  32 ").max_bulk_pages == 32


# An integer the kernels cannot use: a clear ValueError or a correct, quick run in little memory. The huge
# values reach every int field; the run is measured with tracemalloc (numpy reports its allocations there).
HUGE = [2**63 - 1, 2**62, 2**40, 2**31]
INT_CASES = [(p, name, v) for p in sorted(POLICIES) for name, typ, _ in _fields(p) if typ is int for v in HUGE]


@pytest.mark.parametrize("policy,name,value", INT_CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in INT_CASES])
def test_huge_integers_are_refused_or_run_small(policy, name, value):
    kw = {name: value}
    if policy in TIERED and name.endswith("_pages"):
        kw = {"dram_pages": 8, "nvm_pages": 8, name: value}
    cap = None if policy in TIERED and name.endswith("_pages") else 16
    simulate(TRACE, policy, 16)  # compile outside the measurement (a process's first run traces Numba's own)
    tracemalloc.start()
    try:
        for log_io in (False, True):
            try:
                res = simulate(TRACE, policy, cap, log_io=log_io, **kw)
            except ValueError as e:
                assert name in str(e) or "capacity" in str(e) or "segment" in str(e)
                continue
            assert res.counters["hits"] + res.counters["misses"] == res.counters["references"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"{policy} {name}={value}: {peak / 2**20:.0f} MiB"


def _footprint_pages(policy: str) -> int:
    pol = get_policy(policy)
    p = make_params(policy)
    refs = TRACE.to_pages(4096)
    units, _ = refs.units(pol.kernel.unit_pages(p, 4096), pol.kernel.unit_halo(p, 4096))
    return units.n * units.unit_pages


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_capacity_far_beyond_the_footprint(policy):
    """State is sized by min(capacity, footprint): 3e9 pages on a 600-request trace runs in well under a
    second and a few MiB, with every counter and every logged I/O equal to a capacity just large enough
    that no tier ever fills (ten times the footprint, so a tier's 20% share holds it too)."""
    simulate(TRACE, policy, 4096)  # compile outside the measurement
    ref = simulate(TRACE, policy, 10 * _footprint_pages(policy), log_io=True)
    for cap in (3_000_000_000, 2**40):
        tracemalloc.start()
        t0 = time.perf_counter()
        try:
            res = simulate(TRACE, policy, cap, log_io=True)
            dt = time.perf_counter() - t0
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 32 << 20, f"{policy} at {cap} pages: {peak / 2**20:.0f} MiB"
        assert dt < 5, f"{policy} at {cap} pages: {dt:.1f} s"
        assert res.counters == ref.counters
        for f in ("ref", "op", "cause", "first_page", "n_pages", "tier"):
            assert np.array_equal(getattr(res.io_log, f), getattr(ref.io_log, f)), f
        assert sum(res.tiers.values()) == cap


def test_cli_repeated_param_is_an_error(capsys, data_dir):
    code, out, err = run(capsys, "simulate", "--json", "--policy", "clock", "--trace",
                         str(data_dir / "formats/sample.spc"),
                         "--format", "spc", "--capacity-pages", "2", "--param", "insert_referenced=true",
                         "--param", "insert_referenced=false")
    assert code == 2 and out == ""
    assert "--param insert_referenced is given twice ('true' and 'false')" in err


@pytest.mark.parametrize("param,msg", [
    ("max_bulk_pages=99999999999999999999999", "does not fit in 64 bits"),
    ("max_bulk_pages=2.0001", "is not a valid int"),
    ("max_bulk_pages=0", "at least 1"),
    ("insert_referenced=none", "not a boolean"),
])
def test_cli_bad_values(capsys, data_dir, param, msg):
    code, out, err = run(capsys, "simulate", "--json", "--policy", "bs_clock", "--trace",
                         str(data_dir / "formats/sample.spc"),
                         "--format", "spc", "--capacity-pages", "2", "--param", param)
    assert code == 2 and out == "" and msg in err and "Traceback" not in err


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_cli_huge_capacity(capsys, tmp_path, policy):
    """Every policy, ``--capacity-pages 3000000000`` on a 200-request trace (issue 12, section 2): the same
    counters as a capacity just above the footprint."""
    path = tmp_path / "t.spc"
    path.write_text("".join(f"0,{(i * 37) % 150 * 8},4096,{'rw'[i % 3 == 0]},{i / 10}\n" for i in range(200)))
    args = ["simulate", "--json", "--policy", policy, "--trace", str(path), "--format", "spc"]
    code, out, err = run(capsys, *args, "--capacity-pages", "3000000000")
    assert code == 0, err
    d = json.loads(out)
    code, out, err = run(capsys, *args, "--capacity-pages", str(100 * _footprint_pages(policy)))
    ref = json.loads(out)
    assert d["capacity_pages"] == 3_000_000_000 and d["misses"] > 0 and d["references"] == ref["references"]
    assert {k: v for k, v in d.items() if k not in ("capacity_pages", "tiers")} == \
        {k: v for k, v in ref.items() if k not in ("capacity_pages", "tiers")}
