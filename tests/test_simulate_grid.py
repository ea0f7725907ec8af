"""`flashrepro simulate TRACE... --policy a,b --cache 1MiB,1%`: a user's traces x policies x parameter values x
sizes in one command, the grid syntax shared with `flashrepro sweep`, prototypes from a file, and the outputs."""

import csv
import io
import json

import numpy as np
import polars as pl
import pytest

from flashrepro.cache import simulate
from flashrepro.cli import CacheSize, cache_sizes, main, page_counts, policy_grid
from flashrepro.traces import load_trace, open_trace

MIB = 1 << 20


def run(capsys, *args):
    try:
        code = main(list(args))
    except SystemExit as e:  # an argparse error
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(autouse=True)
def _registry_restored():
    """Policies a test's files register leave with the test (other tests list the registry)."""
    from flashrepro.cache import POLICIES, prototype
    from flashrepro.cache.registry import unregister

    before, files = set(POLICIES), dict(prototype._FILES)
    yield
    for name in set(POLICIES) - before:
        unregister(name)
    prototype._FILES.clear()
    prototype._FILES.update(files)


@pytest.fixture
def golden(data_dir):
    return str(data_dir / "golden_trace.spc")


# --- sizes ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,nbytes", [
    ("1MiB", MIB), ("1mib", MIB), ("64KiB", 64 << 10), ("1GiB", 1 << 30), ("1TiB", 1 << 40), ("1MB", 10**6),
    ("64KB", 64_000), ("2GB", 2 * 10**9), ("4096B", 4096), ("1.5MiB", 3 * MIB // 2), ("0.5KB", 500),
])
def test_sizes_in_bytes_binary_and_decimal(text, nbytes):
    (size,) = cache_sizes(text)
    assert size.nbytes == nbytes and size.text == text


def test_bytes_round_down_to_whole_pages():
    one_mib, one_mb = cache_sizes("1MiB,1MB")
    assert one_mib.to_pages(4096) == 256
    assert one_mb.to_pages(4096) == 244  # 1,000,000 / 4096 = 244.1
    assert one_mb.to_pages(512) == 1953


def test_a_share_is_of_the_footprint_in_pages_rounded_down():
    (pct,) = cache_sizes("1%")
    assert pct.to_pages(4096, 12_345) == 123
    assert cache_sizes("0.5%")[0].to_pages(4096, 1000) == 5
    assert cache_sizes("100%")[0].to_pages(4096, 77) == 77


@pytest.mark.parametrize("text,msg", [
    ("4096", "give a unit"), ("1XB", "not a size"), ("0%", "above 0%"), ("101%", "at most 100%"), ("1MiB,,2MiB",
                                                                                                    "empty item"),
    ("1MiB,1MiB", "listed twice"), ("-1MiB", "not a size"), ("MiB", "not a size"),
])
def test_bad_sizes_say_why(text, msg):
    with pytest.raises(ValueError, match=msg):
        cache_sizes(text)


def test_a_size_under_one_page_is_an_error():
    with pytest.raises(ValueError, match="less than one 4096-byte page"):
        cache_sizes("1KiB")[0].to_pages(4096)
    with pytest.raises(ValueError, match="1% of a 50-page footprint is less than one"):
        cache_sizes("1%")[0].to_pages(4096, 50)


def test_page_counts():
    assert [c.pages for c in page_counts("8,1024")] == [8, 1024]
    with pytest.raises(ValueError, match="--capacity-pages must be a whole number"):
        page_counts("8,x")
    assert CacheSize("3", pages=3).to_pages(4096) == 3


# --- the policy grid -----------------------------------------------------------------------------------------
def test_a_param_applies_to_every_listed_policy_that_declares_it():
    grid = policy_grid(["lru,clock"], ["insert_referenced=true,false", "cache_reads=false"])
    assert grid == [("lru", {"cache_reads": [False]}),
                    ("clock", {"insert_referenced": [True, False], "cache_reads": [False]})]


def test_the_sweep_syntax_is_the_same_grid():
    assert policy_grid(["clock:insert_referenced=true,false"], []) == policy_grid(["clock"], [
        "insert_referenced=true,false"])


@pytest.mark.parametrize("policies,params,msg", [
    (["lru"], ["insert_referenced=true"], "--param insert_referenced: no listed policy takes it; policy 'lru' takes"),
    (["lru,nope"], [], "unknown policy 'nope'"),
    (["clock"], ["insert_referenced=true", "insert_referenced=false"], "given twice"),
    (["clock"], ["insert_referenced=maybe"], "--param insert_referenced=maybe: .*not a boolean"),
    (["clock:insert_referenced=true"], ["insert_referenced=false"], "already given in --policy"),
    (["lru,lru"], [], "listed twice"),
])
def test_grid_errors(policies, params, msg):
    with pytest.raises(ValueError, match=msg):
        policy_grid(policies, params)


# --- the command ---------------------------------------------------------------------------------------------
def test_every_row_is_the_run_it_names(capsys, golden):
    """Traces x policies x parameter values x sizes, in that order; each row's counters are those of
    `simulate` on the loaded trace at the row's capacity."""
    code, out, err = run(capsys, "simulate", golden, "--policy", "lru,clock", "--param", "insert_referenced=true,false",
                         "--cache", "16KiB,64KiB,50%")
    assert code == 0, err
    table = rows(out)
    tr = load_trace(golden)
    footprint = len(np.unique(tr.to_pages(4096).page))  # distinct pages read or written
    want_pages = [4, 16, footprint // 2]
    assert [(r["policy"], r["params"], r["cache"], int(r["capacity_pages"])) for r in table] == [
        (p, prm, c, n) for p, prm in [("lru", "{}"), ("clock", '{"insert_referenced":true}'),
                                      ("clock", '{"insert_referenced":false}')]
        for c, n in zip(["16KiB", "64KiB", "50%"], want_pages, strict=True)]
    for r in table:
        params = json.loads(r["params"])
        res = simulate(tr, r["policy"], int(r["capacity_pages"]), **params)
        for k, v in res.counters.items():
            assert int(r[k]) == v, (r["policy"], r["cache"], k)
    assert {r["workload"] for r in table} == {golden}


def test_one_run_takes_the_streaming_path_and_gives_the_grids_row(capsys, golden, monkeypatch):
    from flashrepro.cache import onepass

    calls = []
    real = onepass.simulate_source
    monkeypatch.setattr(onepass, "simulate_source", lambda *a, **k: calls.append(a) or real(*a, **k))
    code, one, err = run(capsys, "simulate", golden, "--policy", "clock", "--cache", "64KiB")
    assert code == 0 and len(calls) == 1, err
    code, grid, err = run(capsys, "simulate", golden, "--policy", "clock", "--cache", "64KiB", "--executor", "process",
                          "--workers", "1")
    assert code == 0 and len(calls) == 1, err  # the runner, not the streaming path
    assert rows(one) == rows(grid)


def test_several_traces_positional_and_by_flag(capsys, golden, data_dir):
    other = str(data_dir / "formats/sample.spc")
    code, out, err = run(capsys, "simulate", golden, "--trace", other, "--policy", "lru", "--capacity-pages", "2,3")
    assert code == 0, err
    assert [(r["workload"], r["capacity_pages"]) for r in rows(out)] == [(golden, "2"), (golden, "3"), (other, "2"),
                                                                         (other, "3")]


def test_json_one_run_is_the_counters_object_and_a_grid_a_list_of_rows(capsys, golden):
    code, out, _ = run(capsys, "simulate", golden, "--policy", "lru", "--capacity-pages", "8", "--json")
    one = json.loads(out)
    assert code == 0 and one["policy"] == "lru" and one["capacity_pages"] == 8 and "references" in one
    code, out, _ = run(capsys, "simulate", golden, "--policy", "lru", "--capacity-pages", "8,16", "--json")
    many = json.loads(out)
    assert code == 0 and [r["capacity_pages"] for r in many] == [8, 16]
    assert many[0]["references"] == one["references"] and many[0]["hits"] == one["hits"]


def test_out_writes_parquet_and_a_rerun_skips_what_is_there(capsys, golden, tmp_path):
    out_file = tmp_path / "grid.parquet"
    args = ["simulate", golden, "--policy", "lru,clock", "--capacity-pages", "4,8", "--out", str(out_file)]
    code, out, err = run(capsys, *args)
    assert code == 0 and out == "" and "4 rows" in err
    first = pl.read_parquet(out_file)
    assert first.height == 4 and set(first["policy"]) == {"lru", "clock"}
    code, out, err = run(capsys, *args)
    assert code == 0 and pl.read_parquet(out_file).drop("seconds").equals(first.drop("seconds"))


@pytest.mark.parametrize("flag,values", [("--policy", ["lru", "clock"]), ("--cache", ["1MiB", "2MiB"]),
                                         ("--capacity-pages", ["4", "8"]), ("--page-bytes", ["4096", "512"]),
                                         ("--format", ["spc", "msr"])])
def test_a_repeated_single_valued_flag_is_an_error(capsys, golden, flag, values):
    args = {"--policy": "lru", "--cache": "1MiB"}
    argv = ["simulate", golden]
    for k, v in args.items():
        if k != flag and not (flag == "--capacity-pages" and k == "--cache"):
            argv += [k, v]
    for v in values:
        argv += [flag, v]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and f"{flag} is given twice" in err and "Traceback" not in err


def test_cache_and_capacity_pages_together_or_neither(capsys, golden):
    code, _, err = run(capsys, "simulate", golden, "--policy", "lru", "--cache", "1MiB", "--capacity-pages", "4")
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "simulate", golden, "--policy", "lru")
    assert code == 2 and "give the cache sizes" in err


def test_no_trace_or_a_missing_one(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "--policy", "lru", "--cache", "1MiB")
    assert code == 2 and "give a trace file" in err
    code, _, err = run(capsys, "simulate", str(tmp_path / "nope.csv"), "--policy", "lru", "--cache", "1MiB")
    assert code == 2 and "nope.csv" in err and "no such file" in err


# --- prototypes from a file ----------------------------------------------------------------------------------
PROTOTYPE = '''
from collections import OrderedDict
from flashrepro.cache import prototype


class FileFIFO(prototype.PythonPolicy):
    """FIFO in Python, from a file."""
    name = "{name}"
    extra_counters = ("victims_chosen",)

    def __init__(self, capacity, params, units):
        super().__init__(capacity, params, units)
        self.order = OrderedDict()

    def on_miss(self, page, is_write):
        self.order[page] = None

    def choose_victim(self):
        self.count("victims_chosen")
        return next(iter(self.order))

    def on_evict(self, page):
        del self.order[page]
'''


@pytest.mark.parametrize("executor", ["local", "process"])
def test_a_policy_file_registers_its_prototypes_here_and_on_workers(capsys, golden, tmp_path, executor):
    name = f"file_fifo_{executor}"
    f = tmp_path / "mine.py"
    f.write_text(PROTOTYPE.format(name=name))
    code, out, err = run(capsys, "simulate", golden, "--policy", f"{name},fifo", "--policy-file", str(f),
                         "--capacity-pages", "4,16", "--executor", executor, "--workers", "1")
    assert code == 0, err
    table = rows(out)
    mine = [r for r in table if r["policy"] == name]
    kernel = [r for r in table if r["policy"] == "fifo"]
    assert len(mine) == len(kernel) == 2
    for a, b in zip(mine, kernel, strict=True):  # the prototype is FIFO: the kernel's counters
        assert {k: a[k] for k in ("hits", "device_reads", "device_writes", "evictions")} == {
            k: b[k] for k in ("hits", "device_reads", "device_writes", "evictions")}
        assert int(a["victims_chosen"]) == int(a["evictions"])


def test_a_bad_policy_file_is_one_line_naming_file_and_line(capsys, golden, tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("x = 1\ndef oops(:\n")
    code, out, err = run(capsys, "simulate", golden, "--policy", "lru", "--policy-file", str(f), "--cache", "1MiB")
    assert code == 2 and f"--policy-file {f}" in err and "line 2" in err and "Traceback" not in err
    f.write_text("x = 1\n")
    code, out, err = run(capsys, "simulate", golden, "--policy", "lru", "--policy-file", str(f), "--cache", "1MiB")
    assert code == 2 and "defines no PythonPolicy subclass" in err


@pytest.mark.parametrize("extra,msg", [('"x y"', "neither a counter name"), ("[1]", "neither a counter name"),
                                       ('"hits"', "base counter"), ('"abc"', "must be a tuple")])
def test_extra_counters_are_checked_when_registered(tmp_path, extra, msg):
    from flashrepro.cache import prototype

    src = PROTOTYPE.format(name=f"bad_extra_{abs(hash(extra))}").replace('("victims_chosen",)', f"({extra},)"
                                                                           if extra != '"abc"' else extra)
    f = tmp_path / "bad.py"
    f.write_text(src)
    with pytest.raises((TypeError, ValueError), match=msg):
        prototype.load_file(f)


# --- sweep: trace paths as workloads, the same size syntax, the table when no file is given --------------------
def test_sweep_takes_a_trace_path_and_prints_its_table(capsys, golden):
    code, out, err = run(capsys, "sweep", "--workload", golden, "--workload", "synthetic/uniform", "--policy", "lru",
                         "--cache", "32KiB,10%")
    assert code == 0, err
    table = rows(out)
    assert [(r["workload"], r["cache"]) for r in table] == [
        (golden, "32KiB"), (golden, "10%"), ("synthetic/uniform", "32KiB"), ("synthetic/uniform", "10%")]
    assert json.loads(err.strip().splitlines()[-1])["rows"] == 4
    res = simulate(load_trace(golden), "lru", int(table[0]["capacity_pages"]))
    assert int(table[0]["hits"]) == res.counters["hits"]


# --- what the trace was read as, and progress while parsing ---------------------------------------------------
def test_trace_info_says_which_format_it_read(capsys, data_dir):
    code, out, _ = run(capsys, "trace-info", str(data_dir / "formats/sample.spc"))
    d = json.loads(out)
    assert code == 0 and d["format"] == "spc" and d["format_sniffed"] is True
    code, out, _ = run(capsys, "trace-info", str(data_dir / "formats/sample.spc"), "--format", "spc")
    assert json.loads(out)["format_sniffed"] is False


def test_parsing_reports_progress(tmp_path):
    p = tmp_path / "big.spc"
    p.write_text("".join(f"0,{i * 8},4096,r,{i / 10}\n" for i in range(300_000)))
    seen = []
    src = open_trace(p, "spc", progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == len(src) == 300_000
