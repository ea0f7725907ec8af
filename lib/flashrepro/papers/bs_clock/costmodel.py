"""What the affine card model allows, and what the paper's gains would need.

The card models (:mod:`flashrepro.devices.flash`) price a write request of n pages at ``t(n) = a + b n``,
fitted to Fig. 2 only. Two consequences follow without any workload:

* **The ceiling.** Writing the same pages in requests of mean size m instead of one page each saves
  ``c (1 - 1/m)`` of the write time, with ``c = a / (a + b)``. So no workload lets BS-CLOCK cut write time
  by more than ``c`` against Spatial Clock (which writes one page per request) at equal pages written,
  and by more than ``c (1 - 1/16)`` at the paper's 16-page cap (Sec. 4.2). Reads, which both policies do
  alike, only lower it.
* **The implied bulk size.** A reduction ``r`` reported by the paper needs a mean bulk of
  ``m = 1 / (1 - r / c)`` pages at equal pages written, or with BS-CLOCK writing ``k`` times Spatial
  Clock's pages (Table 4), ``m = a / ((1 - r)(a + b) / k - b)``; none when ``r`` is at or past the ceiling
  ("unreachable under Fig. 2").

What the paper's gains would need instead: a position term. microSD cards write a scattered 4 KiB page
more slowly than a sequential one; a model ``t = a + b n + p [request does not start where the previous
write ended]`` leaves Fig. 2 (all sequential) unchanged. ``p`` is an exposed parameter (default 0, the
calibrated model); :func:`implied_penalty` solves, for each paper number, the ``p`` that would give it on
our after-cache traces, so a reader sees whether one penalty explains all six Figs. 8-9 numbers. It is
never fitted: nothing in the package uses a solved penalty as a default.
"""

from __future__ import annotations

import math

import numpy as np

from ...cache.contract import IO_WRITE
from ...devices import FlashCard


def ceiling(card: FlashCard, max_bulk_pages: int | None = None) -> float:
    """The largest write-time reduction of bulk writes of ``max_bulk_pages`` (unbounded: None) against
    one page per request, at equal pages written."""
    c = card.write_request_s / (card.write_request_s + card.write_page_s)
    return c if max_bulk_pages is None else c * (1 - 1 / max_bulk_pages)


def implied_bulk(card: FlashCard, reduction: float, pages_ratio: float = 1.0) -> float:
    """The mean pages per bulk write a write-time ``reduction`` needs when the bulk-writing policy writes
    ``pages_ratio`` times the pages of a one-page-per-request policy; ``inf`` if no bulk size reaches it."""
    a, b = card.write_request_s, card.write_page_s
    denom = (1 - reduction) * (a + b) / pages_ratio - b
    return a / denom if denom > 0 else math.inf


def scattered_writes(io_log) -> int:
    """Device write requests that do not start one page after where the previous write request ended
    (the first write counts as scattered; reads in between do not break a sequence)."""
    d = io_log.device & (io_log.op == IO_WRITE)
    first, n = io_log.first_page[d], io_log.n_pages[d]
    if len(first) == 0:
        return 0
    seq = first[1:] == first[:-1] + n[:-1]
    return int(len(first) - seq.sum())


def position_io_time(io_s: float, n_scattered: int, penalty_s: float) -> float:
    """The I/O time under the position model: the affine time plus ``penalty_s`` per scattered write."""
    return io_s + penalty_s * n_scattered


def implied_penalty(io_sc: float, k_sc: int, io_bs: float, k_bs: int, reduction: float) -> float:
    """The penalty per scattered write at which BS-CLOCK's time is ``1 - reduction`` of Spatial Clock's,
    given each one's affine time and scattered-write count; ``nan`` when no penalty >= 0 gives it (the
    affine model already overshoots it, or it lies past ``1 - k_bs / k_sc``, the limit of a huge penalty)."""
    denom = (1 - reduction) * k_sc - k_bs
    if denom == 0:
        return math.nan
    p = (io_bs - (1 - reduction) * io_sc) / denom
    return p if p >= 0 and np.isfinite(p) else math.nan


def penalty_reason(reduction: float, r0: float, r_limit: float, penalty_s: float) -> str:
    """Why :func:`implied_penalty` gave ``penalty_s`` (or nan): as the penalty grows from 0 to a huge value the
    reduction moves monotonically from ``r0`` (the affine model's) to ``r_limit`` (1 - BS-CLOCK's scattered
    writes / Spatial Clock's), so only a paper number between the two has a penalty."""
    if not math.isnan(penalty_s):
        return (f"solved: {reduction:.4f} lies between {r0:.4f} (no penalty) and {r_limit:.4f} (a huge one)"
                + ("; the penalty lowers the reduction" if reduction < r0 else "; the penalty raises the reduction"))
    if reduction == r_limit:
        return f"nan: {reduction:.4f} is the limit of a huge penalty, reached by none"
    side = "above" if reduction > max(r0, r_limit) else "below"
    return (f"nan: no penalty >= 0 gives it; the reduction runs from {r0:.4f} (no penalty) to {r_limit:.4f} "
            f"(a huge one), and the paper's {reduction:.4f} lies {side} both")
