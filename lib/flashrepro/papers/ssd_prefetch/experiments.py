"""Paper 2 experiments: bandwidth of every workload through the segment policies, timed on the read-time
curves of Fig. 4 (Figs. 4, 6, 7, 8), the adaptive target over time, the S sweep and the open choices.

Bandwidth is Sec. 5's measure: bytes the trace requested over the modelled device time, one request at a
time, hits free (``devices.bandwidth``), with dirty blocks flushed at the end so every write is paid for.
Improvement = BW(proposed) / BW(existing) - 1 at the same segment size.

The schemes are Sec. 5's: "proposed" runs "through the Linux kernel" over the RAID driver with segment
prefetch and adaptive culling; "existing" is the same with the technique removed from the driver (the
segment LRU: memory unit and largest I/O the segment, no prefetch). Both sit behind the host's read-ahead
("Linux default settings"), the ``front``: :func:`flashrepro.traces.readahead.readahead_front`, Linux's
16 -> 128 KiB sequential read-ahead as Sec. 2.2 describes it. ``front="none"`` is the bare driver (the
schemes without the host's read-ahead), and ``linux_readahead`` (a page LRU with the read-ahead, no
segment unit) is a third baseline. The primary measure is the bandwidth of all requests on Fig. 4's model 1
with the ``sqrt`` shape; the tables carry every curve and the read-only bandwidth too.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numba import njit
from tqdm.auto import tqdm

from ...cache import simulate
from ...devices import CURVES, DEFAULT_CURVE, bandwidth
from ...traces import Trace
from ...traces.readahead import readahead_front, readahead_mask, requested

CACHE_PAGES = 512 * 256  # 512 MiB of 4 KiB blocks (Sec. 5)
FIG6_SEGMENTS_KIB = [8, 16, 32, 64]
FIG7_CACHES_MIB = [32, 64, 128, 256, 512]
FIG8_SEGMENTS_KIB = [4, 8, 16, 32, 64, 128]
FIG8_CACHE_PAGES = 32  # 128 KiB, as printed
FIG8_SENSITIVITY_PAGES = 128 * 256  # 128 MiB: 128 KiB holds a single 128 KiB segment
FRONTS = ("read-ahead", "none")  # what sits above the driver's cache: Linux's read-ahead (Sec. 5), or nothing
FRONT = "read-ahead"  # the paper's: both schemes run "through the Linux kernel" with its default settings
PROPOSED, EXISTING = "seg_cull_adaptive", "seg_lru"
FIG8_POLICIES = ["seg_cull_adaptive", "seg_cull_fixed", "seg_prefetch"]
ALL_POLICIES = [EXISTING, *FIG8_POLICIES[::-1]]  # existing, prefetch only, fixed culling, adaptive culling
PAGE_LRU_RA = "linux_readahead"  # the page-unit baseline with the same read-ahead (no segment unit)
S0 = {"step": 0.0}  # adaptive culling with its feedback off (N1 stays at M/2k): the control of adaptation
AMBIGUITY_CACHES_MIB = [512, 32]  # the main cache, and one where T1's memory is short
S_SWEEP = [0.0, 0.25, 1.0, 4.0, 16.0]
READ_SIZE_BUCKETS_KIB = [4, 8, 16, 32, 64, 128, 256]


def fronted(trace: Trace, front: str) -> Trace:
    """``trace`` as the driver's cache sees it behind ``front`` (built once per trace and kept on it)."""
    if front == "none":
        return trace
    if front != "read-ahead":
        raise ValueError(f"front must be one of {FRONTS}, got {front!r}")
    cache = trace.__dict__.setdefault("_fronts", {})
    if front not in cache:
        cache[front] = readahead_front(trace)
    return cache[front]


COUNTER_COLUMNS = ("hits", "prefetch_hits", "prefetched_pages", "culled_pages", "prefetch_evicted", "evictions",
                   "device_reads", "device_read_requests", "device_writes", "device_write_requests",
                   "list_operations", "n1_updates", "n1_skipped", "references")


def run(trace: Trace, policy: str, capacity_pages: int, segment_kib: int | None = None, front: str = "none",
        **params) -> dict:
    """One simulation behind ``front``: counters, and device time and bandwidth on every Fig. 4 curve (a flat
    row)."""
    kw = dict(params)
    if segment_kib is not None:
        kw["segment_kib"] = segment_kib
    below = fronted(trace, front)
    res = simulate(below, policy, capacity_pages, log_io=True, flush_at_end=True, **kw)
    return _row(trace, policy, capacity_pages, segment_kib, front, params, row_metrics(res, below))


def _row(trace: Trace, policy: str, capacity_pages: int, segment_kib, front: str, params: dict, m: dict) -> dict:
    return {"workload": trace.name, "policy": policy, "front": front, "capacity_pages": capacity_pages,
            "segment_kib": segment_kib, **{k: v for k, v in params.items()}, **m}


def row_metrics(res, trace: Trace) -> dict:
    """The measured columns of a row (a sweep metric: ``(SimResult, Trace) -> dict``): the counters above,
    device time and bandwidth on every Fig. 4 curve, and device reads by size. Bandwidth and the hit ratios
    are over the trace's own requests: a read-ahead front's requests (``traces.readahead``) cost device time
    but are not requested bytes or references."""
    c = res.to_dict()
    row = {k: c.get(k, 0) for k in COUNTER_COLUMNS}
    own, kind = _own_references(trace, res.io_log.page_bytes)
    n_mine, n_reads = int(np.count_nonzero(kind > 0)), int(np.count_nonzero(kind == 2))
    hits, read_hits, prefetch_hits = _own_hits(kind, res.outcome)
    row["own_references"] = n_mine
    row["hit_ratio"] = float(hits / max(n_mine, 1))
    row["read_hit_ratio"] = float(read_hits / max(n_reads, 1))
    row["prefetch_hit_ratio"] = float(prefetch_hits / max(n_reads, 1))
    row["readahead_pages"] = len(kind) - n_mine
    for name, curve in CURVES.items():
        bw = bandwidth(res.io_log, own, curve)
        row[f"read_s_{name}"] = bw["read_s"]
        row[f"write_s_{name}"] = bw["write_s"]
        row[f"mb_s_{name}"] = bw["all_mb_s"]
        row[f"read_mb_s_{name}"] = bw["read_mb_s"]
    # device reads by size (requests of 4, 8, ..., 256 KiB; larger ones in the last column)
    log = res.io_log
    kib = log.device_pages(0) * log.page_bytes // 1024
    for b in READ_SIZE_BUCKETS_KIB:
        row[f"reads_{b}kib"] = int(np.count_nonzero((kib <= b) & (kib > b // 2))) if b > 4 else int(
            np.count_nonzero(kib <= 4))
    row["reads_larger"] = int(np.count_nonzero(kib > READ_SIZE_BUCKETS_KIB[-1]))
    row["largest_read_kib"] = int(kib.max()) if len(kib) else 0
    row["mb_s"] = row[f"mb_s_{DEFAULT_CURVE}"]
    row["read_mb_s"] = row[f"read_mb_s_{DEFAULT_CURVE}"]
    return row


def _own_references(trace: Trace, page_bytes: int) -> tuple[Trace, np.ndarray]:
    """The trace's own requests (:func:`requested`) and, per page reference of ``trace``, 0 for a read-ahead
    front's, 1 for its own write, 2 for its own read: the same for every run on the trace, so kept on it
    (rebuilt for each of notebook 02's runs, they cost a fifth of its non-kernel time)."""
    cache = trace.__dict__.setdefault("_own_references", {})
    if page_bytes not in cache:
        ahead = readahead_mask(trace)
        refs = trace.to_pages(page_bytes)
        mine = np.ones(len(refs), bool) if ahead is None else ~ahead[refs.req]
        kind = np.where(mine, np.where(refs.is_write, 1, 2), 0).astype(np.int8)
        kind.flags.writeable = False
        cache[page_bytes] = (requested(trace), kind)
    return cache[page_bytes]


@njit(cache=True)
def _own_hits(kind, outcome):
    """Hits among the own references, hits among the own reads, prefetch hits among the own reads
    (``count_nonzero(outcome[mine] > 0)``, ``... outcome[reads] > 0``, ``... outcome[reads] == 2``)."""
    hits = read_hits = prefetch_hits = 0
    for i in range(kind.shape[0]):
        if kind[i] > 0 and outcome[i] > 0:
            hits += 1
            if kind[i] == 2:
                read_hits += 1
                if outcome[i] == 2:
                    prefetch_hits += 1
    return hits, read_hits, prefetch_hits


def _metric_names() -> list[str]:
    names = list(COUNTER_COLUMNS) + ["own_references", "hit_ratio", "read_hit_ratio", "prefetch_hit_ratio",
                                     "readahead_pages"]
    for name in CURVES:
        names += [f"read_s_{name}", f"write_s_{name}", f"mb_s_{name}", f"read_mb_s_{name}"]
    return names + [f"reads_{b}kib" for b in READ_SIZE_BUCKETS_KIB] + ["reads_larger", "largest_read_kib", "mb_s",
                                                                      "read_mb_s"]


def _grid(cases, desc: str, executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """Every case ``(trace, policy, capacity_pages, {"segment_kib": ..., "front": ..., other params})``
    through the sweep runner (:func:`flashrepro.sweep.run_cases` on ``executor``: "local", "process" or
    "dask" with ``workers``), one row per case in the cases' order, exactly as :func:`run` gives it."""
    from ... import sweep

    cases = list(cases)
    sims = []
    for tr, p, cap, kw in cases:
        kw = dict(kw)
        front = kw.pop("front", "none")
        sims.append((fronted(tr, front), p, kw, cap))
    res = sweep.run_cases(sims, flush_at_end=True, metrics=(row_metrics,), executor=executor, workers=workers)
    if res.failures:
        raise RuntimeError(f"{desc}: {len(res.failures)} runs failed, first: {res.failures[0]}\n"
                           f"{res.failures[0].traceback}")
    names = _metric_names()
    rows = []
    for (tr, p, cap, kw), r in zip(cases, res.table.select(names).iter_rows(named=True), strict=True):
        kw = dict(kw)
        seg = kw.pop("segment_kib", None)
        front = kw.pop("front", "none")
        rows.append(_row(tr, p, cap, seg, front, kw, r))
    return pl.DataFrame(rows, strict=False)


def _grid_loop(cases, desc: str) -> pl.DataFrame:
    """:func:`_grid` one :func:`run` at a time (what the tests compare the sweep path with)."""
    return pl.DataFrame([run(*c[:3], **c[3]) for c in tqdm(cases, desc=desc, leave=False)], strict=False)


def _pick(rows: pl.DataFrame, policy: str, front: str | None, extra: dict | None = None) -> pl.DataFrame:
    d = rows.filter(pl.col("policy") == policy)
    if front is not None:
        d = d.filter(pl.col("front") == front)
    for k, v in (extra or {}).items():
        d = d.filter(pl.col(k) == v) if k in d.columns else d.clear()
    return d


def improvement(rows: pl.DataFrame, by: list[str], proposed: str = PROPOSED, existing: str = EXISTING,
                front: str | None = FRONT, existing_front: str | None = None) -> pl.DataFrame:
    """BW(proposed) / BW(existing) - 1 for every curve and both measures, per ``by`` group; both behind
    ``front`` unless ``existing_front`` names another for the existing scheme."""
    cols = [c for c in rows.columns if c.startswith(("mb_s", "read_mb_s"))]
    a = _pick(rows, proposed, front).select(*by, *cols)
    b = _pick(rows, existing, existing_front or front).select(*by, *cols)
    j = a.join(b, on=by, suffix="_existing")
    return j.select(*by, *[(pl.col(c) / pl.col(f"{c}_existing") - 1).alias(c.replace("mb_s", "improvement"))
                           for c in cols])


def improvements(rows: pl.DataFrame, by: list[str], front: str = FRONT) -> pl.DataFrame:
    """:func:`improvement` of every prefetching policy behind ``front`` over the existing one, with a
    ``policy`` column: which part of the proposal (prefetch, culling, adaptation) brings what."""
    parts = [improvement(rows, by, p, front=front).with_columns(policy=pl.lit(p)) for p in ALL_POLICIES[1:]
             if p in set(rows["policy"])]
    return pl.concat(parts).select("policy", pl.all().exclude("policy"))


def baselines(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The proposal's improvement per ``by`` group over each reading of "existing": the segment LRU behind
    the read-ahead (the paper's), the bare segment LRU (proposal bare too: no front anywhere), and the page
    LRU with the read-ahead (``linux_readahead``, one run per workload and cache: no segment)."""
    main = improvement(rows, by).select(*by, "improvement", "read_improvement")
    bare = improvement(rows, by, front="none").select(*by, pl.col("improvement").alias("improvement_bare"),
                                                     pl.col("read_improvement").alias("read_improvement_bare"))
    out = main.join(bare, on=by, how="left")
    page = _pick(rows, PAGE_LRU_RA, None)
    if page.height:
        keys = [k for k in by if k != "segment_kib"]
        prop = _pick(rows, PROPOSED, FRONT).select(*by, "mb_s")
        j = prop.join(page.select(*keys, pl.col("mb_s").alias("mb_s_page")), on=keys)
        out = out.join(j.select(*by, (pl.col("mb_s") / pl.col("mb_s_page") - 1).alias("improvement_over_page_lru")),
                       on=by, how="left")
    return out


# --- Fig. 4 -------------------------------------------------------------------------------------------------
def fig4_model(sizes_kib=(4, 8, 16, 32, 64, 128, 256, 512, 1024)) -> pl.DataFrame:
    return pl.DataFrame([{"curve": name, "size_kib": s, "ms": float(c.time(s * 1024)) * 1e3, "source": "model"}
                         for name, c in CURVES.items() for s in sizes_kib])


def fig4_replay(target, sizes_kib=(4, 8, 16, 32, 64, 128, 256, 512), n_reads: int = 64) -> pl.DataFrame:
    """Fig. 4's experiment on this machine's storage (not the paper's SSDs): aligned reads 1 MiB apart in a
    file of random data, O_DIRECT, mean time per read."""
    from ...replay import read_sweep

    res = read_sweep(target, [s * 1024 for s in sizes_kib], n_reads=n_reads)
    return pl.DataFrame([{"curve": f"this machine ({r.mode})", "size_kib": s, "ms": r.seconds / n_reads * 1e3,
                          "source": "replay"} for s, r in zip(sizes_kib, res, strict=True)])


# --- Figs. 6-8 ----------------------------------------------------------------------------------------------
def fig6(traces: dict[str, Trace], segments=FIG6_SEGMENTS_KIB, capacity_pages: int = CACHE_PAGES,
         policies=ALL_POLICIES, front: str = FRONT, executor: str = "local", workers: int | None = None
         ) -> pl.DataFrame:
    """Bandwidth against segment size, every workload, 512 MiB: the existing scheme, the proposal and the
    proposal's parts (prefetch alone, prefetch with fixed culling) behind ``front``; the existing scheme and
    the proposal without a front too; and the page LRU with the read-ahead (once per workload)."""
    cases = [(tr, p, capacity_pages, {"segment_kib": s, "front": front}) for tr in traces.values()
             for s in segments for p in policies]
    if front != "none":
        cases += [(tr, p, capacity_pages, {"segment_kib": s, "front": "none"}) for tr in traces.values()
                  for s in segments for p in (EXISTING, PROPOSED)]
    cases += [(tr, PAGE_LRU_RA, capacity_pages, {}) for tr in traces.values()]
    return _grid(cases, "Fig. 6", executor, workers)


def fig7(t1: Trace, caches_mib=FIG7_CACHES_MIB, segments=FIG6_SEGMENTS_KIB, policies=ALL_POLICIES,
         front: str = FRONT, executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """T1's improvement against cache size, one series per segment size (every policy, as in Fig. 6, and the
    existing scheme and proposal without a front)."""
    cases = [(t1, p, m * 256, {"segment_kib": s, "front": front}) for m in caches_mib for s in segments
             for p in policies]
    if front != "none":
        cases += [(t1, p, m * 256, {"segment_kib": s, "front": "none"}) for m in caches_mib for s in segments
                  for p in (EXISTING, PROPOSED)]
    return _grid(cases, "Fig. 7", executor, workers)


def fig8(t1x5: Trace, capacity_pages: int = FIG8_CACHE_PAGES, segments=FIG8_SEGMENTS_KIB,
         policies=FIG8_POLICIES, front: str = FRONT, executor: str = "local", workers: int | None = None
         ) -> pl.DataFrame:
    """T1 five times, a small cache: adaptive vs fixed culling vs segment prefetch only, and adaptive culling
    with S = 0 (its feedback off: the control of the adaptation)."""
    cases = [(t1x5, p, capacity_pages, {"segment_kib": s, "front": front}) for s in segments for p in policies]
    cases += [(t1x5, PROPOSED, capacity_pages, {"segment_kib": s, "front": front, **S0}) for s in segments]
    rows = _grid(cases, "Fig. 8", executor, workers)
    return rows.with_columns(pl.col("step").fill_null(1.0)) if "step" in rows.columns else rows


def fig8_ratios(rows: pl.DataFrame) -> pl.DataFrame:
    """Adaptive over fixed culling and over segment prefetch alone, per segment size (bandwidth ratios), and
    the same for adaptive culling with S = 0 (``*_s0``: what the adaptation adds is the difference)."""
    r = rows.with_columns(pl.when((pl.col("policy") == PROPOSED) & (pl.col("step") == 0.0))
                          .then(pl.lit("adaptive_s0")).otherwise(pl.col("policy")).alias("policy"))
    wide = r.pivot(on="policy", index=["capacity_pages", "segment_kib"], values="mb_s")
    return wide.with_columns(adaptive_over_fixed=pl.col("seg_cull_adaptive") / pl.col("seg_cull_fixed"),
                             adaptive_over_prefetch_only=pl.col("seg_cull_adaptive") / pl.col("seg_prefetch"),
                             adaptive_over_fixed_s0=pl.col("adaptive_s0") / pl.col("seg_cull_fixed"),
                             adaptive_over_prefetch_only_s0=pl.col("adaptive_s0") / pl.col("seg_prefetch"))


def overhead(rows: pl.DataFrame) -> pl.DataFrame:
    """List operations per reference at 4 KiB segments, where culling never happens: the paper's ~2%
    overhead can only be compared as a count here (a simulator does not time its own list moves)."""
    d = rows.filter((pl.col("segment_kib") == 4) & (pl.col("step") != 0.0))
    return d.select("policy", "capacity_pages", "list_operations", "references",
                    (pl.col("list_operations") / pl.col("references")).alias("list_ops_per_reference"))


def n1_trajectory(trace: Trace, capacity_pages: int, segment_kib: int, every: int = 20_000, front: str = FRONT,
                  **params) -> pl.DataFrame:
    """Adaptive culling's N1 (in segments) through a run, with the lists' lengths."""
    res = simulate(fronted(trace, front), PROPOSED, capacity_pages, segment_kib=segment_kib, observe_every=every,
                   **params)
    t = res.trajectory
    return t.with_columns(workload=pl.lit(trace.name), capacity_pages=pl.lit(capacity_pages),
                          segment_kib=pl.lit(segment_kib), n1_start=pl.lit(capacity_pages / (2 * segment_kib / 4)))


def s_sweep(t1: Trace, t1x5: Trace, steps=S_SWEEP, segment_kib: int = 32, front: str = FRONT,
            executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """The feedback gain S, which the paper does not give: T1 at 512 MiB and Fig. 8's setting."""
    cases = [(t1, PROPOSED, CACHE_PAGES, {"segment_kib": segment_kib, "front": front, "step": s}) for s in steps]
    cases += [(t1x5, PROPOSED, FIG8_CACHE_PAGES, {"segment_kib": segment_kib, "front": front, "step": s})
              for s in steps]
    return _grid(cases, "S sweep", executor, workers)


# --- the open choices ---------------------------------------------------------------------------------------
BOTH = "the paper allows both; the package's default"
CR = "both allowed; the clean-room reference's default (tests/cleanroom)"
AMBIGUITY_VARIANTS = [  # (label, what the paper leaves open, the clean-room review's verdict, the parameters)
    ("default", "S=1, B = 5%, every 3 block hits, hits beyond 3 dropped, N1 >= B1, partial windows count, "
     "writes into L2, evict before culling, cull at once, both behind the read-ahead", "", {}),
    ("no read-ahead front", "both schemes without the host's read-ahead (the bare driver)",
     "settled by Sec. 5: both run 'through the Linux kernel' with its default settings", {"front": "none"}),
    ("N1 may fall to 0", "the feedback can lock up", BOTH, {"n1_floor": "zero"}),
    ("S = 0", "N1 stays at M/2k: no adaptation", "S is not given", {"step": 0.0}),
    ("B1/B2 = 2% of memory", "the paper: about 5%", "", {"window_fraction": 0.02}),
    ("B1/B2 = 10% of memory", "the paper: about 5%", "", {"window_fraction": 0.10}),
    ("update every hit", "the paper: every 3 hits in B1", "", {"update_every": 1}),
    ("update every 10 hits", "the paper: every 3 hits in B1", "", {"update_every": 10}),
    ("update only with full windows", "a list shorter than its window does not count as the window", BOTH,
     {"partial_windows": "skip"}),
    ("hits counted per request", "three hits = three requests with a hit in B1", BOTH, {"count_hits": "request"}),
    ("hits beyond 3 carried over", "not dropped at an update", BOTH, {"carry_hits": True}),
    ("writes enter L1", "a written segment not in memory joins L1 (default: L2)", CR, {"write_into": "l1"}),
    ("cull before evicting", "a newly read segment's room: L1 culled back to N1 first", BOTH, {"room_first": "cull"}),
    ("update at the third hit", "inside a request, not after its step in a segment", CR, {"update_at": "hit"}),
    ("write hits feed the feedback", "a hit is any request to a cached block", CR, {"feedback_writes": True}),
    ("N1 uncapped", "the paper bounds N1 nowhere (default: at most M/k)", CR, {"n1_cap": "none"}),
    ("B1/B2 rounded down", "the segments that fit in 5% (default: the nearest)", CR, {"window_round": "floor"}),
    ("cull only when memory is short", "L1 may outgrow N1 while memory is free",
     "the text: at once ('when a newly read segment makes L1 exceed')", {"cull_when": "memory_short"}),
]


AMBIGUITY_POINTS = [(512, "T1", 16), (512, "T1", 32), (512, "T1", 64), (512, "T2", 32), (32, "T1", 32)]
# (cache MiB, workload, segment KiB): the main cache, T1 at three segment sizes as Fig. 6 compares them, and
# 32 MiB, where T1's memory is short


def ambiguities(t1: Trace, t2: Trace, points=AMBIGUITY_POINTS, front: str = FRONT,
                variants=AMBIGUITY_VARIANTS) -> pl.DataFrame:
    """What each open choice changes at each of ``points`` (cache MiB, "T1" or "T2", segment KiB): the
    improvement of the proposal over the existing scheme (on every read-time curve, for all requests and for
    reads only), the proposal's hit ratios and its adaptive updates."""
    rows = []
    traces = {"T1": t1, "T2": t2}
    for cache, w, seg in points:
        tr = traces[w]
        base = {f: run(tr, EXISTING, cache * 256, seg, f) for f in FRONTS}
        for label, what, review, params in variants:
            kw = dict(params)
            f = kw.pop("front", front)
            r = run(tr, PROPOSED, cache * 256, seg, f, **kw)
            for curve in CURVES:
                rows.append({"cache_mib": cache, "workload": tr.name, "segment_kib": seg, "variant": label,
                             "what": what, "review": review, "curve": curve,
                             "improvement_all": r[f"mb_s_{curve}"] / base[f][f"mb_s_{curve}"] - 1,
                             "improvement_reads": r[f"read_mb_s_{curve}"] / base[f][f"read_mb_s_{curve}"] - 1,
                             "hit_ratio": r["hit_ratio"], "prefetch_hit_ratio": r["prefetch_hit_ratio"],
                             "n1_updates": r["n1_updates"], "n1_skipped": r["n1_skipped"]})
    return pl.DataFrame(rows)
