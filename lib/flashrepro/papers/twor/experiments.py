"""Paper 4 experiments: every GC policy fed the same write streams (Figs. 4-5, 9-13, Tables 3-4), under the
settings the paper leaves open (:class:`Setup`), and the grids that show what each of them changes.

A run is tagged with its settings (columns ``trigger``, ``fallback``, ``prefilled``, ``spare``, ``seed``),
so one summary can hold several settings side by side.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ...ftl import POLICIES, ArrayStream, GCTrigger, Geometry, get_trigger, run, summarize
from ...ftl import oracle as ftl_oracle
from ...ftl import running_waf as ftl_running_waf
from ...ftl.victims.fifo_threshold import threshold_pages
from ...traces import catalog
from ...traces.oltp import StatsTap
from .workloads import MODELS, OLTP_WRITES, REAL_STANDINS, THETAS, fio_stream, geometry, oltp_model, paper_value

PAPER_POLICIES = ["greedy", "2r", "2r++"]
FEMU_POLICIES = ["cost-benefit", "fifo", "random", "d-choice"]  # FEMU's other gc_policy values
RUN_POLICIES = PAPER_POLICIES + FEMU_POLICIES
TRIGGERS = ["femu", "reserve"]  # flashrepro.ftl.TRIGGERS: FEMU's bbssd thresholds, and GC at one free line
FALLBACK_RULES = ["least-valid", "fifo", "global"]  # flashrepro.ftl.victims.fifo_threshold.FALLBACKS
FALLBACK_LABELS = {"least-valid": "least-valid eligible line", "fifo": "first eligible line from the cursor",
                   "global": "least-valid line of all"}
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
    Policy objects appended (or ``(Policy, GCTrigger)`` pairs: a policy run under a trigger of its own)."""
    out = []
    for p in list(names) + [x[0] if isinstance(x, tuple) else x for x in extra]:
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
    """``stream`` under ``names`` (and ``extra`` policies, or ``(policy, trigger)`` pairs) with ``setup``;
    with ``stats`` the run also gathers the stream's Figs. 1-2 statistics (``run.tap.stats()``, see
    :func:`gathered_stats`). A policy with a trigger of its own is tagged with the setup's trigger too (its
    name says what differs)."""
    pols = policies(names, setup.fallback, extra, setup.threshold)
    own = [None] * len(names) + [x[1] if isinstance(x, tuple) else None for x in extra]
    trigger = setup.trigger if all(t is None for t in own) else [t or setup.trigger for t in own]
    return _tagged(run(stream, pols, g, threads=threads, trigger=trigger, progress=progress,
                       tap=StatsTap(stream) if stats else None), setup)


def run_shared(stream, names, g: Geometry, setups, threads: int = 2, progress: bool = True, extra=(),
               stats: bool = False) -> list:
    """:func:`run_one` of ``stream`` under each of ``setups`` (settings that differ only by trigger), the stream
    generated once for all: one run whose FTLs each have their setup's trigger, split into one run per setup
    (the same rows as separate runs). ``extra`` and ``stats`` go to the first setup only."""
    main = setups[0]
    if any(dataclasses.replace(s, trigger=main.trigger) != main for s in setups[1:]):
        raise ValueError("setups sharing a stream may differ only by trigger")
    first = policies(names, main.fallback, extra, main.threshold)
    rest = policies(names, main.fallback, (), main.threshold)
    pols = first + rest * (len(setups) - 1)
    triggers = [main.trigger] * len(first) + [s.trigger for s in setups[1:] for _ in rest]
    r = run(stream, pols, g, threads=threads, trigger=triggers, progress=progress,
            tap=StatsTap(stream) if stats else None)
    return [_tagged(part, s) for part, s in zip(r.split([s.trigger for s in setups]), setups, strict=True)]


def run_main(setups, scales, names=tuple(RUN_POLICIES), thetas=tuple(THETAS), workloads=tuple(OLTP_WRITES),
             models=tuple(MODELS), threads: int = 2, progress: bool = True, real: bool = True) -> list:
    """The notebook's runs, setup ``k`` (settings that differ only by trigger) at ``scales[k]``: under the
    first (the main trigger) :func:`run_fio` and :func:`run_oltp` with their extras and every model, and
    :func:`run_real` if ``real``; under each other setup the fio thetas and the first model, without
    extras. The setups at the first one's scale share each stream (:func:`run_shared`: LinkBench's 600M
    writes are generated once, not once per trigger). The runs come back as if the setups had run one
    after another, main setup first: the same rows in the same order."""
    main, scale = setups[0], scales[0]
    shared = [s for s, sc in zip(setups, scales, strict=True) if sc == scale]
    out: dict[tuple[str, str], object] = {}

    def go(st, g, extra, stats):  # st under every shared setup; the main setup's run
        parts = run_shared(st, names, g, shared, threads, progress, extra, stats)
        out.update({(s.trigger, st.name): r for s, r in zip(shared, parts, strict=True)})
        return parts[0]

    g8, g10 = geometry("8GB", scale, main.spare), geometry("10GB", scale, main.spare)
    runs = [go(fio_stream(t, scale, main.seed, prefilled=main.prefilled), g8, variants() if t == 0.9 else (),
               t == 0.9) for t in thetas]
    if 0.9 in thetas:
        runs.append(run_one(fio_stream(0.9, scale, main.seed, mode="true", prefilled=main.prefilled), names, g8,
                            main, threads, progress))
    for m in models:
        for w in workloads:
            st, extra = oltp_model(w, scale, main.seed, model=m), variants() if w == "tpcc" and m == MODELS[0] else ()
            runs.append(go(st, g10, extra, True) if m == models[0] else
                        run_one(st, names, g10, main, threads, progress, extra, stats=True))
    if real:
        runs += run_real(setup=main, names=names, threads=threads)
    for s, sc in zip(setups[1:], scales[1:], strict=True):
        if sc == scale:
            runs += [out[(s.trigger, fio_stream(t, scale).name)] for t in thetas]
            runs += [out[(s.trigger, oltp_model(w, scale, model=models[0]).name)] for w in workloads]
        else:
            runs += run_fio(sc, s, names, thetas, threads, progress, extras=False)
            runs += run_oltp(sc, s, names, workloads, models[:1], threads, progress, extras=False)
    return runs


FIGS_1_2_FIO = "fio-zipf0.9"  # the fio stream beside the models in Figs. 1-2


def gathered_stats(runs) -> list:
    """``(workload, StreamStats)`` of the runs that gathered them for Figs. 1-2 (the main trigger's OLTP
    runs and fio zipf 0.9), for :func:`flashrepro.papers.twor.workloads.stats_tables`."""
    got = [(r.workload, r.tap.stats()) for r in runs if r.tap is not None
           and (not r.workload.startswith("fio") or r.workload == FIGS_1_2_FIO)]
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
    out of the summary so that every other table is identical on rerun. Runs that shared a stream
    (:func:`run_shared`) each show the shared wall time, and ``sharing`` says how many runs it covers."""
    return pl.DataFrame([{"workload": r.workload, **{k: r.slices[k][0] for k in TAGS}, "seconds": r.seconds,
                          "sharing": r.shares} for r in runs])


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
GRIDS = ("fallback", "prefill_spare", "seed", "copy", "settled")
OLTP_GRIDS = ("fallback", "seed", "copy", "settled")  # the settings that apply to the OLTP models (prefill and
# spare are fio's)
# the copy-destination reading: greedy's GC copies to a frontier of their own instead of the host's write pointer
COPY_VARIANTS = [POLICIES["greedy"].with_(name="greedy/own-copy-frontier", copy_dest=(1, 1, 1),
                                          description="greedy with its GC copies on a write pointer of their own")]


def other_pointer(trigger: str | GCTrigger) -> GCTrigger:
    """``trigger`` with the host's write pointer taking its next line the other way (eager <-> lazy)."""
    t = get_trigger(trigger)
    return t.with_(host_line="lazy" if t.host_line == "eager" else "eager")


def settled_variants(trigger: str | GCTrigger, names=tuple(PAPER_POLICIES)) -> list:
    """The readings the clean-room review found the package used where paper 4's text or FEMU's code reads
    otherwise, and greedy with FEMU's victim heap: run beside the default setup in the grids (the
    ``"settled"`` grid), as ``(policy, trigger or None)`` pairs named ``<policy>/<reading>``:

    * ``interleaved``: 2R's and 2R++'s follow-up victims chosen after the previous victim's copies (the
      package before; sections 2.3 and 3.1 choose them all, then copy);
    * ``other-pointer``: the host's write pointer the other way (the package before: lazy under FEMU's
      trigger, where FEMU's code takes the next line when one fills);
    * ``heap`` and ``heap-stale``: greedy's ties as FEMU's victim heap leaves them, kept as FEMU has since
      2021-10-04 or not moved on page loss as before (the default takes the least recently changed line).
    """
    out = [(POLICIES[p].with_(name=f"{p}/interleaved", select="interleaved"), None) for p in ("2r", "2r++")
           if p in names]
    if "greedy" in names:
        out += [(POLICIES["greedy"].with_(name=f"greedy/{v.split('-', 1)[1]}", victim=v), None)
                for v in ("greedy-heap", "greedy-heap-stale")]
    return out + [(POLICIES[p].with_(name=f"{p}/other-pointer"), other_pointer(trigger)) for p in names]


def _variant_names(extra) -> list[str]:
    return [(x[0] if isinstance(x, tuple) else x).name for x in extra]
WITHIN = 0.02  # a grid scale is read as full scale where the default point agrees within this


def grid_setups(default: Setup, fallbacks=tuple(FALLBACK_RULES), seeds=range(5),
                spares=(None, 0.10)) -> dict[str, list[Setup]]:
    """One-at-a-time departures from ``default``: the fallback rules, prefill x spare, the seeds, the copy
    destinations (``"copy"``: the default setup, where :data:`COPY_VARIANTS` run) and the settled readings
    (``"settled"``: the default setup, where :func:`settled_variants` run). Each list holds the default too.
    (The GC trigger is not a grid: the main runs have every trigger at full scale.)"""
    rep = dataclasses.replace
    return {"fallback": [rep(default, fallback=f) for f in fallbacks],
            "prefill_spare": [rep(default, prefilled=p, spare=sp) for p in (True, False) for sp in spares],
            "seed": [rep(default, seed=k) for k in seeds],
            "copy": [default], "settled": [default]}


def run_grids(scale: str, default: Setup, grids: dict[str, list[Setup]], names=tuple(PAPER_POLICIES),
              thetas=tuple(THETAS), oltp=tuple(OLTP_WRITES), threads: int = 2,
              progress: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run every setup of every grid once: fio at each theta, and the life-cycle OLTP models ``oltp`` for the
    grids whose setting applies to them (:data:`OLTP_GRIDS`). A setup that differs from ``default`` only in
    the fallback runs 2R and 2R++ alone; the default setup's runs carry :data:`COPY_VARIANTS` and
    :func:`settled_variants` too (the same streams), whose rows make the copy and settled grids. Returns the
    summary and the running WAFs, each with a ``grid`` column (a setup in several grids appears once per
    grid)."""
    done: dict[tuple, tuple[pl.DataFrame, pl.DataFrame]] = {}
    settled = settled_variants(default.trigger, [p for p in PAPER_POLICIES if p in names])
    own = {"copy": _variant_names(COPY_VARIANTS), "settled": _variant_names(settled)}
    variants = [v for names_ in own.values() for v in names_]

    def go(key, fn):
        if key not in done:
            rs = fn()
            done[key] = (summary(rs), running_waf(rs))
        return done[key]

    out, rws = [], []
    for grid, setups in grids.items():
        for st in setups:
            fio_names = [p for p in names if p in ("2r", "2r++")] if st.fallback != default.fallback else names
            extra = [*COPY_VARIANTS, *settled] if st == default else ()
            parts = [go(("fio", st), lambda st=st, n=fio_names, x=extra: [
                run_one(fio_stream(t, scale, st.seed, prefilled=st.prefilled), n, geometry("8GB", scale, st.spare),
                        st, threads, progress, x) for t in thetas])]
            if grid in OLTP_GRIDS and oltp:
                parts.append(go(("oltp", st), lambda st=st, n=fio_names, x=extra: [
                    run_one(oltp_model(w, scale, st.seed), n, geometry("10GB", scale, st.spare), st, threads,
                            progress, x) for w in oltp]))
            keep = pl.col("policy").is_in(own[grid]) if grid in own else ~pl.col("policy").is_in(variants)
            out += [a.filter(keep).with_columns(grid=pl.lit(grid)) for a, _ in parts]
            rws += [b.filter(keep).with_columns(grid=pl.lit(grid)) for _, b in parts]
    return pl.concat(out, how="diagonal_relaxed"), pl.concat(rws, how="diagonal_relaxed")


def _fallback_share():
    return (pl.col("fallbacks") + pl.col("global_fallbacks")) / pl.col("gc_passes")


def grid_table(g: pl.DataFrame, grid: str) -> pl.DataFrame:
    """WAF of each policy and Eq. (1) per setting of one grid, fallback victims as a share of first victims."""
    d = g.filter(grid=grid)
    keys = ["workload", *TAGS]
    wide = d.pivot(on="policy", index=keys, values="waf")
    out = wide
    for p in ("2r", "2r++"):
        if p in d["policy"].to_list():
            fb = d.filter(policy=p).select(*keys, _fallback_share().alias(f"fallback_share_{p}"))
            out = out.join(fb, on=keys, how="left")
    if {"2r", "2r++"} <= set(out.columns):
        out = out.with_columns(improvement_pct=100 * ((pl.col("2r") - 1) / (pl.col("2r++") - 1) - 1))
    return out.sort(keys)


def fallback_band(g: pl.DataFrame) -> pl.DataFrame:
    """Tables 3 and 4 as a band over the fallback rules: the smallest and largest WAF of 2R and 2R++ and of
    Eq. (1)."""
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
    """The default setting at the grids' scale against the main runs' scale: the grids' values are read as
    full-scale values where these agree within :data:`WITHIN` (``within``), and as what a setting changes
    (a difference at one scale) elsewhere."""
    keys = default.tags()
    a = g.filter(grid="seed", **keys).select("workload", "policy", waf_grid=pl.col("waf"))
    b = s.filter(**keys).select("workload", "policy", waf_main=pl.col("waf"))
    return (a.join(b, on=["workload", "policy"], how="inner")
            .with_columns(grid_scale=pl.lit(grid_scale), main_scale=pl.lit(scale),
                          relative_difference=pl.col("waf_grid") / pl.col("waf_main") - 1)
            .with_columns(within=pl.col("relative_difference").abs() <= WITHIN)
            .sort("workload", "policy"))


def first_tenth_gaps(rw: pl.DataFrame, workload: str = "linkbench", trigger: str = "femu") -> pl.DataFrame:
    """Fig. 11's early gap per seed of the seed grid: 2R's running WAF minus 2R++'s in the first tenth, and
    2R's copies per host write there (how much GC there is to separate)."""
    d = rw.filter(grid="seed", workload=workload, trigger=trigger, slice=1)
    a = d.filter(policy="2r").select("seed", r2=pl.col("running_waf"))
    b = d.filter(policy="2r++").select("seed", r2pp=pl.col("running_waf"))
    return a.join(b, on="seed").with_columns(gap=pl.col("r2") - pl.col("r2pp")).sort("seed")


# --- the placement oracle ---------------------------------------------------------------------------------
def oracle_streams(scale: str, setup: Setup, thetas=tuple(THETAS), oltp=tuple(OLTP_WRITES)) -> list:
    """``(stream, geometry)`` of the main runs' fio streams and life-cycle OLTP models at ``scale``."""
    return ([(fio_stream(t, scale, setup.seed, prefilled=setup.prefilled), geometry("8GB", scale, setup.spare))
             for t in thetas]
            + [(oltp_model(w, scale, setup.seed), geometry("10GB", scale, setup.spare)) for w in oltp])


def run_oracles(scale: str, setup: Setup, triggers=tuple(TRIGGERS), thetas=tuple(THETAS), oltp=tuple(OLTP_WRITES),
                lasts: dict | None = None, threads: int = 2, progress: bool = False) -> pl.DataFrame:
    """The placement oracle (:mod:`flashrepro.ftl.oracle`: each page's last write to a frontier of its own,
    with each of its victim rules) on the streams of :func:`oracle_streams` under every trigger, one pass over
    each stream; ``lasts``: each page's last write by workload where a main run already gathered it (its
    :class:`~flashrepro.traces.oltp.StreamStats`), else a first pass finds it. Returns the summary with a
    ``scale`` column and the setup's other tags."""
    lasts = lasts or {}
    pols = ftl_oracle.policies(threshold=setup.threshold, fallback=setup.fallback)
    out = []
    for st, g in oracle_streams(scale, setup, thetas, oltp):
        r = ftl_oracle.run_oracle(st, g, list(triggers), last=lasts.get(st.name), policy=pols, threads=threads,
                                  progress=progress)
        tags = {k: v for k, v in setup.tags().items() if k != "trigger"}
        out.append(summary([r]).with_columns(scale=pl.lit(scale), **{k: pl.lit(v) for k, v in tags.items()}))
    return pl.concat(out, how="diagonal_relaxed")


def main_lasts(runs) -> dict:
    """Each page's last write, by workload, from the main runs that gathered their stream's statistics."""
    return {r.workload: r.tap.last for r in runs if r.tap is not None}


def oracle_table(o: pl.DataFrame, s: pl.DataFrame) -> pl.DataFrame:
    """Per stream, trigger and scale: the oracle's WAF with each victim rule, the lowest (``oracle``) and its
    rule, beside ours (greedy, 2R, 2R++ under the same trigger, at the main runs' scale) and the paper's 2R
    and 2R++. ``best`` is the lowest WAF of any placement run here on that stream and trigger (the oracle's
    or one of ours), ``best_by`` the one that reached it: a witness that the WAF is reachable."""
    rows = []
    for (w, t, sc), d in o.group_by("workload", "trigger", "scale", maintain_order=True):
        waf = dict(zip(d["policy"], d["waf"], strict=True))
        best = min(waf, key=waf.get)
        base = w.split("/")[0]
        row = {"workload": w, "trigger": t, "scale": sc, **{p.split("/")[1]: v for p, v in waf.items()},
               "oracle": waf[best], "oracle_victim": best.split("/")[1]}
        for p in PAPER_POLICIES:
            row[f"ours_{p}"] = _waf(s, w, p, t)
        cand = {f"oracle/{row['oracle_victim']}": row["oracle"],
                **{p: row[f"ours_{p}"] for p in PAPER_POLICIES if row[f"ours_{p}"] == row[f"ours_{p}"]}}
        row["best_by"] = min(cand, key=cand.get)
        row["best"] = cand[row["best_by"]]
        for p in PAPER_POLICIES:
            try:
                row[f"paper_{p}"] = paper_value("waf", base, p)
            except KeyError:
                row[f"paper_{p}"] = None
        rows.append(row)
    return pl.DataFrame(rows).sort("workload", "trigger", "scale")


# --- the open choices, one table ---------------------------------------------------------------------------
HEADLINE = [(f"fio-zipf{t:g}", p) for t in THETAS for p in ("2r", "2r++")] + [
    (w, p) for w in OLTP_WRITES for p in PAPER_POLICIES]  # Tables 3 and 4


OPEN = "open"  # the settled_by of a choice the paper leaves open


def _headline_rows(d: pl.DataFrame, choice: str, setting: str, is_default: bool, scale: str, ref: pl.DataFrame,
                   policies=None, workloads=None, settled_by: str = OPEN, same=None) -> list[dict]:
    """One row per headline WAF in ``d`` against ``ref``. ``same(row of ref) -> note or None``: instead of a
    run, rows whose setting cannot change the run (the note says why) take ``ref``'s WAF; where ``same``
    gives None there is no run and no WAF."""
    rows = []
    for w, p in HEADLINE:
        if (policies and p not in policies) or (workloads and w not in workloads):
            continue
        r = ref.filter(workload=w, policy=p)
        x = d.filter(workload=w, policy=p) if same is None else r
        if not x.height or not r.height:
            continue
        x, r = x.row(0, named=True), r.row(0, named=True)
        note = None
        if same is not None:
            note = same(r)
            if note is None:
                note = "no run: this setting can change this run, and it did not run here"
                x = {**x, "waf": None}
        fb = None if p not in ("2r", "2r++") else (x["fallbacks"] + x["global_fallbacks"]) / x["gc_passes"]
        rows.append({"choice": choice, "setting": setting, "default": is_default, "scale": scale, "workload": w,
                     "policy": p, "waf": x["waf"], "waf_default": r["waf"],
                     "change": None if x["waf"] is None else x["waf"] / r["waf"] - 1,
                     "paper": paper_value("waf", w, p), "fallback_share": fb, "settled_by": settled_by, "note": note})
    return rows


SETTLED = {  # the choices the clean-room review raised: who settles them
    "multi-victim selection": "the text: sections 2.3 and 3.1",
    "2R++'s threshold at equality": "the text: section 3.1",
    "the host's write pointer": "FEMU's code: ssd_advance_write_pointer",
    "greedy's ties": "both allowed: the paper says only 'fewest valid pages'",
    "2R's cursor after the newest line": "both allowed",
}
POINTER_LABELS = {"eager": "the next line taken as soon as one fills (FEMU's write pointer)",
                  "lazy": "the next line taken by the next host write"}


def _settled_rows(g: pl.DataFrame | None, default: Setup, scale: str, grid_scale: str, ref: pl.DataFrame) -> list[dict]:
    """The ambiguity rows of the points the clean-room review raised (:data:`SETTLED`). The selection order,
    the write pointer and greedy's ties ran in the ``settled`` grid (``grid_scale``); 2R++'s threshold at
    equality and the cursor cannot change the main runs (``scale``), and the rows' notes say why."""
    rows = []
    tags = default.tags()
    if g is not None and g.filter(grid="settled").height:
        gref = g.filter(grid="seed", **tags)
        gs = g.filter(grid="settled", **tags)

        def variant(suffix):
            return gs.filter(pl.col("policy").str.ends_with(suffix)).with_columns(
                policy=pl.col("policy").str.split("/").list.first())

        c = "multi-victim selection"
        rows += _headline_rows(gref, c, "every victim chosen, then the copies (default)", True, grid_scale, gref,
                               ("2r", "2r++"), settled_by=SETTLED[c])
        rows += _headline_rows(variant("/interleaved"), c, "each follow-up chosen after the previous victim's copies",
                               False, grid_scale, gref, ("2r", "2r++"), settled_by=SETTLED[c])
        c = "the host's write pointer"
        mine = get_trigger(default.trigger).host_line
        by = SETTLED[c] if default.trigger == "femu" else OPEN
        rows += _headline_rows(gref, c, POINTER_LABELS[mine] + " (default)", True, grid_scale, gref, settled_by=by)
        rows += _headline_rows(variant("/other-pointer"), c, POINTER_LABELS[other_pointer(default.trigger).host_line],
                               False, grid_scale, gref, settled_by=by)
        c = "greedy's ties"
        rows += _headline_rows(gref, c, "to the least recently changed line (default)", True, grid_scale, gref,
                               ("greedy",), settled_by=SETTLED[c])
        rows += _headline_rows(variant("/heap"), c, "as FEMU's victim heap leaves them (FEMU since 2021-10-04)", False,
                               grid_scale, gref, ("greedy",), settled_by=SETTLED[c])
        c = "FEMU's version of greedy"  # open: the paper does not say which FEMU it modified
        rows += _headline_rows(gref, c, "the least valid line (default; FEMU since 2021-10-04)", True, grid_scale,
                               gref, ("greedy",))
        rows += _headline_rows(variant("/heap-stale"), c, "FEMU before 2021-10-04: the root of a victim heap not "
                               "reordered when a line loses a page", False, grid_scale, gref, ("greedy",))
    # no runs: the settings the main runs' own parameters and counters show cannot change them
    geoms = {w: geometry("8GB" if w.startswith("fio") else "10GB", scale, default.spare) for w, _ in HEADLINE}
    strict, loose = (POLICIES["2r++"].with_(threshold=default.threshold, strict_threshold=x) for x in (True, False))

    def same_limit(r):
        P = geoms[r["workload"]].pages_per_line
        a, b = threshold_pages(strict, P), threshold_pages(loose, P)
        return (f"not run: {default.threshold:g} x {P} pages is not whole, so a victim may hold at most {a} valid "
                f"pages either way") if a == b else None

    c = "2R++'s threshold at equality"
    rows += _headline_rows(ref, c, f"strictly under {default.threshold:.0%} (default)", True, scale, ref, ("2r++",),
                           settled_by=SETTLED[c])
    rows += _headline_rows(ref, c, f"at most {default.threshold:.0%}", False, scale, ref, ("2r++",),
                           settled_by=SETTLED[c], same=same_limit)
    recent = POLICIES["2r"].recent_fraction

    def same_cursor(r):
        L = geoms[r["workload"]].n_lines
        if int(recent * L + 1e-9) >= 1 and r["global_fallbacks"] == 0:
            return ("not run: with the newest 20% of the lines protected, only a global fallback can make the "
                    "newest closed line a victim, and this run took none")
        return None

    c = "2R's cursor after the newest line"
    rows += _headline_rows(ref, c, "the scan restarts at the oldest line (default)", True, scale, ref, ("2r", "2r++"),
                           settled_by=SETTLED[c])
    rows += _headline_rows(ref, c, "the scan resumes at the next line to close", False, scale, ref, ("2r", "2r++"),
                           settled_by=SETTLED[c], same=same_cursor)
    return rows


def ambiguity(s: pl.DataFrame, g: pl.DataFrame | None, default: Setup, scale: str, grid_scale: str) -> pl.DataFrame:
    """What each setting the paper leaves open does to the headline WAFs (Tables 3 and 4): one row per choice,
    setting, workload and policy, with the WAF, the default setting's WAF at the same scale, the relative
    change, the paper's value and 2R's / 2R++'s fallback share. The GC trigger, the stop rule and fio's
    generator come from the main runs; the fallback rule, fio's prefill and spare space and greedy's copy
    destination from the grids (``grid_scale``). ``scale_bias``: the default setting's WAF at the row's scale
    against the main runs' (0 for the main runs' rows), so a grid row says how far its scale is from full.
    ``settled_by``: "open" for a choice the paper leaves open, else who settles it (the paper's text, FEMU's
    code, or "both allowed"), for the points the clean-room review raised (:data:`SETTLED`); ``note``: why a
    row has the default's WAF without a run of its own."""
    rows = []
    tags = default.tags()
    main = s.filter(**{k: v for k, v in tags.items() if k != "trigger"})
    ref = main.filter(trigger=default.trigger)
    trig = list(main["trigger"].unique(maintain_order=True))
    for t in trig:
        rows += _headline_rows(main.filter(trigger=t), "GC trigger", f"{t}" + (" (default)" if t == default.trigger
                               else ""), t == default.trigger, scale, ref)
    if "reserve" in trig and "femu" in trig:  # Fig. 7's GET_NEW_BLOCK: 2R++ collects when no block is free
        mixed = pl.concat([main.filter(trigger="femu", policy="greedy"),
                           main.filter(trigger="reserve").filter(pl.col("policy").is_in(["2r", "2r++"]))])
        rows += _headline_rows(mixed, "GC trigger", "Fig. 7: 2R/2R++ at one free line, greedy FEMU's", False, scale,
                               ref)
    for name, label in (("2r/invalid-stop", "2R with 2R++'s stop rule"), ("2r++/valid-stop",
                                                                          "2R++ with 2R's stop rule")):
        d = ref.filter(policy=name).with_columns(policy=pl.lit(name.split("/")[0]))
        rows += _headline_rows(d, "stop rule", label, False, scale, ref)
    d = ref.filter(workload="fio-zipf0.9-true").with_columns(workload=pl.lit("fio-zipf0.9"))
    rows += _headline_rows(d, "fio's generator", "true Zipf ranks", False, scale, ref)
    if g is not None:
        gref = g.filter(grid="seed", **tags)
        rows += _headline_rows(gref, "fallback rule", FALLBACK_LABELS[default.fallback] + " (default)", True,
                               grid_scale, gref, ("2r", "2r++"))
        for f in FALLBACK_RULES:
            if f != default.fallback:
                d = g.filter(grid="fallback", **{**tags, "fallback": f})
                rows += _headline_rows(d, "fallback rule", FALLBACK_LABELS[f], False, grid_scale, gref, ("2r", "2r++"))
        fio = [w for w, _ in HEADLINE if w.startswith("fio")]
        rows += _headline_rows(gref, "fio prefill and spare", "prefilled, Table 1's spare (default)", True,
                               grid_scale, gref, workloads=fio)
        for pre, sp, label in ((False, "table1", "not prefilled"), (True, "0.1", "Table 2's 10% spare"),
                               (False, "0.1", "not prefilled, 10% spare")):
            d = g.filter(grid="prefill_spare", **{**tags, "prefilled": pre, "spare": sp})
            rows += _headline_rows(d, "fio prefill and spare", label, False, grid_scale, gref, workloads=fio)
        rows += _headline_rows(gref, "copy destinations", "greedy's copies on the host's write pointer (default)",
                               True, grid_scale, gref, ("greedy",))
        for v in COPY_VARIANTS:
            d = g.filter(grid="copy", policy=v.name).with_columns(policy=pl.lit("greedy"))
            rows += _headline_rows(d, "copy destinations", "greedy's copies on a write pointer of their own", False,
                                   grid_scale, gref, ("greedy",))
    rows += _settled_rows(g, default, scale, grid_scale, ref)
    out = pl.DataFrame(rows, infer_schema_length=None)
    if not out.height:
        return out
    main_waf = ref.select("workload", "policy", main_waf=pl.col("waf"))
    return (out.join(main_waf, on=["workload", "policy"], how="left", maintain_order="left")
            .with_columns(scale_bias=pl.col("waf_default") / pl.col("main_waf") - 1).drop("main_waf"))


def ambiguity_wide(amb: pl.DataFrame) -> pl.DataFrame:
    """:func:`ambiguity` as one row per choice and setting, a column per headline WAF (``<workload> <policy>``)."""
    d = amb.with_columns(col=pl.col("workload").str.replace("fio-zipf", "zipf") + " " + pl.col("policy"))
    order = [f"{w.replace('fio-zipf', 'zipf')} {p}" for w, p in HEADLINE]
    wide = d.pivot(on="col", index=["choice", "setting", "scale"], values="waf")
    return wide.select("choice", "setting", "scale", *[c for c in order if c in wide.columns])


def fallback_share(s: pl.DataFrame, workload: str, policy: str, trigger: str) -> float | None:
    """The share of a run's GC passes whose first victim a fallback chose (nothing under the threshold)."""
    d = s.filter(workload=workload, policy=policy, trigger=trigger)
    if not d.height or not d["gc_passes"][0]:
        return None
    return float(d.select(_fallback_share())[0, 0])
