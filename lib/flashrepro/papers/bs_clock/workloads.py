"""Paper 1 workloads: the S-Clock smartphone traces as calibrated synthetic models (Table 2), and the real
stand-ins.

Each model has the paper's Table 2 read and write counts; its two free parameters (the write-stream share
and the hot-set size) are fitted to Spatial Clock's hit ratio (Table 5) and pages written (Table 4) at a
4 MB buffer, and to nothing else. ``python -m flashrepro.papers.bs_clock`` refits them into
``data/paper/bs_clock_models.json``.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ... import paths
from ...cache import simulate
from ...traces import Trace, catalog
from ...traces.sclock import TABLE2, SClockModel, generate

CACHE_PAGES = 1024  # buffer 4 MB of 4 KiB pages (Sec. 4)
MODEL_FILE = "bs_clock_models.json"
REAL_STANDINS = ["real/android/most", "real/personal_pc/mayun", "real/personal_pc/mayun2", "real/personal_pc/mayun4",
                 "real/personal_pc/systemdisk1", "real/cloudphysics/io"]


def paper_numbers() -> pl.DataFrame:
    return pl.read_csv(paths.paper / "bs_clock.csv")


def paper_value(key: str, workload: str) -> float:
    df = paper_numbers().filter((pl.col("key") == key) & (pl.col("workload") == workload))
    return float(df["value"][0])


# --- workload models ----------------------------------------------------------------------------------
def _sc_stats(model: SClockModel, seed: int = 0) -> tuple[float, int]:
    r = simulate(generate(model, seed), "spatial_clock", CACHE_PAGES).to_dict()
    return r["hit_ratio"], r["device_writes"]


def calibrate(workload: str, seed: int = 0, progress: bool = True) -> dict:
    """Fit ``write_stream_share`` and ``hot_pages`` so that Spatial Clock at 4 MB gives the paper's hit ratio
    (Table 5) and pages written (Table 4) on ``workload``: a grid, then a pattern search on the summed
    squared relative errors. Nothing about BS-CLOCK enters."""
    n_reads, n_writes = TABLE2[workload]
    hit_t = paper_value("hit_ratio_spatial_clock", workload)
    written_t = paper_value("pages_written_spatial_clock", workload)

    def loss(s, log_h):
        h, w = _sc_stats(SClockModel(n_reads, n_writes, float(np.clip(s, 0, 1)), int(round(2**log_h))), seed)
        return ((h - hit_t) / hit_t) ** 2 + ((w - written_t) / written_t) ** 2

    grid = [(s, lh) for s in np.linspace(0, 0.9, 19) for lh in np.arange(6, 16.01, 0.5)]
    scores = [loss(s, lh) for s, lh in tqdm(grid, desc=f"calibrate {workload}", disable=not progress, leave=False)]
    s, lh = grid[int(np.argmin(scores))]
    best, step_s, step_h = min(scores), 0.025, 0.25
    while step_s > 1e-4:
        improved = False
        for ds, dh in ((step_s, 0), (-step_s, 0), (0, step_h), (0, -step_h)):
            cand = loss(s + ds, lh + dh)
            if cand < best:
                best, s, lh, improved = cand, float(np.clip(s + ds, 0, 1)), lh + dh, True
        if not improved:
            step_s, step_h = step_s / 2, step_h / 2
    model = SClockModel(n_reads, n_writes, round(float(s), 5), int(round(2**lh)))
    hit, written = _sc_stats(model, seed)
    return {"workload": workload, **dataclasses.asdict(model), "seed": seed,
            "sc_hit_ratio": hit, "sc_hit_ratio_target": hit_t, "sc_pages_written": written,
            "sc_pages_written_target": written_t}


def load_models() -> dict[str, SClockModel]:
    """The calibrated models committed in data/paper (written by ``python -m flashrepro.papers.bs_clock``)."""
    rows = json.loads((paths.paper / MODEL_FILE).read_text())
    fields = {f.name for f in dataclasses.fields(SClockModel)}
    return {r["workload"]: SClockModel(**{k: v for k, v in r.items() if k in fields}) for r in rows}


def calibration_table() -> pl.DataFrame:
    return pl.DataFrame(json.loads((paths.paper / MODEL_FILE).read_text()))


def model_trace(workload: str, n: int, seed: int) -> Trace:
    """The calibrated model of ``workload`` (its full Table 2 length, or the first ``n`` requests)."""
    m = load_models()[workload]
    return generate(m, seed, name=f"bsclock/{workload}", n_requests=None if n >= m.n_reads + m.n_writes else n)


def workloads(scale: str, seed: int, real: bool = True) -> dict[str, Trace]:
    """The three paper workloads (their models, cut to the catalog's cap at ``ci`` and ``quick`` scale)
    and, when ``real`` and present, the real stand-ins."""
    names = [f"bsclock/{w}" for w in TABLE2]
    if real and scale != "ci":
        names += [n for n in REAL_STANDINS if catalog.available(n)]
    return {n: catalog.get(n, scale=scale, seed=seed) for n in names}


def table2(traces: dict[str, Trace]) -> pl.DataFrame:
    rows = []
    for name, tr in traces.items():
        w = name.split("/", 1)[1] if name.startswith("bsclock/") else None
        rows.append({"workload": name, "reads": tr.n_reads, "writes": tr.n_writes,
                     "paper_reads": TABLE2[w][0] if w else None, "paper_writes": TABLE2[w][1] if w else None})
    return pl.DataFrame(rows)


