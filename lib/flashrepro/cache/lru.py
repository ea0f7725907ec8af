"""LRU with dirty pages: an intrusive doubly linked list of frames, most recently used at the front."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import driver
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class LRUParams:
    """Parameters of LRU.

    Attributes
    ----------
    cache_reads : bool
        True (default): a read miss allocates the page (a demand-paged cache). False: a read miss reads the
        page from the device without allocating it, so only written pages are ever held (a write buffer;
        paper 3, CLOCK-HBM, leaves open whether its baselines cache reads).
    """

    cache_reads: bool = True


class LRUState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not resident
    node: np.ndarray  # a row of W int32 per frame (jitkit records, sentinel row = frames): PREV, NEXT, PAGE, DIRTY
    sc: np.recarray  # the scalars (driver.new_scalars): sc[0].used, sc[0].frames


# A frame's row: its links on the list of frames in use (most recently used first), its page and its dirty bit.
# One 16-byte row per frame: a hit touches one row, not a cache line of the links and one of the dirty bits
# (1.3x at 1% capacity on the bench stream, measured).
LINKS, PAGE, DIRTY = 0, 2, 3
W = 4


def new_lru_state(n_units: int, capacity: int) -> LRUState:
    """Frames for min(capacity, n_units) pages: a cache larger than the footprint never fills."""
    frames = min(capacity, n_units)
    sc = driver.new_scalars(frames)
    node = jk.rec_new(frames, W, (LINKS,))
    node[W * np.arange(frames) + DIRTY] = 0
    return LRUState(np.full(n_units, -1, np.int32), node, sc)


@njit(cache=True, inline="always")
def _unlink(node, f):
    """jitkit.rec_unlink of frame f (which is pushed back at once, so its own links are left as they are), through
    jk.load/jk.store: every link is a frame or the sentinel. With the unchecked accesses here and in the loop LRU
    is 1.1-1.3x faster (measured)."""
    a = np.int64(jk.load(node, W * f + LINKS))
    b = np.int64(jk.load(node, W * f + LINKS + 1))
    jk.store(node, W * a + LINKS + 1, b)
    jk.store(node, W * b + LINKS, a)


@njit(cache=True, inline="always")
def _push_front(node, S, f):
    """jitkit.rec_push_front of frame f, through jk.load/jk.store."""
    first = np.int64(jk.load(node, W * S + LINKS + 1))
    jk.store(node, W * f + LINKS, S)
    jk.store(node, W * f + LINKS + 1, first)
    jk.store(node, W * first + LINKS, f)
    jk.store(node, W * S + LINKS + 1, f)


# The hooks of the per-reference loop (flashrepro.cache.driver). The registers are the list's sentinel row.
@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(S,)``, the list's sentinel row (= frames)."""
    return (st.sc[0].frames,)


@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """Move frame ``f`` to the front of the list; a write makes it dirty."""
    node = st.node
    _unlink(node, f)
    _push_front(node, r[0], f)
    d = jk.load(node, W * f + DIRTY)
    jk.store(node, W * f + DIRTY, d | w)
    return r, (d | w) - d


@njit(cache=True, inline="always")
def _victim(st, r):
    """The back frame, the least recently used page's, off the list; the next victim's ``page_frame`` entry is
    fetched now."""
    node, S = st.node, r[0]
    f = np.int64(jk.load(node, W * S + LINKS))
    _unlink(node, f)
    jk.prefetch(st.page_frame, jk.load(node, W * np.int64(jk.load(node, W * S + LINKS)) + PAGE))
    return r, f, np.int64(jk.load(node, W * f + PAGE)), jk.load(node, W * f + DIRTY)


@njit(cache=True, inline="always")
def _admit(st, r, f, p, w):
    """Frame ``f`` holds page ``p`` at the front of the list."""
    node = st.node
    jk.store(node, W * f + PAGE, p)
    jk.store(node, W * f + DIRTY, w)
    _push_front(node, r[0], f)
    return r


@njit(cache=True, inline="always")
def _end(st, r):
    """Nothing to store: the sentinel does not move."""


_lru_step = driver.compose("lru", begin=_begin, hit=_hit, victim=_victim, admit=_admit, end=_end)
"""LRU over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above): a hit moves its frame to the
front of the list; a miss takes a free frame or the back one. The list links frames, not pages: at a small capacity
every list operation stays in a few cache lines, and the only random access per reference is ``page_frame[p]``
(prefetched ahead), as in CLOCK."""


@njit(cache=True)
def lru_order(state):
    """Resident units, least recently used first (the order a flush writes them), and their dirty bits."""
    node = state.node
    frames = jk.rec_back_to_front(node, W, state.sc[0].frames, LINKS, state.sc[0].used)
    order = np.empty(frames.shape[0], np.int64)
    dirty = np.empty(frames.shape[0], np.uint8)
    for k in range(frames.shape[0]):
        order[k] = node[W * frames[k] + PAGE]
        dirty[k] = node[W * frames[k] + DIRTY]
    return order, dirty


@register("lru", LRUParams)
class LRU(Kernel):
    """Least recently used: evict the page whose last reference is oldest."""

    def new_state(self, units, tiers, params):
        return new_lru_state(units.n, tiers["capacity_pages"])

    step_kernel = staticmethod(_lru_step)

    rules = staticmethod(driver.no_read_alloc)

    def resident(self, state):
        return lru_order(state)
