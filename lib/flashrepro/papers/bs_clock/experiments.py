"""Paper 1 experiments: every policy on every workload, timed on the card models (Figs. 2, 6-9, Tables 4-5)."""

from __future__ import annotations

import polars as pl
from tqdm.auto import tqdm

from ... import sweep
from ...cache import simulate
from ...devices import CARDS, io_time
from ...traces import Trace
from .workloads import CACHE_PAGES

MAX_BULK = 16  # pages per bulk write (Sec. 4.2: 64 KB)
BULK_SWEEP = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
POLICIES = ["lru", "clock", "cflru", "spatial_clock", "bs_clock"]


def run(trace: Trace, policy: str, capacity: int = CACHE_PAGES, **params) -> dict:
    """One simulation, timed on both cards: a flat row."""
    res = simulate(trace, policy, capacity, log_io=True, **params)
    row = {"workload": trace.name, "policy": policy, "capacity_pages": capacity, **params}
    d = res.to_dict()
    row.update({k: d[k] for k in ("hit_ratio", "device_writes", "device_write_requests", "device_reads")})
    row.update(card_columns(res, trace))
    return row


def card_columns(res, trace=None) -> dict:
    """The columns a row adds to the counters: bulk-cleaned pages, pages per write, time on both cards (a
    metric of :func:`flashrepro.sweep.run`, so the sweep's rows are :func:`run`'s)."""
    c = res.counters
    row = {"bulk_cleaned": c.get("bulk_cleaned", 0),  # only BS-CLOCK cleans pages in bulk
           "mean_pages_per_write": c["device_writes"] / max(c["device_write_requests"], 1)}
    for card_name, card in CARDS.items():
        t = io_time(res.io_log, card)
        row[f"{card_name}_write_s"] = t["write_s"]
        row[f"{card_name}_io_s"] = t["io_s"]
    return row


ROW_COLUMNS = ["workload", "policy", "capacity_pages", "hit_ratio", "device_writes", "device_write_requests",
               "device_reads", "bulk_cleaned", "mean_pages_per_write", "samsung_write_s", "samsung_io_s",
               "sandisk_write_s", "sandisk_io_s"]


def fig2_model(total_bytes: int = 64 * 2**20) -> pl.DataFrame:
    sizes = [2**k for k in range(12, 23)]  # 4 KiB .. 4 MiB
    rows = []
    for name, card in CARDS.items():
        t = card.bulk_write_time(total_bytes, sizes)
        rows += [{"card": name, "request_bytes": s, "seconds": float(x), "source": "model"}
                 for s, x in zip(sizes, t, strict=True)]
    return pl.DataFrame(rows)


def fig2_replay(target, total_bytes: int, sizes=None) -> pl.DataFrame:
    """Fig. 2's experiment measured on this machine's storage (not a microSD card)."""
    from ...replay import write_sweep

    sizes = sizes or [2**k for k in range(12, 21, 2)] + [2**20]
    res = write_sweep(target, total_bytes, sizes)
    return pl.DataFrame([{"card": f"this machine ({r.mode})", "request_bytes": s,
                          "seconds": r.seconds * (64 * 2**20 / total_bytes), "source": "replay"}
                         for s, r in zip(sizes, res, strict=True)])


def bulk_sweep(traces: dict[str, Trace], sizes=BULK_SWEEP) -> pl.DataFrame:
    """Figs. 6-7: BS-CLOCK at 4 MB while the maximum bulk size grows, with Spatial Clock as reference."""
    rows = []
    for tr in tqdm(traces.values(), desc="bulk sweep", leave=False):
        rows.append({**run(tr, "spatial_clock"), "max_bulk_pages": 1})
        rows += [run(tr, "bs_clock", max_bulk_pages=m) for m in sizes]
    return pl.DataFrame(rows)


def compare(traces: dict[str, Trace], policies=POLICIES, executor: str = "local",
            workers: int | None = None) -> pl.DataFrame:
    """Tables 4-5, Figs. 8-9: every policy at 4 MB, BS-CLOCK with 16 pages per bulk write (through the sweep
    runner: the rows of :func:`run`)."""
    return _sweep(traces, [CACHE_PAGES], policies, executor, workers)


def buffer_sweep(traces: dict[str, Trace], sizes_pages=(256, 512, 1024, 2048, 4096, 8192, 16384),
                 policies=POLICIES, executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """Every policy at every buffer size, through the sweep runner (:mod:`flashrepro.sweep`; ``executor``
    ``"process"`` or ``"dask"`` spreads it over processes with the same table)."""
    return _sweep(traces, sizes_pages, policies, executor, workers)


def _sweep(traces: dict[str, Trace], sizes_pages, policies, executor: str, workers: int | None) -> pl.DataFrame:
    """``run(tr, p, c)`` for every trace, size and policy (in that order), as one sweep."""
    res = sweep.run(list(policies), list(traces.values()), sizes_pages, metrics=(card_columns,),
                    executor=executor, workers=workers)
    if res.failures:
        raise RuntimeError(f"{len(res.failures)} runs failed; first: {res.failures[0]}")
    order = {(tr.name, c, p): i for i, (tr, c, p) in
             enumerate((tr, c, p) for tr in traces.values() for c in sizes_pages for p in policies)}
    t = res.table.with_columns(pl.col("bulk_cleaned").fill_null(0))
    t = t.with_columns(pl.Series("_o", [order[k] for k in zip(t["workload"], t["capacity_pages"], t["policy"],
                                                                 strict=True)]))
    return t.sort("_o").select(ROW_COLUMNS)


def ambiguities(traces: dict[str, Trace]) -> pl.DataFrame:
    """How much the two readings the paper leaves open change the results."""
    rows = []
    for tr in traces.values():
        for ins in (True, False):
            rows.append({**run(tr, "spatial_clock", insert_referenced=ins), "variant": f"SC insert_referenced={ins}"})
            rows.append({**run(tr, "bs_clock", insert_referenced=ins), "variant": f"BS insert_referenced={ins}"})
        rows.append({**run(tr, "bs_clock", max_counts_victim=False), "variant": "BS max excludes victim (17 pages)"})
    return pl.DataFrame(rows, strict=False).select(["workload", "variant", "hit_ratio", "device_writes",
                                                    "mean_pages_per_write", "samsung_io_s", "sandisk_io_s"])


