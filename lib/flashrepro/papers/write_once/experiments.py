"""Paper 5 experiments: miss ratio over cache sizes (Fig. 5), the cache size for equal miss ratio (Fig. 6),
execution time and energy at a quarter of the cache (Figs. 7-8, Table 1's costs), the history-size and
replay-setting sweeps, the open choices, and the Figs. 3-4 timeline.

Cache sizes are fractions of each workload's footprint (distinct blocks): the paper's axis labels are in
the figure images, which we do not have, so the grid is ours (``FRACTIONS``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ...cache import POLICIES, Simulator, make_params, simulate
from ...cache import contract as C
from ...traces import Op, StreamSpec, Trace
from ...traces.trace import Event, references_pages
from .workloads import characterise

FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)  # cache size / footprint
FINE = tuple(float(x) for x in np.geomspace(0.0025, 0.5, 25))  # for Fig. 6's equal-miss-ratio search
BASELINE, PROPOSED = "lru_flush", "write_once"
GiB = 2**30


@dataclasses.dataclass(frozen=True)
class Costs:
    """Table 1 (per 4 KiB block): DRAM 50 ns and 0.1 nJ/bit per access, refresh 1 W/GB; flash read 284.2 us
    and 9.5 uJ, write 1,833 us and 76.1 uJ. ``gb`` is the bytes of the refresh's GB (2^30: DRAM sizes are
    binary)."""

    dram_access_s: float = 50e-9
    dram_j_per_block: float = 0.1e-9 * 8 * 4096  # 3.28 uJ
    refresh_w_per_gb: float = 1.0
    flash_read_s: float = 284.2e-6
    flash_read_j: float = 9.5e-6
    flash_write_s: float = 1833e-6
    flash_write_j: float = 76.1e-6
    gb: int = GiB


COSTS = Costs()


def time_energy(refs: int, flash_reads: int, flash_writes: int, cache_blocks: int, span_s: float,
                costs: Costs = COSTS) -> dict:
    """Execution time T = refs x 50 ns + flash reads x 284.2 us + flash writes x 1,833 us; energy = DRAM access +
    flash + refresh (1 W/GB x cache size x T). ``energy_span_j`` charges the refresh over the trace's
    wall-clock span instead of T."""
    t = refs * costs.dram_access_s + flash_reads * costs.flash_read_s + flash_writes * costs.flash_write_s
    dynamic = refs * costs.dram_j_per_block + flash_reads * costs.flash_read_j + flash_writes * costs.flash_write_j
    watts = costs.refresh_w_per_gb * cache_blocks * 4096 / costs.gb
    return {"time_s": t, "energy_j": dynamic + watts * t, "energy_span_j": dynamic + watts * span_s,
            "refresh_j": watts * t, "dynamic_j": dynamic}


def run(tr: Trace, policy: str, capacity: int, **params) -> dict:
    """One simulation: miss ratio over all references, flash reads and writes, Table 1's time and energy."""
    res = simulate(tr, policy, capacity, flush_at_end=True, **params)
    return {"workload": tr.name, "policy": policy, "capacity_blocks": capacity, **params, **row_metrics(res, tr)}


def row_metrics(res, tr: Trace) -> dict:
    """The measured columns of :func:`run`'s row (a sweep metric: ``(SimResult, Trace) -> dict``)."""
    c = res.counters
    span = float(tr.time_s.max() - tr.time_s.min())
    row = {"miss_ratio": c["misses"] / c["references"], "flash_read_ratio": c["device_reads"] / c["references"],
           "flash_reads": c["device_reads"], "flash_writes": c["device_writes"], "write_misses": c["write_misses"],
           "flush_evictions": c.get("flush_evictions", 0), "history_hits": c.get("history_hits", 0)}
    row.update(time_energy(c["references"], c["device_reads"], c["device_writes"], res.capacity_pages, span))
    return row


METRIC_COLUMNS = ("miss_ratio", "flash_read_ratio", "flash_reads", "flash_writes", "write_misses", "flush_evictions",
                  "history_hits", "time_s", "energy_j", "energy_span_j", "refresh_j", "dynamic_j")


def runs(cases, executor: str = "local", workers: int | None = None) -> list[dict]:
    """:func:`run` of every case ``(trace, policy, capacity, params)``, through the sweep runner
    (:func:`flashrepro.sweep.run_cases` on ``executor``: "local", "process" or "dask" with ``workers``);
    the rows are exactly :func:`run`'s, in the cases' order."""
    from ... import sweep

    cases = list(cases)
    res = sweep.run_cases([(tr, p, kw, cap) for tr, p, cap, kw in cases], flush_at_end=True, metrics=(row_metrics,),
                          log_io=False, executor=executor, workers=workers)
    if res.failures:
        raise RuntimeError(f"{len(res.failures)} runs failed, first: {res.failures[0]}\n{res.failures[0].traceback}")
    return [{"workload": tr.name, "policy": p, "capacity_blocks": cap, **kw, **m}
            for (tr, p, cap, kw), m in zip(cases, res.table.select(METRIC_COLUMNS).iter_rows(named=True), strict=True)]


def _cap(footprint: int, fraction: float) -> int:
    return max(4, int(round(fraction * footprint)))


SHARED = ("period_s", "sync_scope", "on_delete", "write_miss_read")  # settings of the cache both policies get
OWN = ("history_pages", "history_all_written", "consume_history", "evict_at_sync", "evict_clean_flagged")


def split(params: dict) -> tuple[dict, dict]:
    """The parameters for lru_flush and for write_once: the flush, sync, delete and write-miss settings go to
    both (they describe the cache, not the proposal); the history and eviction settings to write_once only."""
    unknown = set(params) - set(SHARED) - set(OWN)
    if unknown:
        raise TypeError(f"unknown write_once parameters: {sorted(unknown)}")
    return {k: v for k, v in params.items() if k in SHARED}, dict(params)


def partial_write_misses(tr: Trace, policy: str, capacity: int, page_bytes: int = 4096, **params) -> int:
    """The write misses whose write covers only part of its block: the flash reads a page cache adds for a
    read-modify-write when only partial writes read (``write_miss_read=True`` charges every write miss).
    The read does not change the cache's state (the kernel's docstring), so the count is exact."""
    r = simulate(tr, policy, capacity, log_io=True, page_bytes=page_bytes, **{**params, "write_miss_read": False})
    refs = tr.to_pages(page_bytes)
    off, size = tr.offset_bytes[refs.req], tr.size_bytes[refs.req]
    lo = np.maximum(off, refs.page * page_bytes)
    hi = np.minimum(off + size, (refs.page + 1) * page_bytes)
    partial = (hi - lo) < page_bytes
    return int((refs.is_write & ~r.outcome.astype(bool) & partial).sum())


def miss_curves(traces: dict[str, Trace], fractions=FRACTIONS, executor: str = "local", workers: int | None = None,
                **params) -> pl.DataFrame:
    """Fig. 5: both policies over cache sizes (fractions of the footprint) on every workload (``params`` as in
    :func:`split`; the runs go through the sweep runner on ``executor``, see :func:`runs`)."""
    both = split(params)
    cases, labels = [], []
    for tr in traces.values():
        fp = tr.to_pages().n_unique
        for f in fractions:
            for pol, pp in zip((BASELINE, PROPOSED), both, strict=True):
                cases.append((tr, pol, _cap(fp, f), pp))
                labels.append({"fraction": f, "footprint_blocks": fp})
    rows = [{**{k: r[k] for k in r if k not in params}, **lab}
            for r, lab in zip(runs(cases, executor, workers), labels, strict=True)]
    return pl.DataFrame(rows)


def reductions(curves: pl.DataFrame) -> pl.DataFrame:
    """Per workload and size: the relative miss-ratio and flash-read reductions of write_once against lru_flush
    (1 - ours / theirs)."""
    keys = ["workload", "fraction"]
    b = curves.filter(pl.col("policy") == BASELINE).select(*keys, "capacity_blocks", "miss_ratio", "flash_reads")
    p = curves.filter(pl.col("policy") == PROPOSED).select(*keys, pl.col("miss_ratio").alias("miss_ratio_wo"),
                                                           pl.col("flash_reads").alias("flash_reads_wo"))
    return (b.join(p, on=keys, maintain_order="left")
            .with_columns((1 - pl.col("miss_ratio_wo") / pl.col("miss_ratio")).alias("miss_reduction"),
                          (1 - pl.col("flash_reads_wo") / pl.col("flash_reads").clip(1)).alias("flash_read_reduction")))


def equal_size_rows(workload: str, footprint: int, caps: list, base: list, prop: list) -> list[dict]:
    """For each lru_flush size in ``caps`` (miss ratios ``base``), the write_once size whose miss ratio
    (``prop`` on the same sizes) equals it: the first crossing, smallest size first, linear in log size."""
    rows = []
    for c, m in zip(caps, base, strict=True):
        size = None
        for k in range(len(caps) - 1):
            a, b = prop[k], prop[k + 1]
            if (a - m) * (b - m) <= 0 and a != b:
                x0, x1 = np.log(caps[k]), np.log(caps[k + 1])
                size = float(np.exp(x0 + (m - a) / (b - a) * (x1 - x0)))
                break
            if a == m:
                size = float(caps[k])
                break
        rows.append({"workload": workload, "capacity_blocks": c, "fraction": c / footprint, "miss_ratio": m,
                     "write_once_blocks": size, "size_ratio": None if size is None else size / c})
    return rows


def equal_miss_sizes(tr: Trace, fractions=FINE, **params) -> pl.DataFrame:
    """Fig. 6: for each lru_flush size, the write_once size with the same miss ratio (linear in log size
    between the two fine-grid points around it); ``size_ratio`` = that size / lru_flush's."""
    fp = tr.to_pages().n_unique
    caps = sorted({_cap(fp, f) for f in fractions})
    pb, pp = split(params)
    base = [run(tr, BASELINE, c, **pb)["miss_ratio"] for c in caps]
    prop = [run(tr, PROPOSED, c, **pp)["miss_ratio"] for c in caps]
    rows = equal_size_rows(tr.name, fp, caps, base, prop)
    curve = pl.DataFrame({"capacity_blocks": caps, "lru_flush": base, "write_once": prop})
    return pl.DataFrame(rows).join(curve.select("capacity_blocks", pl.col("write_once").alias("write_once_same_size")),
                                   on="capacity_blocks")


def quarter_cache(traces: dict[str, Trace], fractions=FRACTIONS, shrink: int = 4, executor: str = "local",
                  workers: int | None = None, **params) -> pl.DataFrame:
    """Figs. 7-8: lru_flush at C against write_once at C / ``shrink``: time and energy (Table 1).

    The control: lru_flush itself at C / ``shrink`` (columns ``*_lru_q``). Under Table 1's costs T is
    mostly flash writes, which both policies issue alike (one per dirtying), and the refresh energy is
    proportional to the cache, so a claim the control meets as well does not test write_once's eviction.
    ``energy_reduction_gb1e9`` takes the refresh's GB as 10^9 bytes instead of 2^30 (the runs go through the
    sweep runner on ``executor``, see :func:`runs`)."""
    pb, pp = split(params)
    dec = dataclasses.replace(COSTS, gb=10**9)
    points, cases = [], []
    for tr in traces.values():
        fp = tr.to_pages().n_unique
        for f in fractions:
            c = _cap(fp, f)
            q = max(1, c // shrink)
            points.append((tr, f, c, q))
            cases += [(tr, BASELINE, c, pb), (tr, PROPOSED, q, pp), (tr, BASELINE, q, pb)]
    out = runs(cases, executor, workers)
    rows = []
    for i, (tr, f, c, q) in enumerate(points):
        n = len(tr.to_pages())
        span = float(tr.time_s.max() - tr.time_s.min())
        b, p, k = out[3 * i:3 * i + 3]
        b9, p9 = (time_energy(n, r["flash_reads"], r["flash_writes"], size, span, dec)
                  for r, size in ((b, c), (p, q)))
        rows.append({"workload": tr.name, "fraction": f, "capacity_blocks": c, "write_once_blocks": q,
                     "miss_ratio": b["miss_ratio"], "miss_ratio_wo": p["miss_ratio"],
                     "miss_ratio_lru_q": k["miss_ratio"],
                     "time_s": b["time_s"], "time_wo_s": p["time_s"], "time_ratio": p["time_s"] / b["time_s"],
                     "time_ratio_lru_q": k["time_s"] / b["time_s"],
                     "energy_j": b["energy_j"], "energy_wo_j": p["energy_j"],
                     "energy_reduction": 1 - p["energy_j"] / b["energy_j"],
                     "energy_reduction_lru_q": 1 - k["energy_j"] / b["energy_j"],
                     "energy_reduction_span": 1 - p["energy_span_j"] / b["energy_span_j"],
                     "energy_reduction_span_lru_q": 1 - k["energy_span_j"] / b["energy_span_j"],
                     "energy_reduction_gb1e9": 1 - p9["energy_j"] / b9["energy_j"],
                     "refresh_share": b["refresh_j"] / b["energy_j"],
                     "flash_reads": b["flash_reads"], "flash_reads_wo": p["flash_reads"],
                     "flash_reads_lru_q": k["flash_reads"], "flash_writes": b["flash_writes"],
                     "flash_writes_wo": p["flash_writes"], "flash_writes_lru_q": k["flash_writes"]})
    return pl.DataFrame(rows)



def history_sweep(traces: dict[str, Trace], fraction: float = 0.05, multiples=(0, 0.25, 1, 4, 16),
                  executor: str = "local", workers: int | None = None, **params) -> pl.DataFrame:
    """write_once's miss ratio as the history grows from none to 16x the cache (H is not given by the paper;
    the runs go through the sweep runner on ``executor``, see :func:`runs`)."""
    pb, pp = split({k: v for k, v in params.items() if k != "history_pages"})
    cases = []
    for tr in traces.values():
        c = _cap(tr.to_pages().n_unique, fraction)
        cases.append((tr, BASELINE, c, pb))
        cases += [(tr, PROPOSED, c, {**pp, "history_pages": int(round(k * c))}) for k in multiples]
    out = iter(runs(cases, executor, workers))
    rows = []
    for tr in traces.values():
        c = _cap(tr.to_pages().n_unique, fraction)
        base = next(out)
        for k in multiples:
            r = next(out)
            rows.append({"workload": tr.name, "capacity_blocks": c, "history_multiple": k,
                         "history_pages": int(round(k * c)), "miss_ratio": r["miss_ratio"],
                         "miss_ratio_lru_flush": base["miss_ratio"], "flash_reads": r["flash_reads"],
                         "history_hits": r["history_hits"], "flush_evictions": r["flush_evictions"],
                         "miss_reduction": 1 - r["miss_ratio"] / base["miss_ratio"]})
    return pl.DataFrame(rows)


REPLAY_VARIANTS = {  # the replay settings the issue names, each against the notebook's settings
    "default (FULL, cache 500, merged, journal per generation)": {},
    "synchronous NORMAL": {"synchronous": "normal"},
    "SQLite cache 100 pages": {"cache_pages": 100},
    "SQLite cache 2000 pages": {"cache_pages": 2000},
    "writes not merged (per syscall)": {"merge_writes": False},
    "journal by path": {"journal_identity": "path"},
    "journal_mode TRUNCATE": {"journal_mode": "truncate"},
    "journal_mode PERSIST": {"journal_mode": "persist"},
    "benchset streams": {"source": "benchset"},
    "span 15 min": {"span_s": 900.0},
    "span 20 min": {"span_s": 1200.0},
}


def base_label(replay: dict | None = None) -> str:
    """The label of the sweep's first row: the notebook's replay settings (the defaults' label unchanged)."""
    from ...traces.android_sql import ReplaySettings

    s = dataclasses.replace(ReplaySettings(), **(replay or {}))
    label = f"default ({s.synchronous.upper()}, cache {s.cache_pages}, merged, journal per generation)"
    extra = [f"{k} {getattr(s, k)}" for k in ("journal_mode", "page_size", "span_s", "source", "merge_writes",
                                               "journal_identity") if getattr(s, k) != getattr(ReplaySettings(), k)]
    return label if not extra else f"the notebook's settings ({s.synchronous.upper()}, cache {s.cache_pages}, " \
        + ", ".join(extra) + ")"


def pragma_sweep(folders: dict, fraction: float = 0.05, variants=REPLAY_VARIANTS, replay: dict | None = None,
                 **params) -> pl.DataFrame:
    """The replay settings (PRAGMAs, write merging, journal identity, statement source, span): the trace's
    statistics and write_once against lru_flush at one cache size. ``replay``: the notebook's replay settings
    (:class:`~flashrepro.traces.android_sql.ReplaySettings` fields), which every variant changes one thing of."""
    from ...traces.android_sql import replay as replay_folder

    pb, pp = split(params)
    base = dict(replay or {})
    rows = []
    for app, folder in tqdm(folders.items(), desc="replay settings", leave=False):
        for label, over in variants.items():
            if not over:
                label = base_label(base)
            tr = replay_folder(folder, name=f"real/android_sql/{app}", **{**base, **over})
            st = characterise(tr)
            c = _cap(st["footprint_blocks"], fraction)
            b, p = run(tr, BASELINE, c, **pb), run(tr, PROPOSED, c, **pp)
            rows.append({"app": app, "setting": label, "statements": tr.meta["statements"],
                         "failed": tr.meta["failed"], "references": st["references"],
                         "write_share": st["write_share"], "written_once_share": st["written_once_share"],
                         "syncs": st["syncs"], "capacity_blocks": c, "miss_ratio": b["miss_ratio"],
                         "miss_ratio_wo": p["miss_ratio"], "miss_reduction": 1 - p["miss_ratio"] / b["miss_ratio"],
                         "flash_reads": b["flash_reads"], "flash_reads_wo": p["flash_reads"]})
    return pl.DataFrame(rows)


MOBIBENCH_VARIANTS = {  # the Mobibench reader's settings (flashrepro.traces.readers._mobibench)
    "default (each open a new file, unopened fds skipped, merged)": {},
    "one file per path": {"file_identity": "path"},
    "writes not merged (per syscall)": {"merge_writes": False},
    "unopened fds kept as files": {"unopened": "keep"},
}


def mobibench_sweep(path, fraction: float = 0.05, variants=MOBIBENCH_VARIANTS, **params) -> pl.DataFrame:
    """The Mobibench log under each reader setting: its statistics (Figs. 1-2), its deletes (unlinks that
    match an open file) and write_once against lru_flush at one cache size."""
    from ...traces import load_trace

    pb, pp = split(params)
    rows = []
    for label, over in variants.items():
        tr = load_trace(path, format="mobibench", name="real/android/mobigen-facebook", **over)
        st = characterise(tr)
        c = _cap(st["footprint_blocks"], fraction)
        b, p = run(tr, BASELINE, c, **pb), run(tr, PROPOSED, c, **pp)
        rows.append({"setting": label, "references": st["references"], "write_share": st["write_share"],
                     "written_once_share": st["written_once_share"], "footprint_blocks": st["footprint_blocks"],
                     "syncs": st["syncs"], "deletes": st["deletes"],
                     "unlinks_matched": tr.meta.get("unlinks_matched"),
                     "unlinks_unmatched": tr.meta.get("unlinks_unmatched"),
                     "capacity_blocks": c, "miss_ratio": b["miss_ratio"], "miss_ratio_wo": p["miss_ratio"],
                     "miss_reduction": 1 - p["miss_ratio"] / b["miss_ratio"],
                     "flash_reads": b["flash_reads"], "flash_reads_wo": p["flash_reads"]})
    return pl.DataFrame(rows)


def write_miss_reads(traces: dict[str, Trace], fraction: float = 0.05, **params) -> pl.DataFrame:
    """Flash reads of both policies when a write miss reads nothing (the default), when only a write that
    covers part of its block reads it first (:func:`partial_write_misses`), and when every write miss does
    (``write_miss_read=True``)."""
    pb, pp = split({k: v for k, v in params.items() if k != "write_miss_read"})
    rows = []
    for tr in traces.values():
        c = _cap(tr.to_pages().n_unique, fraction)
        for pol, pr in ((BASELINE, pb), (PROPOSED, pp)):
            r = run(tr, pol, c, **pr)
            part = partial_write_misses(tr, pol, c, **pr)
            a = run(tr, pol, c, **{**pr, "write_miss_read": True})
            rows.append({"workload": tr.name, "policy": pol, "capacity_blocks": c, "miss_ratio": r["miss_ratio"],
                         "write_misses": r["write_misses"], "partial_write_misses": part,
                         "flash_reads": r["flash_reads"], "flash_reads_partial_rmw": r["flash_reads"] + part,
                         "flash_reads_every_write_miss": a["flash_reads"]})
    df = pl.DataFrame(rows)
    cols = {"flash_reads": "no_rmw", "flash_reads_partial_rmw": "partial_rmw",
            "flash_reads_every_write_miss": "every_write_miss"}
    b = df.filter(pl.col("policy") == BASELINE).select("workload", *cols)
    p = df.filter(pl.col("policy") == PROPOSED).select("workload", *cols)
    red = b.join(p, on="workload", suffix="_wo").select(
        "workload", *[(1 - pl.col(f"{c}_wo") / pl.col(c).clip(1)).alias(f"flash_read_reduction_{k}")
                      for c, k in cols.items()])
    return df.join(red, on="workload", maintain_order="left")


AMBIGUITIES = {  # label -> (parameters of write_once, note)
    "default: sync one file, deletes keep, H = cache, entries kept": ({}, ""),
    "a sync flushes everything": ({"sync_scope": "all"}, ""),
    "syncs ignored (5 s flushes only)": ({"sync_scope": "none"},
                                         "moves two things at once: no write-back and no eviction at a sync"),
    "a sync writes back but does not evict (flagged blocks leave at the next 5 s flush)":
        ({"evict_at_sync": False}, "the eviction at a sync alone: the write-back at a sync stays"),
    "a sync writes back but does not evict; clean flagged blocks stay":
        ({"evict_at_sync": False, "evict_clean_flagged": False},
         "flagged blocks a sync wrote back are never evicted early"),
    "clean flagged blocks stay (syncs evict: none is ever clean)": ({"evict_clean_flagged": False},
                                                                    "no effect possible: a check"),
    "deletes drop the file's blocks": ({"on_delete": "drop"}, "applies to lru_flush too"),
    "history also records written blocks LRU evicts": ({"history_all_written": True}, ""),
    "history entry consumed on re-entry": ({"consume_history": True}, ""),
    "no history (H = 0)": ({"history_pages": 0}, ""),
    "every write miss reads its block": ({"write_miss_read": True}, "applies to lru_flush too"),
}


def ambiguities(traces: dict[str, Trace], fraction: float = 0.05, **params) -> pl.DataFrame:
    """How much each open choice of the policy changes write_once against lru_flush (the baseline gets the same
    sync and delete settings)."""
    rows = []
    for tr in traces.values():
        c = _cap(tr.to_pages().n_unique, fraction)
        for label, (over, note) in AMBIGUITIES.items():
            pb, pp = split({**params, **over})
            b, p = run(tr, BASELINE, c, **pb), run(tr, PROPOSED, c, **pp)
            rows.append({"workload": tr.name, "choice": label, "capacity_blocks": c, "miss_ratio": b["miss_ratio"],
                         "miss_ratio_wo": p["miss_ratio"], "miss_reduction": 1 - p["miss_ratio"] / b["miss_ratio"],
                         "flash_read_reduction": 1 - p["flash_reads"] / max(b["flash_reads"], 1),
                         "flush_evictions": p["flush_evictions"], "note": note})
    return pl.DataFrame(rows)


MODEL_VARIANTS = {"default (the notebook's model settings)": {}, "50% written once": {"once_share": 0.5},
                  "80% written once": {"once_share": 0.8}, "hot set 2% of refs": {"hot_per_ref": 0.02},
                  "hot set 20% of refs": {"hot_per_ref": 0.2}, "Zipf 0.6": {"alpha": 0.6}, "Zipf 1.2": {"alpha": 1.2},
                  "span 15 min": {"span_s": 900.0}, "span 20 min": {"span_s": 1200.0}}


def trace_variants(stats: pl.DataFrame) -> dict[str, dict]:
    """Model variants at the public traces' values (:func:`~.workloads.public_trace_stats`): each trace's
    written-once share and syncs per write together, then the lowest share alone and the median sync rate
    alone (the two causes apart; :func:`why_loss` runs the same two at the largest cache)."""
    out = {}
    for r in stats.iter_rows(named=True):
        share, rate = float(r["written_once_share"]), float(r["syncs_per_write"])
        out[f"as {r['workload'].removeprefix('real/')} ({share:.1%} written once, {rate:.3f} syncs per write)"] = \
            {"once_share": share, "syncs_per_write": rate}
    share, rate, lowest = _trace_values(stats)
    out[f"written once {share:.1%} (the traces' lowest: {lowest}), no syncs"] = {"once_share": share}
    out[f"{rate:.3f} syncs per write (the traces' median), 95% written once"] = {"syncs_per_write": rate}
    return out


def shared_variants(stats: pl.DataFrame) -> list[dict]:
    """The model overrides both :func:`trace_variants` and :func:`why_loss` run (worth keeping the traces of:
    :func:`~.workloads.maker`'s ``keep``)."""
    share, rate, _ = _trace_values(stats)
    return [{"once_share": share}, {"syncs_per_write": rate}]


def _trace_values(stats: pl.DataFrame) -> tuple[float, float, str]:
    """The lowest written-once share of the public traces, their median syncs per write, and the trace with
    that share."""
    low = stats.sort("written_once_share").row(0, named=True)
    return float(low["written_once_share"]), float(stats["syncs_per_write"].median()), \
        low["workload"].removeprefix("real/")


def model_ambiguities(make, names, fraction: float = 0.05, extra: dict | None = None, **params) -> pl.DataFrame:
    """The model's own open inputs: the written-once share (Fig. 2 gives only its maximum), the locality
    (not stated), the span (15 or 20 min), and ``extra`` variants (label -> overrides: the public traces'
    written-once shares and sync rates, :func:`trace_variants`). ``make(name, **overrides) -> Trace``; the
    default row is ``make(name)`` (the notebook's model settings). ``syncs`` counts the model's fsyncs."""
    pb, pp = split(params)
    variants = {**MODEL_VARIANTS, **(extra or {})}
    rows = []
    for name in names:
        for label, over in variants.items():
            tr = make(name, **over)
            c = _cap(tr.to_pages().n_unique, fraction)
            b, p = run(tr, BASELINE, c, **pb), run(tr, PROPOSED, c, **pp)
            rows.append({"workload": tr.name, "model input": label, "capacity_blocks": c,
                         "once_share": tr.meta["model"]["once_share"],
                         "syncs_per_write": tr.meta["model"]["syncs_per_write"],
                         "syncs": int((tr.op == Op.SYNC).sum()),
                         "miss_ratio": b["miss_ratio"], "miss_ratio_wo": p["miss_ratio"],
                         "miss_reduction": 1 - p["miss_ratio"] / b["miss_ratio"],
                         "flash_read_reduction": 1 - p["flash_reads"] / max(b["flash_reads"], 1)})
    return pl.DataFrame(rows)


def _file_kinds(tr: Trace) -> np.ndarray:
    """Per page reference: "data" or "log" (the models' two files), "db" or "journal" (the SQLite replays),
    "file" otherwise."""
    refs = tr.to_pages()
    if tr.name.startswith("writeonce/") and tr.file is not None:
        return np.where(tr.file[refs.req] == 1, "log", "data")
    if tr.meta.get("format") == "android-sql":
        from ...traces.android_sql import file_kinds

        return np.where(file_kinds(tr)[refs.req] == "journal", "journal", "db")
    return np.full(len(refs), "file")


def extra_misses(tr: Trace, capacity: int, **params) -> tuple[dict, dict, dict]:
    """lru_flush's and write_once's :func:`run` metrics, and the references write_once misses and lru_flush
    hits, less the reverse, by the kind of file they touch (:func:`_file_kinds`): where write_once's extra
    misses land."""
    pb, pp = split(params)
    rb = simulate(tr, BASELINE, capacity, log_io=True, flush_at_end=True, **pb)
    rp = simulate(tr, PROPOSED, capacity, log_io=True, flush_at_end=True, **pp)
    b, p = rb.outcome.astype(bool), rp.outcome.astype(bool)
    kinds = _file_kinds(tr)
    net = (b & ~p).astype(np.int64) - (p & ~b)
    out = {"net_extra_misses": int(net.sum()), "extra_misses_data_or_db": 0, "extra_misses_log_or_journal": 0}
    for k, label in (("data", "data_or_db"), ("db", "data_or_db"), ("file", "data_or_db"), ("log", "log_or_journal"),
                     ("journal", "log_or_journal")):
        out[f"extra_misses_{label}"] += int(net[kinds == k].sum())
    first = (tr.to_pages().page & ((1 << 32) - 1)) == 0  # a file's first block (a journal's header)
    out["extra_misses_journal_first_block"] = int(net[(kinds == "journal") & first].sum())
    return row_metrics(rb, tr), row_metrics(rp, tr), out


WHY = (  # (cause, kind, what the run changes) of the "why it does not reproduce" table
    ("the mechanism: a data block written once and not read is evicted at a flush; when it returns it "
     "misses where LRU, with room to spare, still holds it", "mechanism"),
    ("the models' written-once share (95%, Fig. 2's maximum) against the public traces' lowest", "workload model"),
    ("the models' syncs (none) against the public traces' rate", "workload model"),
    ("eviction at a sync (a choice; the text's reading)", "choice"),
    ("clean flagged blocks left after a sync that did not evict (a choice)", "choice"),
)


def why_loss(models: dict[str, Trace], reals: dict[str, Trace], make, names, stats: pl.DataFrame,
             fraction: float = 0.5, **params) -> pl.DataFrame:
    """The large-cache loss, cause by cause: one run per cause at ``fraction`` of the footprint (the largest
    cache of Fig. 5's grid), on the models (``make(name, **overrides)`` for ``names``) and the real traces:

    * the mechanism: the default runs, with write_once's net extra misses split by the kind of file, and
      those on a journal's first block (its header) apart (:func:`extra_misses`);
    * the written-once share: the models at the lowest share of the public traces (``stats``,
      :func:`~.workloads.public_trace_stats`);
    * syncs: the models with the public traces' median syncs per write;
    * eviction at a sync: the models with those syncs and the real traces, ``evict_at_sync=False``;
    * clean flagged blocks: the same with ``evict_clean_flagged=False`` as well.

    Every row gives lru_flush's and write_once's miss ratios under the run's settings (the baseline gets
    the same syncs and shared settings) and ``compared_with``, the run that differs from it in the cause
    alone (same traces): the default, or for the choices the run before them."""
    share, rate, lowest = _trace_values(stats)
    synced = {f"writeonce/{n}": make(n, syncs_per_write=rate) for n in names}  # one trace for three runs
    synced_label = f"{rate:.3f} syncs per write (the traces' median)"
    noevict_label = f"{rate:.3f} syncs per write; a sync does not evict"
    runs_ = [  # (cause index, run label, traces, parameters, the run it is compared with)
        (0, "default", {**models, **reals}, {}, ""),
        (1, f"written once {share:.1%} (as {lowest})", {f"writeonce/{n}": make(n, once_share=share) for n in names},
         {}, "default"),
        (2, synced_label, synced, {}, "default"),
        (3, noevict_label, synced, {"evict_at_sync": False}, synced_label),
        (3, "a sync does not evict", reals, {"evict_at_sync": False}, "default"),
        (4, f"{rate:.3f} syncs per write; a sync does not evict; clean flagged blocks stay", synced,
         {"evict_at_sync": False, "evict_clean_flagged": False}, noevict_label),
        (4, "a sync does not evict; clean flagged blocks stay", reals,
         {"evict_at_sync": False, "evict_clean_flagged": False}, "a sync does not evict"),
    ]
    rows = []
    for k, label, traces, extra, ref in runs_:
        for tr in traces.values():
            c = _cap(tr.to_pages().n_unique, fraction)
            pr = {**params, **extra}
            pb, pp = split(pr)
            if k == 0:  # the per-reference outcomes give the metrics too
                b, p, more = extra_misses(tr, c, **pr)
            else:
                b, p, more = run(tr, BASELINE, c, **pb), run(tr, PROPOSED, c, **pp), {}
            cause, kind = WHY[k]
            rows.append({"cause": cause, "kind": kind, "run": label, "compared_with": ref, "workload": tr.name,
                         "fraction": fraction,
                         "capacity_blocks": c, "miss_ratio": b["miss_ratio"], "miss_ratio_wo": p["miss_ratio"],
                         "miss_reduction": 1 - p["miss_ratio"] / b["miss_ratio"],
                         "flash_read_reduction": 1 - p["flash_reads"] / max(b["flash_reads"], 1),
                         "flush_evictions": p["flush_evictions"], "history_hits": p["history_hits"], **more})
    return pl.DataFrame(rows, infer_schema_length=None)


OPS = {Event.READ: "read", Event.WRITE: "write", Event.SYNC_FILE: "sync", Event.SYNC_ALL: "flush",
       Event.DELETE: "delete"}  # a stream entry's label in the timeline


def timeline(tr: Trace, policy: str, capacity: int, **params) -> pl.DataFrame:
    """Figs. 3-4: the state of every block after each entry of the stream (resident, dirty, flagged, in the
    history), fed one entry at a time through the kernel contract. An entry is a page reference (``ref`` its
    index, ``ref_block`` its block) or an event: a sync or flush (``ref_block`` -1) or a delete
    (``ref_block`` the first block of its range); ``ref`` is -1 for events."""
    stream = tr.reference_stream(StreamSpec(events=True, chunk=1))
    units = stream.units
    sim = Simulator(policy, units, {"capacity_pages": capacity}, make_params(policy, **params))
    describe = POLICIES[policy].kernel.describe
    rows = []
    for part, idx in stream:
        for j in range(len(part.unit)):  # a chunk is one reference and the events before it
            sim.feed(type(part)(*(a[j:j + 1] for a in part)))
            e, u = Event(int(part.event[j])), int(part.unit[j])
            ref = int(idx[j]) if idx is not None else -1
            block = int(units.pages(np.array([u]))[0]) if u >= 0 and e not in (Event.SYNC_FILE, Event.SYNC_ALL) else -1
            for b, s in describe(sim.state, units).items():
                rows.append({"policy": policy, "time_s": float(part.time_s[j]), "op": OPS[e], "ref_block": block,
                             "ref": ref, "block": b, **s})
    return pl.DataFrame(rows)


def timeline_io(tr: Trace, policy: str, capacity: int, period_s: float = 5.0, **params) -> pl.DataFrame:
    """Figs. 3-4: the device writes of the timeline, a periodic one at the grid point that caused it.

    A grid point is noticed at the first stream entry whose time reaches it; the flush there writes every
    dirty block, so the periodic writes noticed at an entry all belong to the first grid point after the
    previous entry's time (later points passed at the same entry find nothing dirty)."""
    r = simulate(tr, policy, capacity, log_io=True, period_s=period_s, **params)
    req = r.io_log.req
    t = tr.time_s[req]
    data = references_pages(tr.op) & (tr.size_bytes > 0)
    entries = np.flatnonzero(data | (tr.op >= Op.FLUSH))  # the requests that are stream entries, in order
    before = np.searchsorted(entries, req, side="left") - 1  # the entry before the one that noticed it
    prev = np.where(before >= 0, tr.time_s[entries[np.maximum(before, 0)]], -np.inf)
    grid = np.where(before >= 0, (np.floor(prev / period_s) + 1) * period_s, period_s) if period_s > 0 else t
    return pl.DataFrame({"policy": policy, "time_s": np.where(r.io_log.cause == C.PERIODIC_FLUSH, grid, t),
                         "block": r.io_log.first_page, "op": r.io_log.op, "cause": r.io_log.cause})
