"""benchmarks/bench_targets.py: issue 22's speed targets on bench rows, and docs/benchmarks.md's table rendered
from them."""

import sys
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_targets as T  # noqa: E402

W = "zipf0.9-10M-over-1000k"


def _kernel(kernel, cap, cpu, requests=10_000_000, workload=W):
    return {"kernel": kernel, "workload": workload, "capacity_pages": cap, "requests": requests,
            "seconds": cpu * 3, "cpu_seconds": cpu}  # wall time 3x CPU time: the rate comes from CPU time


def _ftl(rule, trigger, rate, waf, workload="fio-zipf0.9-8GB"):
    n = 18_000_000
    return {"kernel": f"ftl-{rule}", "workload": workload, "trigger": trigger, "capacity_pages": 2_000_000,
            "requests": n, "seconds": n / rate / 1e6, "cpu_seconds": n / rate / 1e6, "waf": waf}


def _rows():
    return pl.DataFrame([
        _kernel("lru", 10_000, 0.08), _kernel("lru", 100_000, 0.1),  # 125 and 100 M req/s
        _kernel("libcachesim-lru", 10_000, 0.4), _kernel("libcachesim-lru", 100_000, 0.45),  # 25, 22.2
        _kernel("clock", 10_000, 0.1), _kernel("clock", 100_000, 0.1),
        _kernel("libcachesim-clock", 10_000, 0.4), _kernel("libcachesim-clock", 100_000, 0.6),
        _kernel("cflru", 10_000, 0.5), _kernel("cflru", 100_000, 0.49),  # 20 and 20.4: the bound passes
        _kernel("seg_lru", 10_000, 2.0), _kernel("seg_lru", 100_000, 0.2),  # 5 fails at 1%
        _kernel("end-to-end-lru", 10_000, 1.0),
        _ftl("greedy", "femu", 15.0, 10.0), _ftl("fifo", "femu", 12.0, 11.0),  # 150 and 132 M page writes/s
        _ftl("2r", "femu", 12.0, 6.0),  # below greedy's WAF: the host rate must reach 20
        _ftl("d-choice", "femu", 8.0, 11.0),  # copies more than greedy, but 88 M page writes/s
        _ftl("random", "reserve", 25.0, 8.0), _ftl("greedy", "reserve", 30.0, 5.0),
        _ftl("2r", "femu", 5.0, 1.2, workload="tpcc-model-10GB"),  # no target off fio
        {"kernel": "flashrepro-first-run", "workload": "msr-csv-5M-zipf0.9", "capacity_pages": 10_000,
         "requests": 5_000_000, "seconds": 1.0, "cpu_seconds": 1.05, "peak_mib": 300},
        {"kernel": "libcachesim-csv", "workload": "msr-csv-5M-zipf0.9", "capacity_pages": 10_000,
         "requests": 5_000_000, "seconds": 2.0, "cpu_seconds": 2.0, "peak_mib": 160},
    ], infer_schema_length=None)


def _by(df):
    return {(r["kernel"], r["capacity_pages"], r.get("trigger"), r["workload"]): r for r in df.to_dicts()}


def test_each_target_passes_and_fails_where_the_issue_puts_its_bound():
    a = _by(T.annotate(_rows()))
    assert a[("lru", 10_000, None, W)]["rate"] == pytest.approx(125.0)  # from CPU time, not wall time
    assert a[("lru", 10_000, None, W)]["meets_peer_ratio"] and a[("lru", 100_000, None, W)]["peer_ratio"] == \
        pytest.approx(4.5)
    assert not a[("lru", 100_000, None, W)]["meets_peer_ratio"]
    assert a[("clock", 100_000, None, W)]["meets_peer_ratio"] and not a[("clock", 10_000, None, W)]["meets_peer_ratio"]
    assert a[("cflru", 10_000, None, W)]["meets_rate"] and a[("cflru", 100_000, None, W)]["meets_rate"]
    assert not a[("seg_lru", 10_000, None, W)]["meets_rate"] and a[("seg_lru", 100_000, None, W)]["meets_rate"]
    assert a[("end-to-end-lru", 10_000, None, W)]["meets_rate"] is None  # no target
    assert a[("libcachesim-lru", 10_000, None, W)]["meets_rate"] is None
    fio = "fio-zipf0.9-8GB"
    assert a[("ftl-greedy", 2_000_000, "femu", fio)]["meets_rate"]  # 15 M/s, but WAF 10 (its own): 150 M pages/s
    assert a[("ftl-fifo", 2_000_000, "femu", fio)]["meets_rate"]  # WAF 11 > 10: 132 M page writes/s
    assert not a[("ftl-d-choice", 2_000_000, "femu", fio)]["meets_rate"]
    assert not a[("ftl-2r", 2_000_000, "femu", fio)]["meets_rate"]  # WAF 6 < 10: needs 20 M host writes/s
    assert a[("ftl-random", 2_000_000, "reserve", fio)]["meets_rate"]
    assert a[("ftl-2r", 2_000_000, "femu", "tpcc-model-10GB")]["meets_rate"] is None
    first = a[("flashrepro-first-run", 10_000, None, "msr-csv-5M-zipf0.9")]
    assert first["peer_ratio"] == pytest.approx(2.0 / 1.05) and not first["meets_peer_ratio"]


def test_the_table_shows_every_kernel_and_verdict_and_lands_between_the_markers(tmp_path):
    table = T.render(T.annotate(_rows()))
    lines = table.splitlines()
    lru = next(ln for ln in lines if ln.startswith("| lru |"))
    assert lru == "| lru | 125.0 | 100.0 | pass | 5.0x / 4.5x | **fail** |"  # 5.0x at 1% is just enough
    assert next(ln for ln in lines if ln.startswith("| seg_lru |")).count("**fail**") == 1
    assert any(ln.startswith("| flashrepro-first-run |") and "**fail**" in ln for ln in lines)
    assert any(ln.startswith("| fifo | fio-zipf0.9-8GB | femu |") and ln.endswith("| pass |") for ln in lines)
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"intro\n{T.BEGIN}\nold table\n{T.END}\nrest\n")
    assert T.update_doc(table, doc)
    text = doc.read_text()
    assert text.startswith(f"intro\n{T.BEGIN}\n{table}{T.END}\nrest") and "old table" not in text
    doc.write_text("no markers\n")
    assert not T.update_doc(table, doc) and doc.read_text() == "no markers\n"


def test_the_table_goes_to_docs_benchmarks_where_make_docs_renders_the_same_text(tmp_path):
    """make bench writes the table between docs/benchmarks.md's markers, and make docs (block ``bench``) renders
    the very same text from the same results/bench.csv."""
    from flashrepro import docs

    page = (Path(__file__).resolve().parents[1] / T.DOC).read_text()
    assert page.count(T.BEGIN) == 1 and page.count(T.END) == 1
    assert (T.BEGIN, T.END) == (docs.begin("bench"), docs.end("bench"))
    _rows().write_csv(tmp_path / "bench.csv")
    assert docs.render_block("bench", tmp_path) == T.render(T.annotate(_rows()))
