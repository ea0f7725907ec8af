"""Paper 1 (BS-CLOCK) across the workload space the paper leaves open (issue 23).

:data:`SPACE` is what the paper does not state and the models have to decide: the buffer around the paper's
4 MB, the hot set (footprint) and the sequential share around each calibrated model, the popularity skew,
whether read-hot and write-hot pages coincide, and the open readings of the notebook's ambiguity table.
:data:`HEADLINE` are the Tables 4-5 and Figs. 8-9 rows a reader remembers. :func:`point` judges them at one
point of the space through the paper's own :func:`~.claims.claims`; :func:`stand_ins` on the real stand-ins.
At :meth:`Space.default` the models are the committed calibrated ones and the rows are the ledger's.
"""

from __future__ import annotations

import polars as pl

from ._space_stub import Axis, Space  # replaced by flashrepro.robustness on merge

# the hand readings of experiments.HAND_READINGS as one axis: (hand_past_bulk, insert_behind_hand)
HAND = {"victim/position": (False, False), "victim/pointer": (False, True),
        "bulk/position": (True, False), "bulk/pointer": (True, True)}

SPACE = Space(paper=1, axes=(
    Axis("cache_pages", 256, 4096, 1024, scale="log",
         why="the paper fixes a 4 MB buffer (Sec. 4) for one phone, while page caches differ by device and load; "
             "x1/4-x4 of it, inside the notebook's own buffer-size extension (256-16384 pages)"),
    Axis("hot_scale", 0.25, 4.0, 1.0, scale="log",
         why="the calibration does not pin the footprint: equally good fits span 4-181 hot files (web browsing) "
             "and 64-65,536 hot pages (video streaming) in data/paper/bs_clock_fit_family.json, so the hot set "
             "(pages or files) is scaled x1/4-x4 around the committed fit"),
    Axis("seq_scale", 0.5, 2.0, 1.0, scale="log",
         why="the sequential share (write-stream share, or new-file share for web browsing's files model) is "
             "fitted jointly with the hot set; equally good fits span x0.6-x2.4 (video streaming) and x0.8-x1.4 "
             "(web browsing) of the committed shares (fit family), so x1/2-x2, capped at a share of 1"),
    Axis("hot_alpha", 0.6, 1.2, 0.9,
         why="the models' Zipf(0.9) popularity is a modelling choice, not fitted (traces/sclock.py, WebFilesModel); "
             "0.6-1.2 spans the exponents usually fitted to web and block-level popularity"),
    Axis("rw_overlap", 0.0, 1.0, 1.0,
         why="the paper does not say whether the pages read often are the pages written often; the hot-set "
             "models make them coincide (1), 0 gives writes their own independent Zipf ranking of the hot set "
             "(web browsing's files model rewrites whole files and is left as it is)"),
    Axis("insert_referenced", 0, 1, True, scale="choice", choices=(True, False),
         why="ambiguity table: Fig. 3 does not say whether a new page enters with its reference bit set"),
    Axis("hand_reading", 0, 1, "victim/position", scale="choice", choices=tuple(HAND),
         why="ambiguity table: where the hand goes after a bulk write (past the victim or past the bulk) and "
             "where a page inserted before the hand's page stands (position or pointer reading)"),
    Axis("flush_at_end", 0, 1, False, scale="choice", choices=(False, True),
         why="ambiguity table: the paper does not say whether dirty pages left at the end of the trace are "
             "written back"),
))

HEADLINE = (
    "Table 4: BS-CLOCK writes more pages than Spatial Clock",
    "Table 4: BS-CLOCK's extra pages written over Spatial Clock",
    "Table 5: hit ratio drop of BS-CLOCK against Spatial Clock (hand past the bulk, new page at the hand (position))",
    "Table 5: hit ratio drop of BS-CLOCK against Spatial Clock (hand past the bulk, new page behind the hand "
    "(pointer))",
    "Figs. 8-9: BS-CLOCK cuts I/O time against Spatial Clock (samsung)",
    "Figs. 8-9: BS-CLOCK cuts I/O time against Spatial Clock (sandisk)",
    "Figs. 8-9: BS-CLOCK takes less I/O time than Spatial Clock (samsung)",
    "Figs. 8-9: BS-CLOCK takes less I/O time than Spatial Clock (sandisk)",
    "Sec. V: mean I/O time reduction over the two cards",
    "Abstract: BS-CLOCK reduces I/O time by up to 88% against Spatial Clock",
)

MAP_SCALE = {"reduced": "ci", "full": "quick"}  # provisional until the cost per point is measured


def point(scale: str = "ci", **values) -> pl.DataFrame:
    """Ledger rows of every :data:`HEADLINE` claim at the point ``values`` (missing axes: their default)."""
    raise NotImplementedError


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    """Ledger rows of the :data:`HEADLINE` claims on each real stand-in trace present."""
    raise NotImplementedError
