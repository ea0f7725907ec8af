"""One-block lookahead (OBL), a prefetcher for the per-reference loop, and ``lru_obl``: LRU with it.

OBL (A. J. Smith, "Sequentiality and prefetching in database systems", TODS 1978) reads page p + 1 ahead
after a read of page p: after a read miss, and with *tagged* prefetch also after the first request to a page
that a prefetch brought in (so a sequential scan that hits its prefetched pages keeps prefetching). With
``sequential_k`` = k > 0 it prefetches only when the k reads before p were p - k, ..., p - 1 in that order,
libCacheSim's sequential confidence. Writes neither trigger it nor enter that history: a write is no sign of a
sequential read.

It is written as the prefetcher hooks of :mod:`flashrepro.cache.driver` (told of finds, evictions and
admissions, asked what to read ahead), so it composes with any page policy's hooks; ``lru_obl`` composes it
with LRU's. A prefetched page enters the policy like a requested one (LRU's front), clean. The unit space has a
unit for the page after each touched one (``unit_halo`` = 1), so the unit after a read's unit is its next page.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C
from . import driver, lru
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class OBLParams:
    """Parameters of LRU with one-block lookahead.

    Attributes
    ----------
    tagged : bool
        True (default; Smith's tagged prefetch): the first request to a prefetched page triggers the next
        prefetch too. False: only a read miss does (plain OBL, which stops prefetching along a sequential run
        once its pages are found in the cache).
    sequential_k : int
        Prefetch only when the ``sequential_k`` reads before the trigger were the pages just before it, in
        order (libCacheSim's sequential confidence); 0 (default): no such condition.
    """

    tagged: bool = True
    sequential_k: int = 0

    def __post_init__(self):
        if not 0 <= self.sequential_k <= 64:
            raise ValueError(f"sequential_k must be 0 to 64, got {self.sequential_k}")


class OBLState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not resident (LRU's)
    node: np.ndarray  # LRU's frame rows
    sc: np.recarray  # the scalars: LRU's (driver.SCALARS) and SCALARS below
    pf: np.ndarray  # uint8 per frame: 1 while its page was prefetched and not requested since
    recent: np.ndarray  # int64 ring of the last sequential_k reads' units (one slot when sequential_k = 0)


SCALARS = [("k", np.int64),  # sequential_k
           ("at", np.int64),  # the ring's next slot
           ("tagged", np.int64)]


# The prefetcher's registers: (the ring's next slot, 1 if the current request found a prefetched page).
@njit(cache=True, inline="always")
def _pf_begin(st):
    """The registers: the ring's next slot, and no find yet."""
    return st.sc[0].at, 0


@njit(cache=True, inline="always")
def _pf_found(st, q, f):
    """A request found frame ``f``: if its page was prefetched, it counts as a prefetch hit once."""
    x = np.int64(jk.load(st.pf, f))
    jk.store(st.pf, f, 0)
    return (q[0], x), x


@njit(cache=True, inline="always")
def _pf_evicted(st, q, f):
    """Frame ``f``'s page leaves: an unrequested one if its flag is still set."""
    return q, np.int64(jk.load(st.pf, f))


@njit(cache=True, inline="always")
def _pf_admitted(st, q, f, prefetched):
    """Frame ``f``'s new page was prefetched (flag set) or requested (clear)."""
    jk.store(st.pf, f, prefetched)
    return q


@njit(cache=True, inline="always")
def _pf_next(st, q, p, hit, w):
    """After a read of unit ``p``: ``p + 1`` if it was a miss (or, tagged, found a prefetched page) and the
    ``k`` reads before it were ``p - k .. p - 1``; the read joins that history. After a write: nothing."""
    at, found = q
    if w:
        return (at, 0), -1
    sc = st.sc[0]
    k = sc.k
    ahead = not hit or (found != 0 and sc.tagged != 0)
    if k > 0:
        for j in range(1, k + 1):  # the ring holds the last k reads, the most recent at at - 1
            if jk.load(st.recent, (at - j + k) % k) != p - j:
                ahead = False
        jk.store(st.recent, at, p)
        at = (at + 1) % k
    return (at, 0), p + 1 if ahead else -1


@njit(cache=True, inline="always")
def _pf_end(st, q):
    """The ring's next slot back into the scalars."""
    st.sc[0].at = q[0]


PREFETCHER = {"pf_begin": _pf_begin, "pf_found": _pf_found, "pf_evicted": _pf_evicted, "pf_admitted": _pf_admitted,
              "pf_next": _pf_next, "pf_end": _pf_end}
"""OBL's hooks, to compose with any page policy's (:func:`flashrepro.cache.driver.compose`); its state needs
``pf``, ``recent`` and the scalars of :data:`SCALARS` beside the policy's."""

_lru_obl_step = driver.compose("lru_obl", prefetcher=PREFETCHER, begin=lru._begin, hit=lru._hit, victim=lru._victim,
                               admit=lru._admit, end=lru._end)


@register("lru_obl", OBLParams)
class LRUOBL(Kernel):
    """LRU with one-block lookahead: a read miss (or, tagged, a prefetch hit) reads the next page ahead."""

    caps = C.Caps(prefetches=True)
    counters = C.BASE + driver.PREFETCH_COUNTERS
    step_kernel = staticmethod(_lru_obl_step)

    def unit_halo(self, params, page_bytes):
        return 1  # the page after each touched one, which a read of it prefetches

    def log_rows_per_ref(self, tiers, params):
        return driver.PREFETCH_LOG_ROWS  # a read, a prefetch, and a write-back for each

    def new_state(self, units, tiers, params):
        base = lru.new_lru_state(units.n, tiers["capacity_pages"])
        frames = int(base.sc[0].frames)
        sc = driver.new_scalars(frames, SCALARS)
        sc[0].k, sc[0].tagged = params.sequential_k, params.tagged
        return OBLState(base.page_frame, base.node, sc, np.zeros(frames, np.uint8),
                        np.full(max(params.sequential_k, 1), -2**62, np.int64))  # no read yet: never p - j

    def resident(self, state):
        return lru.lru_order(state)
