"""Paper 2 workloads: PCMark05 T1-T4 as seeded models (traces/pcmark.py: read shares are the only calibration
inputs), and the closest real relatives in the trace folder, personal-PC DiskMon logs and the ARC paper's
NT workstation traces."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ...traces import Op, Trace, catalog
from ...traces.pcmark import MODELS, generate, repeated
from ..layout import PaperNumbers

PAPER_FILE = "ssd_prefetch.csv"
WORKLOADS = list(MODELS)  # T1 .. T4
REAL_STANDINS = ["real/personal_pc/mayun", "real/personal_pc/mayun2", "real/personal_pc/mayun4",
                 "real/personal_pc/systemdisk1", "real/arc/P2", "real/arc/P3", "real/arc/P6", "real/arc/P12"]
READ_SHARE_TARGETS = {"T2-application-loading": 0.83, "T3-xp-startup": 0.90}  # public PCMark05 descriptions


paper_value = PaperNumbers(PAPER_FILE)  # paper_value(key, workload, ...): one printed number
paper_numbers = paper_value.table


def model_trace(workload: str, n: int, seed: int) -> Trace:
    """The model of ``workload`` at its natural length, cut to ``n`` requests (the catalog's scale cap)."""
    return generate(MODELS[workload], seed, n_requests=n, name=f"pcmark/{workload}")


for _w, _desc in (("T1-general-usage", "general usage: runs of small reads and writes in Zipf-popular files"),
                  ("T2-application-loading", "application loading: files read sequentially, 17% writes"),
                  ("T3-xp-startup", "Windows XP startup: many small files read sequentially, 10% writes"),
                  ("T4-virus-scan", "virus scan: every file read once")):
    catalog.add(catalog.Workload(f"pcmark/{_w}", f"PCMark05 {_desc} (paper 2), seeded model", model=model_trace,
                                 model_args=(_w,), papers=(2,)))


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


# --- variants of the models (the robustness space) -------------------------------------------------
def variant_trace(workload: str, n: int, seed: int, **change) -> Trace:
    """The model of ``workload`` with the fields ``change`` replaced (:class:`PCMarkModel`), cut to ``n``
    requests and named as :func:`model_trace` names it: with no change, :func:`model_trace`'s trace."""
    return generate(dataclasses.replace(MODELS[workload], **change), seed, n_requests=n, name=f"pcmark/{workload}")


def writes_apart(tr: Trace, overlap: float, seed: int, log_blocks: int = 2048) -> Trace:
    """``tr`` with each write kept where it is with probability ``overlap`` and otherwise moved (its size kept)
    to a log area past the trace's last block, at a Zipf(1.5) position among ``log_blocks`` blocks as the
    T2/T3 models place their writes: how far written and read blocks coincide. One uniform draw per request
    from ``seed``, so a smaller ``overlap`` moves a superset of the writes; ``overlap >= 1`` returns ``tr``."""
    if overlap >= 1:
        return tr
    rng = np.random.default_rng([seed, 2011, 23])
    u = rng.random(len(tr))
    pos = (rng.zipf(1.5, len(tr)) - 1) % log_blocks
    block = 4096
    base = int((tr.offset_bytes + tr.size_bytes).max()) // block + 4096
    move = (tr.op == Op.WRITE) & (u >= overlap)
    off = np.where(move, (base + pos) * block, tr.offset_bytes).astype(tr.offset_bytes.dtype)
    return Trace(tr.time_s, tr.op, off, tr.size_bytes, name=tr.name, source=tr.source,
                 meta={**tr.meta, "write_overlap": float(overlap)})
