"""Paper 2 workloads: PCMark05 T1-T4 as seeded models (traces/pcmark.py: read shares are the only calibration
inputs), and the closest real relatives in the trace folder, personal-PC DiskMon logs and the ARC paper's
NT workstation traces."""

from __future__ import annotations

import polars as pl

from ... import paths
from ...traces import Trace, catalog
from ...traces.pcmark import MODELS, generate, repeated

PAPER_FILE = "ssd_prefetch.csv"
WORKLOADS = list(MODELS)  # T1 .. T4
REAL_STANDINS = ["real/personal_pc/mayun", "real/personal_pc/mayun2", "real/personal_pc/mayun4",
                 "real/personal_pc/systemdisk1", "real/arc/P2", "real/arc/P3", "real/arc/P6", "real/arc/P12"]
READ_SHARE_TARGETS = {"T2-application-loading": 0.83, "T3-xp-startup": 0.90}  # public PCMark05 descriptions


def paper_numbers() -> pl.DataFrame:
    return pl.read_csv(paths.paper / PAPER_FILE)


def paper_value(key: str, workload: str) -> float:
    df = paper_numbers().filter((pl.col("key") == key) & (pl.col("workload") == workload))
    if df.height != 1:
        raise KeyError(f"no single paper number for {key}/{workload}")
    return float(df["value"][0])


def model_trace(workload: str, n: int, seed: int) -> Trace:
    """The model of ``workload`` at its natural length, cut to ``n`` requests (the catalog's scale cap)."""
    return generate(MODELS[workload], seed, n_requests=n, name=f"pcmark/{workload}")


def workloads(scale: str, seed: int, real: bool = True) -> dict[str, Trace]:
    """T1-T4 (cut to the catalog's cap at ``ci`` and ``quick`` scale) and, when ``real`` and present, the real
    stand-ins (never at ``ci``, so the checked outputs do not depend on the machine)."""
    names = [f"pcmark/{w}" for w in WORKLOADS]
    if real and scale != "ci":
        names += [n for n in REAL_STANDINS if catalog.available(n)]
    return {n: catalog.get(n, scale=scale, seed=seed) for n in names}


def t1_repeated(traces: dict[str, Trace], times: int = 5) -> Trace:
    """Fig. 8's input: T1 five times back to back."""
    return repeated(traces["pcmark/T1-general-usage"], times)


def table(traces: dict[str, Trace]) -> pl.DataFrame:
    """Each workload's size and read share, beside the read-share targets the models were built to."""
    rows = []
    for name, tr in traces.items():
        s = tr.stats()
        w = name.split("/", 1)[1]
        rows.append({"workload": name, "requests": s["requests"], "read_share": s["reads"] / max(s["requests"], 1),
                     "read_share_target": READ_SHARE_TARGETS.get(w), "footprint_mib": s["footprint_bytes"] / 2**20,
                     "mean_request_kib": s["mean_request_bytes"] / 1024, "read_mib": s["read_bytes"] / 2**20})
    return pl.DataFrame(rows)
