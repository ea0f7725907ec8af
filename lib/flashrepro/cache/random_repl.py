"""RANDOM replacement with dirty pages: evict a resident page drawn uniformly, from a seeded stream.

The resident pages sit in an array of frames (in no particular order); a miss in a full cache draws a frame
uniformly from all of them, from a splitmix64 stream that starts at ``seed`` (the stream of the FTL's
``random`` victim rule and FEMU's ``ftl_gc_rand``), so every run with the same seed is the same run. The
new page takes the victim's frame. Writes as in LRU: a write miss allocates the page without reading it,
a write makes the page dirty, and a dirty page costs a device write when it is evicted or flushed.
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
class RandomParams:
    """Parameters of RANDOM replacement.

    Attributes
    ----------
    seed : int
        Start of the splitmix64 stream the victims are drawn from (0 to 2**63 - 1). One draw per eviction:
        the victim is the frame ``draw % frames``.
    """

    seed: int = 0


class RandomState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    dirty: np.ndarray  # uint8 per frame
    sc: np.recarray  # the scalars (driver.new_scalars): sc[0].used, sc[0].frames
    rng: np.ndarray  # uint64[1]: the splitmix64 state


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _splitmix64(z):
    """``(next state, draw)`` of the splitmix64 stream in state ``z`` (the state advances by the golden-ratio
    constant before each draw, as :func:`flashrepro.ftl.victims.splitmix64`)."""
    z = z + _GOLDEN
    x = (z ^ (z >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return z, x ^ (x >> np.uint64(31))


# The hooks of the per-reference loop (flashrepro.cache.driver): a hit changes nothing but the dirty bit, a page
# enters the frame it takes (driver.hit_dirty_only, driver.admit_to_frame); the registers are the stream's state
# and the frames.
@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(z, frames)``, the splitmix64 state and the frames as uint64."""
    return st.rng[0], np.uint64(st.sc[0].frames)


@njit(cache=True, inline="always")
def _victim(st, r):
    """A frame drawn uniformly from the stream: ``draw % frames`` (modulo bias below frames / 2**64: at most
    2**-33 here)."""
    z, frames = r
    z, x = _splitmix64(z)
    f = np.int64(x % frames)
    return (z, frames), f, np.int64(jk.load(st.frame_page, f)), jk.load(st.dirty, f)


@njit(cache=True, inline="always")
def _end(st, r):
    """Store the stream's state."""
    st.rng[0] = r[0]


_random_step = driver.compose("random", begin=_begin, hit=driver.hit_dirty_only, victim=_victim,
                              admit=driver.admit_to_frame, end=_end)
"""RANDOM over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above): a miss takes a free
frame or one drawn uniformly from the seeded stream ``rng``."""


@register("random", RandomParams)
class Random(Kernel):
    """RANDOM: evict a resident page drawn uniformly at random (seeded splitmix64 stream)."""

    step_kernel = staticmethod(_random_step)

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = driver.new_scalars(frames)
        return RandomState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                           sc, np.array([params.seed], np.uint64))

    def resident(self, state):
        frames = np.arange(state.sc[0].used)  # frame order: the order the reference keeps its slots in
        return state.frame_page[frames].astype(np.int64), state.dirty[frames]
