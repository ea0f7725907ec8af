"""Paper 4 experiments: every GC policy fed the same write streams (Figs. 4-5, 9-13, Tables 3-4), under the
settings the paper leaves open (:class:`Setup`), and the grids that show what each of them changes.

A run is tagged with its settings (columns ``trigger``, ``fallback``, ``prefilled``, ``spare``, ``seed``),
so one summary can hold several settings side by side.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ...ftl import POLICIES, ArrayStream, Geometry, run, summarize
from ...ftl import running_waf as ftl_running_waf
from ...traces import catalog
from ...traces.oltp import StatsTap
from .workloads import MODELS, OLTP_WRITES, REAL_STANDINS, THETAS, fio_stream, geometry, oltp_model, paper_value

PAPER_POLICIES = ["greedy", "2r", "2r++"]
FEMU_POLICIES = ["cost-benefit", "fifo", "random", "d-choice"]  # FEMU's other gc_policy values
RUN_POLICIES = PAPER_POLICIES + FEMU_POLICIES
TRIGGERS = ["femu", "reserve"]  # flashrepro.ftl.TRIGGERS: FEMU's bbssd thresholds, and GC at one free line
FALLBACK_RULES = ["least-valid", "fifo", "global"]  # flashrepro.ftl.FALLBACKS
TAGS = ["trigger", "fallback", "prefilled", "spare", "seed"]


@dataclasses.dataclass(frozen=True)
class Setup:
    """The settings paper 4 does not state, for one run.

    ``trigger``: when GC runs (``"femu"``: FEMU bbssd's thresholds, the default because all three FTLs
    ran inside FEMU; ``"reserve"``: only when one free line is left). ``fallback``: 2R's and 2R++'s victim
    when no old line is under the threshold. ``prefilled``: fio's file laid out before the measured writes
    (the default: the paper's Fig. 9A text says fio runs "with the space all in use"). ``spare``: the
    over-provisioning (None: Table 1's geometries, 12.5% for 8 GB and 10% for 10 GB; Table 2 says 10% for
    both; tagged as a string, "table1" or the fraction). ``seed``: the workload's random stream.
    ``threshold``: 2R's and 2R++'s victim utilization threshold (2R++'s 40%; not a tag column).
    """

    trigger: str = "femu"
    fallback: str = "least-valid"
    prefilled: bool = True
    spare: float | None = None
    seed: int = 0
    threshold: float = 0.4

    def tags(self) -> dict:
        return {"trigger": self.trigger, "fallback": self.fallback, "prefilled": self.prefilled,
                "spare": "table1" if self.spare is None else f"{self.spare:g}", "seed": self.seed}


def policies(names, fallback: str = "least-valid", extra=(), threshold: float = 0.4) -> list:
    """The named policies, 2R's and 2R++'s victim rule with ``fallback`` and ``threshold``; ``extra``
    Policy objects appended."""
    out = []
    for p in list(names) + list(extra):
        pol = POLICIES[p] if isinstance(p, str) else p
        if pol.victim == "fifo_threshold":
            pol = pol.with_(fallback=fallback, threshold=threshold)
        out.append(pol)
    return out


def variants() -> list:
    """2R and 2R++ with each other's multi-victim stop rule (the paper words them differently)."""
    return [POLICIES["2r"].with_(name="2r/invalid-stop", stop="invalid"),
            POLICIES["2r++"].with_(name="2r++/valid-stop", stop="valid")]


def _tagged(r, setup: Setup):
    r.slices = r.slices.with_columns(**{k: pl.lit(v) for k, v in setup.tags().items()})
    return r


def run_one(stream, names, g: Geometry, setup: Setup, threads: int = 2, progress: bool = True, extra=(),
            stats: bool = False):
    """``stream`` under ``names`` (and ``extra`` policies) with ``setup``; with ``stats`` the run also
    gathers the stream's Figs. 1-2 statistics (``run.tap.stats()``, see :func:`gathered_stats`)."""
    pols = policies(names, setup.fallback, extra, setup.threshold)
    return _tagged(run(stream, pols, g, threads=threads, trigger=setup.trigger, progress=progress,
                       tap=StatsTap(stream) if stats else None), setup)


def gathered_stats(runs) -> list:
    """``(workload, StreamStats)`` of the runs that gathered them (the main trigger's fio zipf 0.9 and OLTP
    runs), for :func:`flashrepro.papers.twor.workloads.stats_tables` (Figs. 1-2)."""
    got = [(r.workload, r.tap.stats()) for r in runs if r.tap is not None]
    return sorted(got, key=lambda x: x[0].startswith("fio"))  # the models first, as in skew_and_frozen


def run_fio(scale: str, setup: Setup = Setup(), names=tuple(RUN_POLICIES), thetas=tuple(THETAS), threads: int = 2,
            progress: bool = True, extras: bool = True) -> list:
    """Figs. 9A/9B and Table 3: every theta under ``names``; with ``extras`` also the stop-rule variants
    and fio's stream against true Zipf at theta 0.9, and the zipf 0.9 stream's statistics (Figs. 1-2)."""
    g = geometry("8GB", scale, setup.spare)
    runs = []
    for theta in thetas:
        st = fio_stream(theta, scale, setup.seed, prefilled=setup.prefilled)
        runs.append(run_one(st, names, g, setup, threads, progress, variants() if extras and theta == 0.9 else (),
                            stats=extras and theta == 0.9))
    if extras and 0.9 in thetas:
        st = fio_stream(0.9, scale, setup.seed, mode="true", prefilled=setup.prefilled)
        runs.append(run_one(st, names, g, setup, threads, progress))
    return runs


def run_oltp(scale: str, setup: Setup = Setup(), names=tuple(RUN_POLICIES), workloads=tuple(OLTP_WRITES),
             models=tuple(MODELS), threads: int = 2, progress: bool = True, extras: bool = True) -> list:
    """Figs. 4, 5, 10-13 and Table 4 on the fitted OLTP models (the life-cycle model, then the stationary
    alternative, named ``<workload>/stationary``); with ``extras`` also each stream's statistics (Figs. 1-2)."""
    g = geometry("10GB", scale, setup.spare)
    return [run_one(oltp_model(w, scale, setup.seed, model=m), names, g, setup, threads, progress,
                    variants() if extras and w == "tpcc" and m == MODELS[0] else (), stats=extras)
            for m in models for w in workloads]


def run_real(min_passes: int = 30, pages_per_line: int = 16, setup: Setup = Setup(), names=tuple(RUN_POLICIES),
             progress: bool = False, threads: int = 1) -> list:
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
        if setup.trigger == "femu":  # FEMU keeps 5% of the lines free: make room for them on a small device
            g = Geometry.for_logical(n, pages_per_line, spare=0.2 + 5 / max(1, n // pages_per_line))
        stream = ArrayStream(name, lpns, n, prefill=n, repeat=max(1, -(-min_passes * n // len(lpns))))
        runs.append(run_one(stream, names, g, setup, threads, progress))
    return runs


# --- tables ---------------------------------------------------------------------------------------------------
def slices_of(runs) -> pl.DataFrame:
    return pl.concat([r.slices for r in runs], how="diagonal_relaxed")


def summary(runs) -> pl.DataFrame:
    """Every run's end counters (:func:`flashrepro.ftl.summarize`) with its settings; byte-identical from run
    to run (wall times are in :func:`timings`)."""
    return summarize(slices_of(runs))


def timings(runs) -> pl.DataFrame:
    """Wall time of each run on this machine, by workload and settings: ``results/04_2rpp_timings.csv``, kept
    out of the summary so that every other table is identical on rerun (issue 12, section 4)."""
    return pl.DataFrame([{"workload": r.workload, **{k: r.slices[k][0] for k in TAGS}, "seconds": r.seconds}
                         for r in runs])


def running_waf(runs) -> pl.DataFrame:
    """Running and cumulative WAF per tenth of every run (Figs. 9-11)."""
    return ftl_running_waf(slices_of(runs))


def running_waf_figure_data(rw: pl.DataFrame, trigger: str | None = None) -> pl.DataFrame:
    """The running-WAF rows of Figs. 9A, 10 and 11 under ``trigger`` (default: the first present): the
    paper's policies and FEMU's (no stop-rule variants), in ``RUN_POLICIES`` order."""
    trigger = trigger or rw["trigger"][0]
    order = {p: i for i, p in enumerate(RUN_POLICIES)}
    return (rw.filter(pl.col("policy").is_in(RUN_POLICIES) & (pl.col("trigger") == trigger))
            .sort(pl.col("policy").replace_strict(order, return_dtype=pl.Int64), "workload", "slice"))


def improvement(waf_base: float, waf_new: float) -> float:
    """Equation (1), in percent: (WAF_base - 1) / (WAF_new - 1) - 1."""
    return 100 * ((waf_base - 1) / (waf_new - 1) - 1)


def _waf(s: pl.DataFrame, workload: str, policy: str, trigger: str | None = None) -> float:
    d = s.filter(workload=workload, policy=policy)
    if trigger is not None:
        d = d.filter(trigger=trigger)
    return float(d["waf"][0]) if d.height else float("nan")


def _wide(s: pl.DataFrame, workloads, paper_cols) -> pl.DataFrame:
    """One row per workload and trigger: each policy's WAF, then Eq. (1) and the paper's numbers."""
    rows = []
    for w in workloads:
        for t in s.filter(workload=w)["trigger"].unique(maintain_order=True):
            d = s.filter(workload=w, trigger=t)
            present = [p for p in RUN_POLICIES if p in d["policy"].to_list()]
            waf = {p: _waf(d, w, p) for p in present}
            row = {"workload": w, "trigger": t, **waf}
            if "2r" in waf and "2r++" in waf:
                row["improvement_pct"] = improvement(waf["2r"], waf["2r++"])
            if "greedy" in waf and "2r++" in waf:
                row["improvement_vs_greedy_pct"] = improvement(waf["greedy"], waf["2r++"])
            rows.append({**row, **paper_cols(w.split("/")[0])})
    return pl.DataFrame(rows)


def table3(s: pl.DataFrame) -> pl.DataFrame:
    """Table 3 (fio): cumulative WAF of each run policy under each trigger (FEMU's policies as extra columns)."""
    return _wide(s, [f"fio-zipf{t:g}" for t in THETAS if f"fio-zipf{t:g}" in s["workload"].to_list()],
                 lambda w: {"paper_2r": paper_value("waf", w, "2r"), "paper_2r++": paper_value("waf", w, "2r++"),
                            "paper_improvement_pct": paper_value("improvement", w)})


def table4(s: pl.DataFrame) -> pl.DataFrame:
    """Table 4 (OLTP models): cumulative WAF of each run policy, per model and trigger."""
    names = [w for m in MODELS for w in (OLTP_WRITES if m == MODELS[0] else [f"{x}/{m}" for x in OLTP_WRITES])]
    return _wide(s, [w for w in names if w in s["workload"].to_list()],
                 lambda w: {**{f"paper_{p}": paper_value("waf", w, p) for p in PAPER_POLICIES},
                            "paper_improvement_pct": paper_value("improvement", w),
                            "paper_improvement_vs_greedy_pct": paper_value("improvement_vs_greedy", w)})


def region_table(s: pl.DataFrame) -> pl.DataFrame:
    """Figs. 4/12 (cold pages returning to normal) and 5/13 (copyback shares), copyback totals, and the
    copyback ratio 2R / 2R++ - 1 (the form of the paper's "66.3%" and "13%"), per model and trigger."""
    rows = []
    for w in s["workload"].unique(maintain_order=True):
        base = w.split("/")[0]
        if base not in OLTP_WRITES:
            continue
        for t in s.filter(workload=w)["trigger"].unique(maintain_order=True):
            got = {p: s.filter(workload=w, policy=p, trigger=t).row(0, named=True) for p in ("2r", "2r++")}
            for p, r in got.items():
                rows.append({"workload": w, "trigger": t, "policy": p, "copybacks": r["copybacks"],
                             "returned_share": r["returned_share"], "cold_to_cold_share": r["cold_to_cold_share"],
                             "normal_share": r["normal_share"],
                             "copyback_ratio_minus_1": got["2r"]["copybacks"] / got["2r++"]["copybacks"] - 1,
                             "paper_copybacks": paper_value("copybacks", base, p),
                             "paper_returned_share": paper_value("returned_share", base, p)})
    return pl.DataFrame(rows)


def stop_rule_table(s: pl.DataFrame) -> pl.DataFrame:
    """What the multi-victim stop rule changes (2R's "valid pages exceed a line" vs 2R++'s "invalid pages
    reach a line"), where the variants ran."""
    return (s.filter(pl.col("policy").is_in(["2r", "2r++", "2r/invalid-stop", "2r++/valid-stop"])
                     & pl.col("workload").is_in(["fio-zipf0.9", "tpcc"]))
            .select("workload", "trigger", "policy", "waf", "copybacks", "victims", "gc_passes", "fallbacks",
                    (pl.col("victims") / pl.col("gc_passes")).alias("victims_per_gc"))
            .sort("workload", "trigger", "policy"))


def fio_modes_table(s: pl.DataFrame) -> pl.DataFrame:
    return (s.filter(pl.col("workload").is_in(["fio-zipf0.9", "fio-zipf0.9-true"]))
            .select("workload", "trigger", "policy", "waf", "copybacks").sort("workload", "trigger", "policy"))


def fallback_counts(s: pl.DataFrame) -> pl.DataFrame:
    """2R's and 2R++'s first victims per run, and the share taken by a fallback (nothing under the threshold)."""
    return (s.filter(pl.col("policy").is_in(["2r", "2r++"]))
            .select("workload", *TAGS, "policy", "waf", "gc_passes",
                    fallback_victims=pl.col("fallbacks") + pl.col("global_fallbacks"),
                    fallback_share=(pl.col("fallbacks") + pl.col("global_fallbacks")) / pl.col("gc_passes")))


# --- the grids of open settings ---------------------------------------------------------------------------------
def grid_setups(default: Setup, triggers=tuple(TRIGGERS), fallbacks=tuple(FALLBACK_RULES), seeds=range(5),
                spares=(None, 0.10)) -> dict[str, list[Setup]]:
    """One-at-a-time departures from ``default``: the other triggers, the fallback rules, prefill x spare,
    and the seeds. Each list holds the default too."""
    rep = dataclasses.replace
    return {"trigger": [rep(default, trigger=t) for t in triggers],
            "fallback": [rep(default, fallback=f) for f in fallbacks],
            "prefill_spare": [rep(default, prefilled=p, spare=sp) for p in (True, False) for sp in spares],
            "seed": [rep(default, seed=k) for k in seeds]}


def run_grids(scale: str, default: Setup, grids: dict[str, list[Setup]], names=tuple(PAPER_POLICIES),
              thetas=tuple(THETAS), oltp=tuple(OLTP_WRITES), threads: int = 2, progress: bool = False) -> pl.DataFrame:
    """Run every setup of every grid once (fio at each theta; the OLTP life-cycle models ``oltp`` for the
    trigger and seed grids, whose settings apply to them) and return the summary with a ``grid`` column
    (a setup in several grids appears once per grid)."""
    done: dict[tuple, pl.DataFrame] = {}
    out = []
    for grid, setups in grids.items():
        for st in setups:
            # the fallback rule changes only 2R and 2R++: the other policies run once, at the default
            fio_names = [p for p in names if p in ("2r", "2r++")] if st.fallback != default.fallback else names
            fio_key = ("fio", st)
            if fio_key not in done:
                done[fio_key] = summary(run_fio(scale, st, fio_names, thetas, threads, progress, extras=False))
            parts = [done[fio_key]]
            if grid in ("trigger", "seed") and oltp:
                key = ("oltp", st)
                if key not in done:
                    done[key] = summary(run_oltp(scale, st, names, oltp, MODELS[:1], threads, progress, extras=False))
                parts.append(done[key])
            out += [p.with_columns(grid=pl.lit(grid)) for p in parts]
    return pl.concat(out, how="diagonal_relaxed")


def grid_table(g: pl.DataFrame, grid: str) -> pl.DataFrame:
    """WAF of each policy and Eq. (1) per setting of one grid, fallback victims as a share of first victims."""
    d = g.filter(grid=grid)
    keys = ["workload", *TAGS]
    wide = d.pivot(on="policy", index=keys, values="waf")
    fb = d.filter(policy="2r").select(*keys, fallback_share_2r=(pl.col("fallbacks") + pl.col("global_fallbacks"))
                                      / pl.col("gc_passes"))
    out = wide.join(fb, on=keys, how="left")
    if {"2r", "2r++"} <= set(out.columns):
        out = out.with_columns(improvement_pct=100 * ((pl.col("2r") - 1) / (pl.col("2r++") - 1) - 1))
    return out.sort(keys)


def fallback_band(g: pl.DataFrame) -> pl.DataFrame:
    """Table 3 as a band over the fallback rules: the smallest and largest WAF of 2R and 2R++ and of Eq. (1)."""
    t = grid_table(g, "fallback")
    return (t.group_by("workload", maintain_order=True)
            .agg(*[f(c).alias(f"{c}_{f.__name__}") for c in ("2r", "2r++", "improvement_pct")
                   for f in (pl.min, pl.max)])
            .sort("workload"))


def seed_spread(g: pl.DataFrame) -> pl.DataFrame:
    """Every WAF and improvement over the seeds: mean, smallest and largest."""
    t = grid_table(g, "seed")
    cols = [c for c in ("greedy", "2r", "2r++", "improvement_pct") if c in t.columns]
    if {"greedy", "2r++"} <= set(t.columns):
        t = t.with_columns(improvement_vs_greedy_pct=100 * ((pl.col("greedy") - 1) / (pl.col("2r++") - 1) - 1))
        cols.append("improvement_vs_greedy_pct")
    long = t.unpivot(index=["workload", "seed"], on=cols, variable_name="quantity")
    return (long.group_by("workload", "quantity", maintain_order=True)
            .agg(seeds=pl.len(), mean=pl.col("value").mean(), min=pl.col("value").min(), max=pl.col("value").max())
            .sort("workload", "quantity"))


def scale_check(g: pl.DataFrame, s: pl.DataFrame, default: Setup, grid_scale: str, scale: str) -> pl.DataFrame:
    """The default setting at the grids' scale against the main runs' scale: the grids' scale is valid
    where these agree."""
    keys = default.tags()
    a = g.filter(grid="seed", **keys).select("workload", "policy", waf_grid=pl.col("waf"))
    b = s.filter(**keys).select("workload", "policy", waf_main=pl.col("waf"))
    return (a.join(b, on=["workload", "policy"], how="inner")
            .with_columns(grid_scale=pl.lit(grid_scale), main_scale=pl.lit(scale),
                          relative_difference=pl.col("waf_grid") / pl.col("waf_main") - 1)
            .sort("workload", "policy"))
