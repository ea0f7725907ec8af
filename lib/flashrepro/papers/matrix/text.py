"""Notebook 06's findings, rendered from the matrix at every scale (:mod:`flashrepro.prose`): medians over the
workloads of each metric relative to LRU on the same workload and size, and what they show."""

from __future__ import annotations

import polars as pl

from ...prose import num, table
from .experiments import METRICS, relative

MERGE_WRITES = ("bs_clock", "seg_lru", "seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive")
PREFETCH = ("seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive")
FLUSHERS = ("lru_flush", "write_once")


def medians(runs: pl.DataFrame) -> pl.DataFrame:
    """Per policy and size group (the largest size apart from the others), the median over workloads of every
    metric relative to LRU's."""
    largest = runs["capacity_pages"].max()
    parts = []
    for metric in METRICS:
        r = relative(runs, metric).filter(pl.col("relative").is_finite())
        r = r.with_columns(sizes=pl.when(pl.col("capacity_pages") == largest).then(pl.lit("largest"))
                           .otherwise(pl.lit("smaller")))
        parts.append(r.group_by("policy", "sizes").agg(pl.col("relative").median().alias(metric)))
    out = parts[0]
    for p in parts[1:]:
        out = out.join(p, on=["policy", "sizes"], how="full", coalesce=True)
    return out.sort("policy", "sizes")


def _span(m: pl.DataFrame, policies, metric: str, sizes: str = "smaller") -> str:
    d = m.filter(pl.col("policy").is_in(list(policies)) & (pl.col("sizes") == sizes))[metric].drop_nulls()
    if not d.len():
        return "n/a"
    lo, hi = d.min(), d.max()
    return f"{num(lo)}x" if num(lo) == num(hi) else f"{num(lo)}-{num(hi)}x"


def findings(runs: pl.DataFrame) -> str:
    """The findings section: the medians table and the observations it supports, with this run's numbers."""
    m = medians(runs)
    n_work, n_pol = runs["workload"].n_unique(), runs["policy"].n_unique()
    sizes = sorted(runs["capacity_pages"].unique())
    mib = ", ".join(num(c * 4 / 1024) for c in sizes)
    rows = [{"policy": r["policy"], "sizes": r["sizes"], **{k: num(r[k]) for k in METRICS}}
            for r in m.iter_rows(named=True)]
    hit = m.filter(pl.col("sizes") == "smaller")["hit_ratio"].drop_nulls()

    def med(policies, metric, sizes="smaller", pick=max):
        d = m.filter(pl.col("policy").is_in(list(policies)) & (pl.col("sizes") == sizes))[metric].drop_nulls()
        return pick(d.to_list()) if d.len() else None

    merged = (med(MERGE_WRITES, "device_write_requests") or 1) < 0.8 and (med(MERGE_WRITES, "device_time") or 1) < 1
    more_reads = (med(PREFETCH, "device_reads", pick=min) or 1) > 1.05
    flush_more = (med(FLUSHERS, "device_writes", pick=min) or 1) > 1
    narrow = hit.len() and hit.max() / hit.min() <= 1.1
    out = ["## Findings (generated from this run's matrix)", "",
           f"{n_pol} policies x {n_work} workloads x {len(sizes)} sizes ({mib} MiB). Each number is the median "
           "over the workloads of a metric relative to LRU's on the same workload and size (1 = as LRU); "
           "\"smaller\" pools the sizes below the largest. These are observations under our models and device "
           "cost models, not verdicts: no paper claims them.", "",
           table(rows, ["policy", "sizes", *METRICS]), "",
           f"- **Merged writes{' decide the modelled flash time' if merged else ''}.** Policies that write runs of "
           f"pages in one request (BS-CLOCK's bulk write, paper 2's segment policies' write-back per dirty run) "
           f"send {_span(m, MERGE_WRITES, 'device_write_requests')} of LRU's write requests for "
           f"{_span(m, MERGE_WRITES, 'device_writes')} of its pages written, and take "
           f"{_span(m, MERGE_WRITES, 'device_time')} of its time on the SanDisk card model (paper 1 "
           "calibrated that model on a 77.5% saving from large requests, so it rewards merged writes).",
           f"- **Segment prefetching reads {'more' if more_reads else 'about as much'}:** "
           f"{_span(m, PREFETCH, 'device_reads')} of LRU's pages for {_span(m, PREFETCH, 'hit_ratio')} its hit "
           f"ratio; Linux read-ahead reads {_span(m, ['linux_readahead'], 'device_reads')} (its window opens "
           "only on sequential runs).",
           (f"- **Hit ratio {'barely separates' if narrow else 'separates'} the policies:** the medians span "
            f"{num(hit.min())}-{num(hit.max())}x of LRU's at the smaller sizes.") if hit.len() else
           "- **Hit ratio:** n/a.",
           f"- **Paper 5's flush policies write {'more' if flush_more else 'no more'}** "
           f"({_span(m, FLUSHERS, 'device_writes')} of LRU's pages at the smaller sizes, "
           f"{_span(m, FLUSHERS, 'device_writes', 'largest')} at the largest): they write dirty pages back on a "
           "5 s grid and at syncs, and a page flushed and dirtied again is written twice."]
    return "\n".join(out)
