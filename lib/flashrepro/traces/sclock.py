"""Synthetic stand-ins for the S-Clock smartphone traces used by the BS-CLOCK paper (Table 2).

The originals (Nexus One, Android 2.3.7: web browsing, video streaming, mixed apps; "op, page number"
pairs) are not reachable. Each model is a page-level stream with exactly the paper's read and write
counts, in which

* a write goes, with probability ``write_stream_share``, to the next fresh page of a sequential write
  stream (files being downloaded or recorded), and otherwise to the hot set;
* a read goes to the hot set;
* the hot set is ``hot_pages`` pages with Zipf(0.9) popularity (ranks scattered over the set).

``write_stream_share`` and ``hot_pages`` are the only fitted parameters. Their calibration targets are the
paper's baseline statistics and nothing else: Spatial Clock's hit ratio at 4 MB (Table 5) and Spatial
Clock's pages written (Table 4); see ``flashrepro.papers.bs_clock.workloads.calibrate``. BS-CLOCK's numbers on these
models are predictions. The Zipf exponent, reads never touching fresh pages, the layout (hot set first,
the write stream after it) and the one-page-per-reference granularity are modelling choices, not fitted.
(A first version that also streamed reads with the same share could not meet both targets for web
browsing and mixed apps.)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .synthetic import zipf_ranks
from .trace import Op, Trace

TABLE2 = {  # reads, writes (BS-CLOCK paper, Table 2)
    "web-browsing": (23_383, 47_346),
    "video-streaming": (67, 387_701),
    "mixed-apps": (134_910, 105_796),
}


@dataclasses.dataclass(frozen=True)
class SClockModel:
    n_reads: int
    n_writes: int
    write_stream_share: float
    hot_pages: int
    hot_alpha: float = 0.9

    def __post_init__(self):
        if not 0 <= self.write_stream_share <= 1 or self.hot_pages < 1:
            raise ValueError(f"bad model parameters {self}")


def generate(model: SClockModel, seed: int, name: str = "sclock", n_requests: int | None = None,
             rw_overlap: float = 1.0) -> Trace:
    """The model's trace (``n_requests`` caps its length, keeping the read/write mix).

    ``rw_overlap`` below 1 (a robustness axis: the paper does not say whether often-read and often-written
    pages coincide) moves each hot-set write, with probability ``1 - rw_overlap``, to the page of its Zipf rank
    under a second, independent ranking of the hot set, drawn from a generator of its own, so the other draws
    and every read stay the same; at 1 (the default) the trace is the calibrated model's."""
    if not 0 <= rw_overlap <= 1:
        raise ValueError(f"rw_overlap must be in [0, 1], got {rw_overlap}")
    rng = np.random.default_rng(seed)
    n = model.n_reads + model.n_writes
    is_write = np.zeros(n, np.bool_)
    is_write[rng.choice(n, model.n_writes, replace=False)] = True
    stream = (rng.random(n) < model.write_stream_share) & is_write
    page = np.empty(n, np.int64)
    hot = ~stream
    perm = rng.permutation(model.hot_pages)
    ranks = zipf_ranks(rng, model.hot_pages, int(hot.sum()), model.hot_alpha)
    hot_pages = perm[ranks]
    if rw_overlap < 1:
        r2 = np.random.default_rng([seed, 23])
        perm_w = r2.permutation(model.hot_pages)
        move = is_write[hot] & (r2.random(len(ranks)) >= rw_overlap)
        hot_pages[move] = perm_w[ranks[move]]
    page[hot] = hot_pages
    page[stream] = model.hot_pages + np.arange(int(stream.sum()))  # fresh pages after the hot set, in order
    if n_requests is not None:
        page, is_write = page[:n_requests], is_write[:n_requests]
    m = len(page)
    return Trace(np.arange(m) * 1e-3, np.where(is_write, Op.WRITE, Op.READ).astype(np.int8), page * 4096,
                 np.full(m, 4096), name=name,
                 source=f"sclock model {model}, {f'rw_overlap={rw_overlap}, ' if rw_overlap < 1 else ''}seed={seed}")
