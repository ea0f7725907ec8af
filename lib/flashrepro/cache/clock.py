"""CLOCK (second chance) with dirty pages: a circular array of frames and one reference bit per frame."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import driver
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class ClockParams:
    """Parameters of CLOCK.

    Attributes
    ----------
    insert_referenced : bool
        False (default, as libCacheSim's ``Clock``): a new page enters with its reference bit clear, so
        it is evicted on the hand's next pass unless referenced again. True: it enters with the bit set.
    cache_reads : bool
        True (default): a read miss allocates the page. False: a read miss reads the page from the device
        without allocating it (a write buffer; see :class:`~flashrepro.cache.lru.LRUParams`).
    """

    insert_referenced: bool = False
    cache_reads: bool = True


class ClockState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    flags: np.ndarray  # uint8 per frame: REF | DIRTY (one byte per frame: one access per hit, not two)
    sc: np.recarray  # the scalars (driver.new_scalars): used, frames and SCALARS


SCALARS = [("hand", np.int64), ("init_ref", np.int64)]  # the hand; the flags a new page enters with (REF or 0)
REF, DIRTY = np.uint8(1), np.uint8(2)  # the frame's flag bits; DIRTY >> 1 is the dirty bit as 0/1


# The hooks of the per-reference loop (flashrepro.cache.driver). Both bits of a frame are in one byte: a hit reads
# and writes one byte instead of one in each of two arrays. The registers: the hand, the frames, a new page's flags.
@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(hand, frames, init_ref)``."""
    sc = st.sc[0]
    return sc.hand, sc.frames, np.uint8(sc.init_ref)


@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """Set frame ``f``'s reference bit, and its dirty bit on a write."""
    old = jk.load(st.flags, f)
    jk.store(st.flags, f, old | REF | (w << 1))
    return r, w & ~(old >> 1)  # the page was clean and this is a write


@njit(cache=True, inline="always")
def _victim(st, r):
    """Sweep the hand, clearing set reference bits, to the first frame without one; the new page there is the
    last the hand will reach, so the hand moves past it."""
    hand, frames, init_ref = r
    flags = st.flags
    while jk.load(flags, hand) & REF:
        jk.store(flags, hand, jk.load(flags, hand) & DIRTY)
        hand += 1
        if hand == frames:
            hand = 0
    f = hand
    hand += 1
    if hand == frames:
        hand = 0
    return (hand, frames, init_ref), f, np.int64(jk.load(st.frame_page, f)), jk.load(flags, f) >> 1


@njit(cache=True, inline="always")
def _admit(st, r, f, p, w):
    """Frame ``f`` holds page ``p`` with the reference bit of a new page (``insert_referenced``), dirty if ``w``."""
    jk.store(st.frame_page, f, p)
    jk.store(st.flags, f, r[2] | (w << 1))
    return r


@njit(cache=True, inline="always")
def _end(st, r):
    """Store the hand."""
    st.sc[0].hand = r[0]


_clock_step = driver.compose("clock", begin=_begin, hit=_hit, victim=_victim, admit=_admit, end=_end)
"""CLOCK over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above): a hit sets its frame's
reference bit; a miss takes a free frame or sweeps the hand to the first frame without one."""


@register("clock", ClockParams)
class Clock(Kernel):
    """CLOCK: a hand sweeps the frames, clearing reference bits, and evicts the first unreferenced page."""

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = driver.new_scalars(frames, SCALARS)
        sc[0].init_ref = REF if params.insert_referenced else 0
        return ClockState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8), sc)

    step_kernel = staticmethod(_clock_step)

    rules = staticmethod(driver.no_read_alloc)

    def resident(self, state):
        sc = state.sc[0]
        hand, used, capacity = sc.hand, sc.used, sc.frames
        frames = (hand + np.arange(used)) % used if used == capacity else np.arange(used)  # hand order
        return state.frame_page[frames].astype(np.int64), state.flags[frames] >> 1
