"""benchmarks/profile_ftl.py's pure parts (symbol names, parts, attributing perf samples to runs and functions)
and docs/benchmarks.md's table rendered from its CSV. The profile itself needs perf: `make profile-ftl`."""

import sys
from pathlib import Path

import pytest

from flashrepro import docs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import profile_ftl as P  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "data" / "docs_results"
COPY = "_ZN10flashrepro3ftl7_kernel11_copy_eraseB4v158B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMVC_2fAwA_3dE3085FTLState"
PICK = "_ZN10flashrepro3ftl7victims12cost_benefit4pickB4v307B40c8tJTIeFIjxB2IK"


def test_numba_symbols_demangle_to_dotted_names_and_wrappers_are_skipped():
    assert P.demangle(COPY) == "ftl._kernel._copy_erase"
    assert P.demangle(PICK) == "ftl.victims.cost_benefit.pick"
    assert P.demangle("_ZN7cpython10flashrepro3ftl7_kernel11_copy_eraseB4v158") is None
    assert P.demangle("cfunc._ZN10flashrepro3ftl7_kernel11_copy_erase") is None
    assert P.demangle("memcpy") is None
    assert P.demangle("_ZN5numba7cpython7unicode4findB2v1") == "numba.cpython.unicode.find"


@pytest.mark.parametrize("fn, part", [
    ("ftl._kernel._host_writes", "host"), ("ftl._kernel.write_chunk", "host"), ("ftl._kernel._copy_erase", "copy"),
    ("ftl.victims.cost_benefit.pick", "rule"), ("ftl.victims.fifo_threshold._least_valid_slot", "rule"),
    ("ftl._kernel.sync_ages", "rule structures"), ("ftl._kernel._age_move", "rule structures"),
    ("ftl._kernel._slot_add", "rule structures"), ("ftl._kernel.slot_first_from", "rule structures"),
    ("ftl._kernel._heap_insert", "rule structures"), ("ftl._kernel.rebuild_buckets", "rule structures"),
    ("ftl._kernel._close_line", "gc"), ("ftl._kernel._gc_pass", "gc"), ("jitkit.bits_add", "other compiled")])
def test_each_function_is_in_one_part(fn, part):
    assert P.part_of(fn) == part


def test_samples_count_in_their_run_and_function_and_outside_every_run_not_at_all():
    symbols = [(1000, 100, "ftl._kernel._copy_erase"), (2000, 50, "ftl.victims.greedy.pick")]
    windows = [("a@femu", 10.0, 11.0), ("b@femu", 12.0, 13.0)]
    samples = [(9.5, 1000),  # before any run: dropped
               (10.1, 1000), (10.2, 1099), (10.3, 1100),  # the last one is past the copy's end: outside
               (11.5, 2000),  # between runs: dropped
               (12.5, 2049), (12.6, 5), (13.5, 2000)]
    got = P.attribute(samples, windows, symbols)
    assert got == {("a@femu", "ftl._kernel._copy_erase"): 2, ("a@femu", "outside"): 1,
                   ("b@femu", "ftl.victims.greedy.pick"): 1, ("b@femu", "outside"): 1}


def test_perf_script_lines_are_parsed_and_other_lines_skipped():
    text = " 36593.864671:      5575a13bd3d2\n36593.963548:      7f5a875054d7\nnot a sample\n"
    assert P.parse_perf_script(text) == [(36593.864671, 0x5575A13BD3D2), (36593.963548, 0x7F5A875054D7)]


def test_rows_give_each_runs_functions_their_share_biggest_first():
    runs = [{"policy": "greedy", "victim": "greedy", "trigger": "femu", "writes": 9, "cpu_seconds": 1.0,
             "mreq_per_s": 9.0, "waf": 2.0}]
    counts = {("greedy@femu", "ftl._kernel._copy_erase"): 3, ("greedy@femu", "outside"): 1,
              ("other@femu", "ftl._kernel._copy_erase"): 5}
    out = P.rows(runs, counts)
    assert [(r["function"], r["part"], r["samples"], r["share"]) for r in out] == [
        ("ftl._kernel._copy_erase", "copy", 3, 0.75), ("outside", "outside", 1, 0.25)]


def test_the_docs_table_adds_up_the_parts_and_bounds_the_rate_with_the_rule_free(tmp_path):
    out = docs.render_block("ftl-profile", FIXTURE)
    # cost-benefit: rule 15% + its structures 20% -> 9.0 / 0.65 = 13.85 M host writes/s with the rule free
    assert "| cost-benefit | femu | 9 | 10.5 | 30% | 30% | 15% | 20% | 0% | 5% | 13.8 |" in out
    assert "| greedy | reserve | 25 | 5 | 50% | 50% | 0% | 0% | 0% | 0% | 25 |" in out
    assert "run `make profile-ftl` then `make docs`" in docs.render_block("ftl-profile", tmp_path)


def test_without_perf_it_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(P.shutil, "which", lambda tool: None if tool == "perf" else "/usr/bin/" + tool)
    assert P.main(["--policies", "greedy", "--writes", "1000"]) == 2
    assert "needs `perf` on PATH" in capsys.readouterr().err
