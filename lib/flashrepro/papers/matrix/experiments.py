"""Notebook 06 experiments: the matrix through the sweep runner, pivots per metric, and which policy wins."""

from __future__ import annotations

import polars as pl

from ... import sweep
from ...devices import device_time

# metric -> (column, better): what the heat maps and the winners table show
METRICS = {
    "hit_ratio": ("hit_ratio", "max"),
    "device_reads": ("device_reads", "min"),
    "device_writes": ("device_writes", "min"),
    "device_write_requests": ("device_write_requests", "min"),
    "device_time": ("time_sandisk_s", "min"),
}
TIME_COLUMNS = ("time_samsung_s", "time_sandisk_s", "time_ssd_s")


def matrix(policies: dict, workloads: list[str], capacities: list[int], *, scale: str, seed: int = 0,
           executor: str = "local", workers: int | None = None, scheduler: str | None = None,
           store=None) -> sweep.SweepResult:
    """Every policy x workload x capacity, with the modelled device time of paper 1's microSD cards
    (BS-CLOCK Fig. 2 calibration) and paper 2's SSD read curve (Fig. 4, U16-sqrt) on each run's I/O log.
    Dirty pages left at the end are written back (``flush_at_end=True``), so write counts compare policies
    that flush on a timer with those that do not."""
    return sweep.run(policies, workloads, capacities, scale=scale, seed=seed, flush_at_end=True,
                     metrics=(device_time,), executor=executor, workers=workers, scheduler=scheduler,
                     store=store)


def runs_table(table: pl.DataFrame) -> pl.DataFrame:
    """The columns worth keeping in results/ (no timing: the file is byte-identical on rerun)."""
    cols = ["workload", "policy", "capacity_pages", "references", "hit_ratio", "device_reads",
            "device_read_requests", "device_writes", "device_write_requests", *TIME_COLUMNS]
    return table.select(cols)


def relative(table: pl.DataFrame, metric: str, baseline: str = "lru") -> pl.DataFrame:
    """``metric`` of each run divided by the baseline policy's on the same workload and size (1 = as LRU)."""
    col, _ = METRICS[metric]
    base = table.filter(pl.col("policy") == baseline).select("workload", "capacity_pages",
                                                            pl.col(col).alias("_base"))
    return (table.join(base, on=["workload", "capacity_pages"], how="left")
            .with_columns((pl.col(col) / pl.col("_base")).alias("relative"))
            .select("workload", "policy", "capacity_pages", pl.col(col).alias(metric), "relative"))


def winners(table: pl.DataFrame) -> pl.DataFrame:
    """Per workload and size, the best policy on each metric (ties: every tied policy, joined by '+')."""
    rows = []
    keys = table.select("workload", "capacity_pages").unique(maintain_order=True)
    for w, cap in keys.iter_rows():
        part = table.filter((pl.col("workload") == w) & (pl.col("capacity_pages") == cap))
        row = {"workload": w, "capacity_pages": cap}
        for metric, (col, better) in METRICS.items():
            best = part[col].max() if better == "max" else part[col].min()
            row[metric] = "+".join(sorted(part.filter(pl.col(col) == best)["policy"].to_list()))
        rows.append(row)
    return pl.DataFrame(rows)


def win_counts(win: pl.DataFrame) -> pl.DataFrame:
    """How many (workload, size) cells each policy wins (alone or tied) on each metric."""
    rows = {}
    for metric in METRICS:
        for cell in win[metric].to_list():
            for p in cell.split("+"):
                rows.setdefault(p, dict.fromkeys(METRICS, 0))[metric] += 1
    return pl.DataFrame([{"policy": p, **c} for p, c in sorted(rows.items())])
