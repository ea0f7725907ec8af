"""CFLRU [Park et al., CASES 2006]: LRU whose last ``window`` positions form a clean-first region.

On a miss with a full cache the victim is the least recently used clean page inside the clean-first
region (the ``window`` least recently used pages); if that region holds no clean page, the LRU page
(then dirty) is evicted. Evicting clean pages first trades hit ratio for fewer flash writes.

Finding "the least recent clean page, if it is within the window" without scanning the window: clean
pages are also kept on a second LRU list, and every resident page carries an "in the window" flag kept up
to date as pages move (when a window page leaves, the next more recent page joins), so the check is O(1)
per miss and the state does not grow with the trace.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import driver
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class CFLRUParams:
    """Parameters of CFLRU.

    Attributes
    ----------
    window_fraction : float
        Size of the clean-first region as a fraction of the cache (at least one page). 0 gives LRU;
        1 makes every clean page a candidate before any dirty one. The CFLRU paper tunes it per
        workload; 0.5 is our default, not the paper's.
    """

    window_fraction: float = 0.5

    def __post_init__(self):
        if not 0.0 <= self.window_fraction <= 1.0:
            raise ValueError(f"window_fraction must be in [0, 1], got {self.window_fraction}")


class CFLRUState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not resident
    node: np.ndarray  # a row of W int32 per frame (jitkit records, sentinel row = frames): see the slots below
    sc: np.recarray  # the scalars (driver.new_scalars): used, frames and SCALARS


SCALARS = [("window", np.int64),  # frames in the clean-first window
           ("wfront", np.int64),  # the most recent window frame (-1: none)
           ("wcount", np.int64)]  # frames in the window
# A frame's row: its links on the list of all resident pages (most recent at the front) and on the list of the
# clean ones (same order), its dirty and "in the window" flags and its page. One 32-byte row per frame: a move
# touches one row instead of a cache line in each of six arrays (1.6x faster than separate arrays, measured).
ALL, CLEAN, DIRTY, INWIN, PAGE = 0, 2, 4, 5, 6
W = 8


@njit(cache=True, inline="always")
def _leave(node, S, x, wfront, wcount):
    """Take frame x off the list of all pages; if it was in the window, the next more recent page joins it.
    Returns the new (wfront, wcount)."""
    if node[W * x + INWIN]:
        node[W * x + INWIN] = 0
        wcount -= 1
        y = jk.rec_prev(node, W, wfront, ALL)  # more recent than the window's front (x == wfront: than x)
        if y != S:
            node[W * y + INWIN] = 1
            wcount += 1
            wfront = y
        elif x == wfront:  # nothing more recent: the window now holds every page
            wfront = jk.rec_next(node, W, x, ALL) if wcount > 0 else -1
    jk.rec_unlink(node, W, x, ALL)
    return wfront, wcount


@njit(cache=True, inline="always")
def _enter(node, S, f, w, window, wfront, wcount):
    """Frame ``f`` to the front of the list of all pages, into the window while the window is not full (then
    every page is in it), and, if it stays clean, to the front of the clean list; a write makes it dirty.
    Returns ``(wfront, wcount, dirtied)``."""
    jk.rec_push_front(node, W, S, f, ALL)
    if wcount < window:  # the window is not full only while every page is in it: f joins, most recent
        node[W * f + INWIN] = 1
        wcount += 1
        wfront = f
    dirtied = 0
    if w and node[W * f + DIRTY] == 0:
        node[W * f + DIRTY] = 1
        dirtied = 1
    elif node[W * f + DIRTY] == 0:
        jk.rec_push_front(node, W, S, f, CLEAN)
    return wfront, wcount, dirtied


# The hooks of the per-reference loop (flashrepro.cache.driver). The registers: the lists' sentinel row, the
# window's size, its most recent frame and its page count.
@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(S, window, wfront, wcount)``."""
    sc = st.sc[0]
    return sc.frames, sc.window, sc.wfront, sc.wcount


@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """Frame ``f`` leaves both lists and re-enters at their fronts (:func:`_enter`)."""
    node = st.node
    S, window, wfront, wcount = r
    wfront, wcount = _leave(node, S, f, wfront, wcount)
    if node[W * f + DIRTY] == 0:
        jk.rec_unlink(node, W, f, CLEAN)
    wfront, wcount, dirtied = _enter(node, S, f, w, window, wfront, wcount)
    return (S, window, wfront, wcount), dirtied


@njit(cache=True, inline="always")
def _victim(st, r):
    """The least recently used clean page if it is in the window, else the LRU page (then dirty), off both lists;
    its frame is left clean."""
    node = st.node
    S, window, wfront, wcount = r
    c = jk.rec_back(node, W, S, CLEAN)
    f = c if c != S and node[W * c + INWIN] else jk.rec_back(node, W, S, ALL)
    wfront, wcount = _leave(node, S, f, wfront, wcount)
    d = node[W * f + DIRTY]
    if d:
        node[W * f + DIRTY] = 0
    else:
        jk.rec_unlink(node, W, f, CLEAN)
    return (S, window, wfront, wcount), np.int64(f), np.int64(node[W * f + PAGE]), d


@njit(cache=True, inline="always")
def _admit(st, r, f, p, w):
    """Frame ``f`` (clean, on no list) holds page ``p`` and enters at the fronts (:func:`_enter`)."""
    node = st.node
    S, window, wfront, wcount = r
    node[W * f + PAGE] = p
    wfront, wcount, _ = _enter(node, S, f, w, window, wfront, wcount)
    return S, window, wfront, wcount


@njit(cache=True, inline="always")
def _end(st, r):
    """Store the window's front and count."""
    st.sc[0].wfront, st.sc[0].wcount = r[2], r[3]


_cflru_step = driver.compose("cflru", begin=_begin, hit=_hit, victim=_victim, admit=_admit, end=_end)
"""CFLRU over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above): as LRU, but a miss with a
full cache evicts the least recently used clean page of the clean-first window if it holds one, else the LRU page.
The lists link frames, not pages (as in ``lru``): the one random access per reference, ``page_frame[p]``, is
prefetched ahead, and the rest stays in the frames' rows (see ``W``)."""


@register("cflru", CFLRUParams)
class CFLRU(Kernel):
    """CFLRU: LRU that evicts clean pages from its clean-first region before any dirty page."""

    step_kernel = staticmethod(_cflru_step)

    def new_state(self, units, tiers, params):
        capacity = tiers["capacity_pages"]
        f = params.window_fraction
        n = units.n
        frames = min(capacity, n)  # a cache larger than the footprint never fills
        sc = driver.new_scalars(frames, SCALARS)
        sc[0].window = max(1, int(round(f * capacity))) if f > 0 else 0
        sc[0].wfront = -1
        node = jk.rec_new(frames, W, (ALL, CLEAN))
        node[W * np.arange(frames)[:, None] + np.array([DIRTY, INWIN])] = 0
        return CFLRUState(np.full(n, -1, np.int32), node, sc)

    def resident(self, state):
        node = state.node
        frames = jk.rec_back_to_front(node, W, state.sc[0].frames, ALL, state.sc[0].used)
        return node[W * frames + PAGE].astype(np.int64), node[W * frames + DIRTY]
