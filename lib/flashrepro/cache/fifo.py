"""FIFO with dirty pages: a circular array of frames and a hand at the oldest inserted page.

A hit changes nothing (no reference bit, no reordering): the page leaves ``capacity`` misses after it came
in. It is CLOCK without reference bits, and the baseline of the characteristic-time approximation
(:mod:`flashrepro.theory.cache`). Writes as in LRU: a write miss allocates the page without reading it, a
write makes the page dirty, and a dirty page costs a device write when it is evicted or flushed.
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
class FIFOParams:
    """FIFO has no parameters."""


class FIFOState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    dirty: np.ndarray  # uint8 per frame
    sc: np.recarray  # the scalars (driver.new_scalars): used, frames and SCALARS


SCALARS = [("hand", np.int64)]  # the frame of the oldest inserted page, once the cache is full


# The hooks of the per-reference loop (flashrepro.cache.driver): a hit changes nothing but the dirty bit, a page
# enters the frame it takes (driver.hit_dirty_only, driver.admit_to_frame); the registers are the hand and frames.
@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(hand, frames)``."""
    return st.sc[0].hand, st.sc[0].frames


@njit(cache=True, inline="always")
def _victim(st, r):
    """The frame under the hand, the oldest page's (the frames filled in order, so frame 0 is the oldest when the
    hand starts); the new page will be the newest, so the hand moves on (its next page's entry fetched now)."""
    hand, frames = r
    f = hand
    hand += 1
    if hand == frames:
        hand = 0
    jk.prefetch(st.page_frame, jk.load(st.frame_page, hand))
    return (hand, frames), f, np.int64(jk.load(st.frame_page, f)), jk.load(st.dirty, f)


@njit(cache=True, inline="always")
def _end(st, r):
    """Store the hand."""
    st.sc[0].hand = r[0]


_fifo_step = driver.compose("fifo", begin=_begin, hit=driver.hit_dirty_only, victim=_victim,
                            admit=driver.admit_to_frame, end=_end)
"""FIFO over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above): a hit changes no order;
a miss takes a free frame or the one under the hand, the oldest page's."""


def fifo_order(state: FIFOState) -> np.ndarray:
    """Frames of the resident pages, oldest inserted first (the order a flush writes them)."""
    sc = state.sc[0]
    hand, used, capacity = int(sc.hand), int(sc.used), int(sc.frames)
    return (hand + np.arange(used)) % used if used == capacity and used else np.arange(used)


@register("fifo", FIFOParams)
class FIFO(Kernel):
    """FIFO: evict the page inserted longest ago; hits do not reorder."""

    step_kernel = staticmethod(_fifo_step)

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = driver.new_scalars(frames, SCALARS)
        return FIFOState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                         sc)

    def resident(self, state):
        frames = fifo_order(state)
        return state.frame_page[frames].astype(np.int64), state.dirty[frames]
