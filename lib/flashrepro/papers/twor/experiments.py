"""Paper 4 experiments: every GC policy fed the same write streams (Figs. 4-5, 9-13, Tables 3-4)."""

from __future__ import annotations

import numpy as np
import polars as pl

from ...ftl import POLICIES, ArrayStream, Geometry, run, summarize
from ...ftl import running_waf as ftl_running_waf
from ...traces import catalog
from .workloads import OLTP_WRITES, REAL_STANDINS, THETAS, fio_stream, geometry, oltp_model, paper_value


def variants() -> list:
    """2R and 2R++ with each other's multi-victim stop rule (the paper words them differently)."""
    return [POLICIES["2r"].with_(name="2r/invalid-stop", stop="invalid"),
            POLICIES["2r++"].with_(name="2r++/valid-stop", stop="valid")]


PAPER_POLICIES = ["greedy", "2r", "2r++"]
FEMU_POLICIES = ["cost-benefit", "fifo", "random", "d-choice"]  # FEMU's other gc_policy values
RUN_POLICIES = PAPER_POLICIES + FEMU_POLICIES


def run_policies() -> list:
    return [POLICIES[p] for p in RUN_POLICIES]


def run_fio(scale: str, seed: int = 0, threads: int = 2, progress: bool = True) -> list:
    """Figs. 9A/9B and Table 3: every theta under greedy, 2R, 2R++ and FEMU's policies (plus the stop-rule
    variants and fio's stream against true Zipf at theta 0.9)."""
    g = geometry("8GB", scale)
    runs = []
    for theta in THETAS:
        pols = run_policies() + (variants() if theta == 0.9 else [])
        runs.append(run(fio_stream(theta, scale, seed), pols, g, threads=threads, progress=progress))
    runs.append(run(fio_stream(0.9, scale, seed, mode="true"), run_policies(), g, threads=threads,
                    progress=progress))
    return runs


def run_oltp(scale: str, seed: int = 0, threads: int = 2, progress: bool = True) -> list:
    """Figs. 4, 5, 10-13 and Table 4 on the fitted TPC-C and LinkBench models."""
    g = geometry("10GB", scale)
    return [run(oltp_model(w, scale, seed), run_policies() + (variants() if w == "tpcc" else []), g,
                threads=threads, progress=progress) for w in OLTP_WRITES]


def run_real(min_passes: int = 30, pages_per_line: int = 16, progress: bool = False) -> list:
    """The real stand-ins present: their write streams (pages renumbered densely) looped until the
    device is overwritten ``min_passes`` times, on a small geometry with 12.5% spare space."""
    runs = []
    for name in REAL_STANDINS:
        if not catalog.available(name):
            continue
        refs = catalog.get(name, "paper").to_pages()
        lpns = np.unique(refs.page[refs.is_write], return_inverse=True)[1].astype(np.int32)
        n = int(lpns.max()) + 1
        g = Geometry.for_logical(n, pages_per_line, spare=0.125 + 5 / max(1, n // pages_per_line))
        stream = ArrayStream(name, lpns, n, prefill=n, repeat=max(1, -(-min_passes * n // len(lpns))))
        runs.append(run(stream, run_policies(), g, threads=1, progress=progress))
    return runs


def running_waf(runs) -> pl.DataFrame:
    """Running and cumulative WAF per tenth of every run (Figs. 9-11)."""
    return ftl_running_waf(slices_of(runs))


def running_waf_figure_data(rw: pl.DataFrame) -> pl.DataFrame:
    """The running-WAF rows of Figs. 9A, 10 and 11: the paper's policies and FEMU's (no stop-rule
    variants), in ``RUN_POLICIES`` order."""
    order = {p: i for i, p in enumerate(RUN_POLICIES)}
    return (rw.filter(pl.col("policy").is_in(RUN_POLICIES))
            .sort(pl.col("policy").replace_strict(order, return_dtype=pl.Int64), "workload", "slice"))


def slices_of(runs) -> pl.DataFrame:
    return pl.concat([r.slices for r in runs], how="diagonal_relaxed")


def summary(runs) -> pl.DataFrame:
    """Every run's summary; byte-identical from run to run (wall times are in :func:`timings`)."""
    return summarize(slices_of(runs))


def timings(runs) -> pl.DataFrame:
    """Wall time of each workload's runs on this machine: ``results/04_2rpp_timings.csv``, kept out of the
    summary so that every other table is identical on rerun (issue 12, section 4)."""
    return pl.DataFrame({"workload": [r.workload for r in runs], "seconds": [r.seconds for r in runs]})


def improvement(waf_base: float, waf_new: float) -> float:
    """Equation (1), in percent: (WAF_base - 1) / (WAF_new - 1) - 1."""
    return 100 * ((waf_base - 1) / (waf_new - 1) - 1)


def _waf(s: pl.DataFrame, workload: str, policy: str) -> float:
    return float(s.filter(workload=workload, policy=policy)["waf"][0])


def table3(s: pl.DataFrame) -> pl.DataFrame:
    """Table 3 (fio): cumulative WAF of each run policy (FEMU's as extra columns after 2R++)."""
    rows = []
    for theta in THETAS:
        w = f"fio-zipf{theta:g}"
        a, b = _waf(s, w, "2r"), _waf(s, w, "2r++")
        rows.append({"workload": w, **{p: _waf(s, w, p) for p in RUN_POLICIES},
                     "improvement_pct": improvement(a, b),
                     "paper_2r": paper_value("waf", w, "2r"), "paper_2r++": paper_value("waf", w, "2r++"),
                     "paper_improvement_pct": paper_value("improvement", w)})
    return pl.DataFrame(rows)


def table4(s: pl.DataFrame) -> pl.DataFrame:
    """Table 4 (OLTP models): cumulative WAF of each run policy (FEMU's as extra columns after 2R++)."""
    rows = []
    for w in OLTP_WRITES:
        g, a, b = (_waf(s, w, p) for p in ("greedy", "2r", "2r++"))
        rows.append({"workload": w, **{p: _waf(s, w, p) for p in RUN_POLICIES},
                     "improvement_vs_2r_pct": improvement(a, b),
                     "improvement_vs_greedy_pct": improvement(g, b),
                     **{f"paper_{p}": paper_value("waf", w, p) for p in ("greedy", "2r", "2r++")},
                     "paper_improvement_vs_2r_pct": paper_value("improvement", w)})
    return pl.DataFrame(rows)


def region_table(s: pl.DataFrame) -> pl.DataFrame:
    """Figs. 4/12 (cold pages returning to normal) and 5/13 (copyback shares), copyback totals."""
    rows = []
    for w in OLTP_WRITES:
        for p in ("2r", "2r++"):
            r = s.filter(workload=w, policy=p).row(0, named=True)
            rows.append({"workload": w, "policy": p, "copybacks": r["copybacks"],
                         "returned_share": r["returned_share"], "cold_to_cold_share": r["cold_to_cold_share"],
                         "normal_share": r["normal_share"],
                         "paper_copybacks": paper_value("copybacks", w, p),
                         "paper_returned_share": paper_value("returned_share", w, p)})
    return pl.DataFrame(rows)


def stop_rule_table(s: pl.DataFrame) -> pl.DataFrame:
    """What the multi-victim stop rule changes (2R's "valid pages exceed a line" vs 2R++'s "invalid pages
    reach a line"), where the variants ran."""
    return (s.filter(pl.col("policy").is_in(["2r", "2r++", "2r/invalid-stop", "2r++/valid-stop"])
                     & pl.col("workload").is_in(["fio-zipf0.9", "tpcc"]))
            .select("workload", "policy", "waf", "copybacks", "victims", "gc_passes", "fallbacks",
                    (pl.col("victims") / pl.col("gc_passes")).alias("victims_per_gc"))
            .sort("workload", "policy"))


def fio_modes_table(s: pl.DataFrame) -> pl.DataFrame:
    return (s.filter(pl.col("workload").is_in(["fio-zipf0.9", "fio-zipf0.9-true"]))
            .select("workload", "policy", "waf", "copybacks").sort("workload", "policy"))


