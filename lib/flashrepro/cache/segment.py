"""Segment prefetching with fixed and adaptive cache culling (paper 2: Baek 2011, Sec. 4), and its baselines.

Memory is allocated per 4 KiB block; prefetching and list management are per *segment* of k blocks, the
SSD's operating unit (8-128 KiB). A request to a cached block is a cache hit; a request to a block that a
prefetch read and nobody has requested yet is a prefetch hit, and the block becomes cached.

* ``seg_lru`` (the paper's "existing"): one segment LRU, demanded blocks only; a read request is split at
  segment boundaries and each segment's missing blocks are read as one request per contiguous run (in the
  paper's RAID driver the segment is the memory unit and the largest I/O).
* ``seg_prefetch``: a read miss reads the whole aligned segment (blocks before and after the demanded
  ones); one segment LRU, no culling (Fig. 8's "segment prefetch only").
* ``seg_cull_fixed`` / ``seg_cull_adaptive`` (Sec. 4.2, Fig. 5): two lists of segments. L1 holds segments
  read from storage, with cached and prefetched blocks; L2 only cached blocks. A segment read from storage
  enters L1's MRU end; a cache or prefetch hit in L1 moves it there. When a newly read segment makes L1
  exceed N1 segments, L1's LRU segment moves to L2's MRU end and its unrequested prefetched blocks are
  dropped (*culled*). A cache hit in L2 moves the segment to L2's MRU end. When memory is short, L2's LRU
  segment is evicted. Fixed: N1 = M / 2k. Adaptive: B1 and B2 are the LRU ends of L1 and L2, of b segments
  each; after every ``update_every`` cache-or-prefetch hits in B1, N1 <- N1 + S (dP - a dC), dP the
  prefetch hits in B1 and dC the cache hits in B2 since the last update, a = all blocks in B1 / cached
  blocks in B2.

Choices the paper leaves open (each a parameter or stated here, and shown in notebook 02):

* N1 is real-valued, starting at M/2k (within its bounds), at most M/k and at least B1's size
  b = max(1, round(``window_fraction`` M/k)) (``n1_floor="window"``; with a floor of 0 the feedback locks
  up: see ``AdaptiveParams``); the update is skipped (its counts reset) when B2 holds no cached block, where
  a is undefined. While a list is shorter than its window, the whole list is the window and updates run
  (``partial_windows="count"``; ``"skip"`` waits until both windows are full).
* Hits are counted per block (``count_hits``); hits beyond ``update_every`` are dropped at each update
  (``carry_hits``); a request's blocks are handled together at its first page. The adaptive feedback counts
  read hits only (the paper's hit rates are about reads).
* Writes (the paper is silent): no prefetch; the written blocks become cached and dirty without a read; a
  write to a segment not in memory puts it at L2's MRU end (``write_into="l2"``: it holds only cached
  blocks; ``"l1"``: into L1), a write to a resident segment moves it to the MRU end of its list. Dirty
  blocks are written back when their segment is evicted, one request per contiguous dirty run.
* A newly read segment's room is made by evicting from L2 first and culling L1 back to N1 after it joins
  (``room_first="evict"``; ``"cull"`` culls first). When memory is short and L2 is empty, L1's LRU segment
  is culled into L2 first.
* When culling happens (``cull_when``): the paper culls as soon as a newly read segment makes L1 exceed N1
  (``"always"``, the default). ``"memory_short"`` is the other reading, where L1 may outgrow N1 while
  memory is free and is cut back to N1 only when a block needs room (before L2 gives up a segment).
* A prefetching read reads the whole aligned segment (the operating unit), blocks already held included.

The loop (:func:`_seg_step`: requests split at segment boundaries, each segment's blocks counted and served) is
written once; each policy is its hooks, composed into a copy of it at compile time (:func:`compose`): ``fetch``
(which blocks a read miss brings in: seg_lru's missing ones, the others' whole segment), ``read`` (their device
reads: in runs, or the segment in one request), whether it culls (two lists) or keeps one list, and adaptive
culling's ``window_hits`` and ``feedback``.
"""

from __future__ import annotations

import dataclasses
import math
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from ..traces.trace import Event
from . import contract as C
from .registry import Kernel, register

ONE = np.uint64(1)
MODE_LRU, MODE_PREFETCH, MODE_FIXED, MODE_ADAPTIVE = 0, 1, 2, 3
CULL_WHEN = {"always": 0, "memory_short": 1}
WRITE_INTO = {"l2": 0, "l1": 1}
ROOM_FIRST = {"evict": 0, "cull": 1}
PARTIAL_WINDOWS = {"count": 0, "skip": 1}
COUNT_HITS = {"block": 0, "request": 1}
UPDATE_AT = {"step": 0, "hit": 1}
WINDOW_ROUND = {"nearest": round, "floor": lambda x: math.floor(x + 1e-9), "ceil": lambda x: math.ceil(x - 1e-9)}


def _unit_pages(segment_kib: int, page_bytes: int) -> int:
    k, r = divmod(segment_kib * 1024, page_bytes)
    if r or not 1 <= k <= 64:
        raise ValueError(f"segment_kib={segment_kib} must be 1 to 64 whole pages of {page_bytes} bytes")
    return k


@dataclasses.dataclass(frozen=True)
class SegmentParams:
    """Parameters of the segment policies.

    Attributes
    ----------
    segment_kib : int
        The segment (prefetch and list unit): 8-128 KiB in the paper; a whole number of pages, at most 64.
    """

    segment_kib: int = 32

    def __post_init__(self):
        if self.segment_kib < 1:
            raise ValueError(f"segment_kib must be positive, got {self.segment_kib}")


@dataclasses.dataclass(frozen=True)
class CullParams(SegmentParams):
    """Parameters of culling with L1 fixed at half the memory.

    Attributes
    ----------
    cull_when : str
        ``"always"`` (the paper's text): a newly read segment that makes L1 exceed N1 culls L1's LRU segment
        at once. ``"memory_short"``: L1 may exceed N1 while memory is free; it is cut back to N1 only when a
        block needs room.
    write_into : str
        Where a write to a segment not in memory puts it (the paper is silent on writes): ``"l2"`` (default;
        it holds only cached blocks, L2's kind) or ``"l1"`` (every segment enters L1 and culls it back to N1,
        as a read one does).
    room_first : str
        The order of the two ways memory is freed for a newly read segment (Sec. 4.2 gives both, not their
        order): ``"evict"`` (default) evicts L2's LRU segments until the segment fits, then culls L1 back to
        N1; ``"cull"`` culls L1 back to N1 first (dropping unrequested prefetched blocks) and evicts from L2
        only for what is still missing.
    """

    cull_when: str = "always"
    write_into: str = "l2"
    room_first: str = "evict"

    def __post_init__(self):
        super().__post_init__()
        for name, allowed in (("cull_when", CULL_WHEN), ("write_into", WRITE_INTO), ("room_first", ROOM_FIRST)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {sorted(allowed)}, got {getattr(self, name)!r}")


@dataclasses.dataclass(frozen=True)
class AdaptiveParams(CullParams):
    """Parameters of adaptive culling (Sec. 4.2).

    Attributes
    ----------
    cull_when : str
        As for ``seg_cull_fixed`` (``CullParams``).
    step : float
        S, the feedback gain of N1 <- N1 + S (dP - a dC), in segments per block hit. Not given by the paper.
    window_fraction : float
        The size of B1 and B2 as a fraction of memory ("about 5%"), at least one segment.
    update_every : int
        Cache-or-prefetch hits in B1 between updates (3 in the paper's experiments).
    n1_floor : str
        N1's lower bound, which the paper does not give. ``"window"`` (default): B1's size, so L1 always
        keeps a B1 and the feedback, which runs only on hits in B1, keeps running. ``"zero"``: N1 may reach
        0; then every new segment is culled at once, B1 is empty, no hit ever lands in it, and N1 stays at 0
        for the rest of the run (notebook 02 shows this lock-up).
    partial_windows : str
        What an update does while B1 or B2 holds fewer than its b segments (a list shorter than its window,
        as in warm-up; the paper sizes the windows, not what happens before they fill): ``"count"``
        (default) takes the whole shorter list as the window and updates; ``"skip"`` updates only when both
        windows are full (a due update is skipped, its counts reset, like one where a = 0/0).
    count_hits : str
        The unit of "three cache or prefetch hits in B1" and of dP and dC: ``"block"`` (default; a request's
        blocks in one segment count one each) or ``"request"`` (one per request and segment with any).
    carry_hits : bool
        When a request step brings the hits in B1 to ``update_every`` or more, one update runs and the hits
        beyond are dropped (False, default) or count toward the next updates (True: an update for every
        ``update_every`` hits, the extra ones after the first seeing no new dP or dC).
    update_at : str
        When the count is checked: after each request's step in one segment (``"step"``, default: a request's
        hits in a segment arrive together) or at the very hit that makes ``update_every`` (``"hit"``: hits of a
        step are taken one by one in block order, dP counted up to that hit; never any hits left over).
    feedback_writes : bool
        Whether write hits feed B1's count, dP and dC (False, default: the paper's hit rates are about reads;
        True: "a request to a cached block" is a hit, writes included).
    n1_cap : str
        N1's upper bound, which the paper does not give: ``"memory"`` (default, M/k segments) or ``"none"``.
    window_round : str
        B1's and B2's size in segments from ``window_fraction`` M/k: ``"nearest"`` (default; halves to even),
        ``"floor"`` or ``"ceil"``; at least one segment either way.
    """

    step: float = 1.0
    window_fraction: float = 0.05
    update_every: int = 3
    n1_floor: str = "window"
    partial_windows: str = "count"
    count_hits: str = "block"
    carry_hits: bool = False
    update_at: str = "step"
    feedback_writes: bool = False
    n1_cap: str = "memory"
    window_round: str = "nearest"

    def __post_init__(self):
        super().__post_init__()
        if self.step < 0 or not 0 < self.window_fraction <= 1 or self.update_every < 1:
            raise ValueError("step must be >= 0, window_fraction in (0, 1], update_every >= 1")
        for name, allowed in (("n1_floor", ("window", "zero")), ("partial_windows", PARTIAL_WINDOWS),
                              ("count_hits", COUNT_HITS), ("update_at", UPDATE_AT), ("n1_cap", ("memory", "none")),
                              ("window_round", WINDOW_ROUND)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {sorted(allowed)}, got {getattr(self, name)!r}")


FRAME = np.dtype([("present", np.uint64), ("pf", np.uint64), ("prev", np.int32), ("next", np.int32),
                  ("seg", np.int32), ("which", np.int8), ("inw", np.uint8), ("wt", np.uint8), ("spare", np.uint8)])
"""A frame's record, 32 bytes: the bitmaps ``present`` (blocks in memory) and ``pf`` (prefetched blocks nobody
has requested yet), its links on L1 or L2 (jitkit's ``rlist``), its segment, ``which`` list it is on (NO_LIST,
L1, L2), whether it is in that list's LRU window (``inw``, B1 or B2) and what it adds to the window's sum
(``wt``, see _weight)."""
NO_LIST, L1, L2 = 0, 1, 2  # a frame's ``which``


_DEFAULTS = AdaptiveParams()  # every segment setting at its default (new_state reads those a policy lacks)


class SegState(typing.NamedTuple):
    """The state is kept per *frame*, not per segment: a segment with blocks in memory holds one of
    min(M, segments) frames, and the lists link frames (as LRU's list links frames, not pages). The state of
    the segments in memory is packed, and what serving, culling or evicting a segment reads and moves is one
    aligned 32-byte record per frame (its list neighbours' too): one cache line per frame touched. The only
    random access per request is ``seg_frame[s]``, prefetched ahead."""

    seg_frame: np.ndarray  # int32 per segment: the frame holding its blocks, -1 while it holds none
    fr: np.ndarray  # FRAME per frame, then the sentinels of L1 (F) and L2 (F + 1)
    dirty: np.ndarray  # uint64 per frame: dirty blocks (read by writes and evictions only)
    free: np.ndarray  # int32: frames not in use, a stack of sc.n_free
    sc: np.recarray  # the scalars, one record of SCALARS (jitkit.scalars); a step reads ``sc = st.sc[0]``


SCALARS = [
    ("used", np.int64),  # blocks in memory
    ("cap", np.int64),  # the memory M, in blocks
    ("k", np.int64),  # blocks a segment
    ("k_shift", np.int64),  # log2(k) when k is a power of two, else -1
    ("n_free", np.int64),  # frames on the stack ``free``
    ("n_list", np.int64, (2,)),  # segments on L1 and on L2 (index: the list minus L1)
    ("b", np.int64),  # B1's and B2's size in segments; 0 but for adaptive culling (no windows)
    ("wfront", np.int64, (2,)),  # each list's window (B1, B2): its front (most recent) frame, -1 while empty,
    ("wcount", np.int64, (2,)),  # its frames,
    ("wsum", np.int64, (2,)),  # and its blocks (all of them in B1, the cached ones in B2)
    ("hits_b1", np.int64),  # cache-or-prefetch hits in B1 toward the next update of N1
    ("dp", np.int64),  # dP: prefetch hits in B1 since the last update
    ("dc", np.int64),  # dC: cache hits in B2 since the last update
    ("n1", np.float64),  # N1, L1's target size in segments
    # the parameters (AdaptiveParams, CullParams); the choices are 0 (the default) or 1
    ("update_every", np.int64),
    ("step", np.float64),  # S
    ("n1_max", np.float64),
    ("n1_min", np.float64),
    ("short_only", np.int64),  # cull_when="memory_short"
    ("write_l1", np.int64),  # write_into="l1"
    ("cull_first", np.int64),  # room_first="cull"
    ("full_windows", np.int64),  # partial_windows="skip"
    ("per_request", np.int64),  # count_hits="request"
    ("carry", np.int64),  # carry_hits
    ("at_hit", np.int64),  # update_at="hit"
    ("feed_writes", np.int64),  # feedback_writes
]

# counters after the base ones
(PF_HITS, PREFETCHED, CULLED, PF_EVICTED, LIST_OPS, N1_UPDATES, N1_SKIPPED, HITS_B1_C, HITS_B2_C, L1_HITS,
 L2_HITS) = range(C.N_BASE, C.N_BASE + 11)
SEGMENT_COUNTERS = C.BASE + (
    C.Counter("prefetch_hits", None, "requested blocks that a prefetch had read (they become cached)"),
    C.Counter("prefetched_pages", "prefetch", "blocks read by a prefetch that the request did not ask for"),
    C.Counter("culled_pages", None, "unrequested prefetched blocks dropped when their segment left L1"),
    C.Counter("prefetch_evicted", None, "unrequested prefetched blocks evicted with their segment"),
    C.Counter("list_operations", None, "segment list moves (the paper's list overhead, as a count)"),
    C.Counter("n1_updates", None, "adaptive updates of N1"),
    C.Counter("n1_skipped", None, "updates skipped because B2 held no cached block (or, with "
              "partial_windows='skip', a window was not full)"),
    C.Counter("hits_b1", None, "read hits (blocks) in B1 (adaptive culling only; writes too with feedback_writes)"),
    C.Counter("hits_b2", None, "read cache hits (blocks) in B2 (adaptive culling only; writes too with "
              "feedback_writes)"),
    C.Counter("hits_l1", None, "cache and prefetch hits (blocks) in L1"),
    C.Counter("hits_l2", None, "cache hits (blocks) in L2"),
)


# The steps of serving a request's blocks of one segment. Each is a function of its own, compiled without Numba's
# reference counting (the kernel allocates nothing; with it, every step that takes the state increfs and decrefs each
# of its arrays, atomically, which took three quarters of the kernel's time, perf). Most are plain functions, compiled
# once, which LLVM inlines into the kernel (its LLVM IR calls only _adapt, every update_every hits in B1). Numba
# inlines the ones that are too large for LLVM and on the path of every miss: _seg_ref, _serve, _room_for, _make_room,
# _settle, _cull_to and _cull, each called from one place but _cull (three); the four that call a policy's hooks are
# plain functions here, copied into each policy's loop with its hooks (compose) and inlined there. Numba-inlining
# every step at each of its call sites takes about 24 s to compile (measured); this, about 5. Frame records are
# reached through _fr and the flat arrays through jk.load / jk.store where the index is computed, which skips Numba's
# fix-up for negative indices: with the per-request tallies moved out of the loop (_seg_step), this took seg_prefetch
# from about 410 to 260 instructions a reference (callgrind).
@jk.njit_no_refcount
def _segment(u, k, k_shift):
    """The segment of unit u: a shift when k is a power of two (every setting the papers use), which saves
    the two integer divisions per request that took about a tenth of the kernel's time (perf)."""
    return u >> k_shift if k_shift >= 0 else u // k


@njit(cache=True, inline="always")
def _fr(st, f):
    """Frame f's record (f a frame or a sentinel, never -1): :func:`jitkit.record`."""
    return jk.record(st.fr, f)


@jk.njit_no_refcount
def _weight(st, f, lst):
    """What a segment adds to its window's sum: all its blocks in B1, its cached blocks in B2."""
    if lst == L1:
        return jk.popcount(_fr(st, f).present)
    return jk.popcount(_fr(st, f).present & ~_fr(st, f).pf)


@jk.njit_no_refcount
def _runs(mask):
    """The number of maximal runs of set bits: the bits whose lower neighbour is clear."""
    return jk.popcount(mask & ~(mask << ONE))


@jk.njit_no_refcount
def _all_blocks(k):
    """The bitmap of all k blocks of a segment."""
    return (ONE << np.uint64(k)) - ONE if k < 64 else ~np.uint64(0)


@jk.njit_no_refcount
def _log_runs(mask, s, k, log, nlog, ref, op, cause):
    """One log row per contiguous run of set bits of ``mask`` in segment s, lowest first."""
    b = 0
    while b < k:
        if (mask >> np.uint64(b)) & ONE:
            e = b
            while e + 1 < k and (mask >> np.uint64(e + 1)) & ONE:
                e += 1
            nlog = C.row(log, nlog, ref, op, cause, s * k + b, e - b + 1, 0)
            b = e + 1
        else:
            b += 1
    return nlog


@jk.njit_no_refcount
def _take_frame(st, s):
    """A free frame for segment s, whose blocks are about to enter memory (the caller has made room)."""
    sc = st.sc[0]
    sc.n_free -= 1
    f = jk.load(st.free, sc.n_free)
    jk.store(st.seg_frame, s, f)
    _fr(st, f).seg = s
    return f


@jk.njit_no_refcount
def _give_frame(st, f):
    """Frame f's segment has no block left in memory (its bitmaps are 0, it is on no list)."""
    sc = st.sc[0]
    jk.store(st.seg_frame, _fr(st, f).seg, -1)
    jk.store(st.free, sc.n_free, f)
    sc.n_free += 1


@jk.njit_no_refcount
def _leave(st, f, counters):
    """Take frame f off its list; if it was in its list's window, the next more recent one joins."""
    sc = st.sc[0]
    lst = _fr(st, f).which
    if lst == NO_LIST:
        return
    j = np.uint64(lst - L1)  # the list's index in the scalars' pairs (unsigned: no fix-up for negative ones)
    S = st.dirty.shape[0] + lst - 1
    if _fr(st, f).inw:  # (only adaptive culling keeps windows: B = 0 otherwise)
        _fr(st, f).inw = 0
        sc.wcount[j] -= 1
        sc.wsum[j] -= _fr(st, f).wt
        y = _fr(st, sc.wfront[j]).prev  # more recent than the front (f == front: than f)
        if y != S:
            _fr(st, y).inw = 1
            sc.wcount[j] += 1
            sc.wsum[j] += _fr(st, y).wt
            sc.wfront[j] = y
        elif f == sc.wfront[j]:  # nothing more recent: the window holds the whole list
            sc.wfront[j] = _fr(st, f).next if sc.wcount[j] > 0 else -1
    jk.rlist_unlink(st.fr, f)
    _fr(st, f).which = NO_LIST
    sc.n_list[j] -= 1
    counters[LIST_OPS] += 1


@jk.njit_no_refcount
def _join(st, f, lst, counters):
    """Put frame f at the MRU end of list ``lst`` (L1 or L2); it joins the window while that is not full."""
    sc = st.sc[0]
    S = st.dirty.shape[0] + lst - 1
    jk.rlist_push_front(st.fr, S, f)
    _fr(st, f).which = lst
    j = np.uint64(lst - L1)
    if sc.b > 0:  # (only adaptive culling keeps windows) a segment's blocks change only off the lists
        _fr(st, f).wt = _weight(st, f, lst)
        if sc.wcount[j] < sc.b:  # not full only while the window holds the whole list
            _fr(st, f).inw = 1
            sc.wcount[j] += 1
            sc.wsum[j] += _fr(st, f).wt
            sc.wfront[j] = f
    sc.n_list[j] += 1
    counters[LIST_OPS] += 1


@jk.njit_no_refcount
def _to_front(st, f, lst, counters):
    """Frame f, on list ``lst`` and outside its window, moves to the list's MRU end: what :func:`_leave` then
    :func:`_join` do to it, without their bookkeeping that cancels out. A frame outside its window leaves the
    window as it was, and the window is full (it holds fewer than B frames only while it holds the whole
    list), so the frame does not join it either. Changes the links and f's window weight; counts both moves."""
    S = st.dirty.shape[0] + lst - 1
    if _fr(st, S).next != f:
        jk.rlist_unlink(st.fr, f)
        jk.rlist_push_front(st.fr, S, f)
    if st.sc[0].b > 0:
        _fr(st, f).wt = _weight(st, f, lst)
    counters[LIST_OPS] += 2


@jk.njit_no_refcount
def _evict(st, f, counters, log, nlog, do_log, ref):
    """Evict frame f's segment (already off its list): write back its dirty blocks, free its memory."""
    sc = st.sc[0]
    d = jk.load(st.dirty, f)
    if d:
        counters[C.DEV_WRITES_EVICT] += jk.popcount(d)
        counters[C.DEV_WRITE_REQS] += _runs(d)  # one device write per contiguous dirty run
        if do_log:
            nlog = _log_runs(d, np.int64(_fr(st, f).seg), sc.k, log, nlog, ref, C.IO_WRITE, C.EVICTION)
    held = jk.popcount(_fr(st, f).present)
    counters[C.EVICTIONS] += held
    counters[PF_EVICTED] += jk.popcount(_fr(st, f).pf)
    sc.used -= held
    _fr(st, f).present = _fr(st, f).pf = 0
    jk.store(st.dirty, f, 0)
    _give_frame(st, f)
    return nlog


@njit(cache=True, inline="always")
def _cull(st, f, counters):
    """Frame f's segment leaves L1 for L2's MRU end without its unrequested prefetched blocks."""
    _leave(st, f, counters)
    drop = _fr(st, f).pf
    n = jk.popcount(drop)
    counters[CULLED] += n
    st.sc[0].used -= n
    _fr(st, f).present &= ~drop
    _fr(st, f).pf = 0
    if _fr(st, f).present:
        _join(st, f, L2, counters)
    else:  # only prefetched blocks (never dirty: a write takes its blocks out of pf): it leaves memory
        _give_frame(st, f)


@njit(cache=True, inline="always")
def _cull_to(st, extra, counters):
    """Cull L1's LRU segments while L1 with ``extra`` more segments would exceed N1."""
    sc = st.sc[0]
    F = st.dirty.shape[0]
    while sc.n_list[0] > 0 and sc.n_list[0] + extra > sc.n1:
        _cull(st, _fr(st, F).prev, counters)


@njit(cache=True, inline="always")
def _make_room(st, need, to_l1, culling, counters, log, nlog, do_log, ref):
    """Free memory until ``need`` more blocks fit (the segment being served is off the lists and joins L1
    afterwards if ``to_l1``): cull L1's LRU segment into L2 while L1 exceeds N1 (cull_when="memory_short"),
    or while L2 is empty (``culling`` policies), else evict L2's LRU segment, else L1's. Returns ``nlog``."""
    sc = st.sc[0]
    F = st.dirty.shape[0]
    while sc.used + need > sc.cap:
        n_l1, n_l2 = sc.n_list[0], sc.n_list[1]
        if n_l1 > 0 and ((sc.short_only and n_l1 + to_l1 > sc.n1)  # L1 back to N1 before L2 gives up
                         or (n_l2 == 0 and culling)):  # into L2, to be evicted from there next
            _cull(st, _fr(st, F).prev, counters)
        elif n_l1 > 0 or n_l2 > 0:
            v = _fr(st, F + 1).prev if n_l2 > 0 else _fr(st, F).prev
            _leave(st, v, counters)
            nlog = _evict(st, v, counters, log, nlog, do_log, ref)
        else:
            raise RuntimeError("segment cache: a request needs more blocks than the whole memory")
    return nlog


def _room_for(st, lst, need, w, counters, log, nlog, do_log, at):
    """Room for the blocks ``need`` that a miss on a segment (off its list ``lst``) brings in: a write's missing
    blocks, or what the policy's ``fetch`` reads. A segment about to enter L1 first culls L1 to N1 - 1 with
    room_first="cull" (not with cull_when="memory_short"), then :func:`_make_room`. Returns ``nlog``."""
    sc = st.sc[0]
    into_l1 = new_to_l1 = True  # a read segment joins L1 (the one list of a policy without culling)
    if w:
        into_l1 = lst == L1 or (lst == NO_LIST and sc.write_l1 != 0)
        new_to_l1 = into_l1 and lst == NO_LIST
    if new_to_l1 and CULLING and sc.cull_first and not sc.short_only:
        _cull_to(st, 1, counters)
    return _make_room(st, jk.popcount(need), into_l1, CULLING, counters, log, nlog, do_log, at)


@jk.njit_no_refcount
def _update(st, counters):
    """One update of N1 <- N1 + S (dP - a dC), or a skipped one; dP and dC start again from 0."""
    sc = st.sc[0]
    full = sc.wcount[0] >= sc.b and sc.wcount[1] >= sc.b
    if sc.wsum[1] > 0 and (full or not sc.full_windows):
        a = sc.wsum[0] / sc.wsum[1]  # all blocks in B1 / cached blocks in B2
        n1 = sc.n1 + sc.step * (sc.dp - a * sc.dc)
        sc.n1 = min(max(n1, sc.n1_min), sc.n1_max)
        counters[N1_UPDATES] += 1
    else:
        counters[N1_SKIPPED] += 1
    sc.dp = 0
    sc.dc = 0


@jk.njit_no_refcount
def _adapt(st, counters, b1_hits, b1_pf):
    """Adaptive culling's feedback, after every ``update_every`` cache-or-prefetch hits in B1. With
    ``update_at="hit"`` this step's hits in B1 (``b1_hits``, of which ``b1_pf`` were prefetch hits) are
    counted here one block at a time; otherwise the step has counted them already."""
    sc = st.sc[0]
    if sc.at_hit:
        m = b1_hits
        while m:
            bit = m & (~m + ONE)  # the lowest hit block left
            m &= m - ONE
            sc.hits_b1 += 1
            if b1_pf & bit:
                sc.dp += 1
            if sc.hits_b1 >= sc.update_every:
                _update(st, counters)
                sc.hits_b1 = 0
        return
    while sc.hits_b1 >= sc.update_every:
        _update(st, counters)
        if not sc.carry:
            sc.hits_b1 = 0
            return
        sc.hits_b1 -= sc.update_every


@jk.njit_no_refcount
def _window_hits(st, f, lst, hit_mask, pf_hit, counters):
    """Adaptive culling's count of a step's hits in a window (frame f is in B1 or B2, on list ``lst``): hits in
    B1 add to the hits toward the next update and to dP (or, with update_at="hit", are returned as
    ``(b1_hits, b1_pf)`` for :func:`_adapt` to take one by one), hits in B2 add to dC; per block, or per request
    with count_hits="request". Changes the scalars hits_b1, dp and dc; counts hits_b1 / hits_b2."""
    sc = st.sc[0]
    nh = jk.popcount(hit_mask)
    if lst == L2:
        counters[HITS_B2_C] += nh
        sc.dc += min(nh, 1) if sc.per_request else nh
        return np.uint64(0), np.uint64(0)
    counters[HITS_B1_C] += nh
    if sc.at_hit:
        return hit_mask, pf_hit
    npf = jk.popcount(pf_hit)
    sc.hits_b1 += min(nh, 1) if sc.per_request else nh
    sc.dp += min(npf, 1) if sc.per_request else npf
    return np.uint64(0), np.uint64(0)


@jk.njit_no_refcount
def _write_in(st, s, f, req, missing):
    """A write of blocks ``req`` of segment s (frame f, -1 if none), ``missing`` of them not in memory, once
    there is room: the blocks become present and dirty without a read. Changes the segment's frame (taken if
    it had none), ``dirty`` and ``sc.used``. Returns ``(frame, blocks newly dirtied)``."""
    if f < 0:
        f = _take_frame(st, s)
    _fr(st, f).present |= missing
    st.sc[0].used += jk.popcount(missing)
    dirtied = jk.popcount(req & ~st.dirty[f])
    st.dirty[f] |= req
    return f, dirtied


@jk.njit_no_refcount
def _read_in(st, s, f, new, req):
    """A read miss on segment s (frame f, -1 if none), once there is room and the policy's ``read`` has read the
    blocks ``new``: they enter memory, the ones nobody asked for (not in ``req``) marked prefetched. Changes the
    frame (taken if it had none) and ``sc.used``. Returns the frame."""
    if f < 0:
        f = _take_frame(st, s)
    _fr(st, f).pf |= new & ~req
    _fr(st, f).present |= new
    st.sc[0].used += jk.popcount(new)
    return f


def _settle(st, f, lst, read, counters):
    """Where frame f's segment goes after a miss (``read``: read from storage; else written; ``lst`` the list it
    was on): without culling, the MRU end of the one list; with culling, L1 for a segment read or written into
    L1 (write_into="l1", or already there), and a segment new to L1 culls L1 back to N1 (cull_when="always");
    a write to a segment in L2 or not in memory puts it at L2's MRU end. Changes the lists (and culls)."""
    sc = st.sc[0]
    if not CULLING:
        _join(st, f, L1, counters)
    elif read or lst == L1 or (lst == NO_LIST and sc.write_l1 != 0):
        _join(st, f, L1, counters)
        if (read or lst == NO_LIST) and not sc.short_only:  # a segment new to L1 culls it to N1
            _cull_to(st, 0, counters)
    else:
        _join(st, f, L2, counters)


def _serve(st, s, f, lst, had, req, w, k, counters, log, nlog, do_log, at):
    """A request's blocks ``req`` of segment s (frame f, -1 if none; on list ``lst``; ``had`` its blocks in
    memory), read or written (``w``), with k blocks a segment. All present: the segment moves to the MRU end of
    its list, its requested blocks no longer prefetched (and dirty if written). Else it leaves its list, room is
    made (:func:`_room_for`) for its missing blocks or what the policy's ``fetch`` reads, they come in
    (:func:`_write_in`; the policy's ``read``, then :func:`_read_in`) and it joins a list (:func:`_settle`). The
    policy's ``window_hits`` comes first and its ``feedback`` last. Returns ``(nlog, blocks newly dirtied)``."""
    b1_hits, b1_pf = window_hits(st, f, lst, had, req, w, counters)
    missing = req & ~had
    dirtied = 0
    if not missing and not _fr(st, f).inw:  # a hit on every block, outside the windows: to the MRU end
        _fr(st, f).pf &= ~req
        if w:
            dirtied = jk.popcount(req & ~st.dirty[f])
            st.dirty[f] |= req
        _to_front(st, f, lst, counters)
        return nlog, dirtied
    if f >= 0:
        _leave(st, f, counters)  # (off its list while its blocks change: the window sums follow)
        _fr(st, f).pf &= ~req
    if not missing:  # a hit on every block in a window: the segment moves to the MRU end of its own list
        if w:
            dirtied = jk.popcount(req & ~st.dirty[f])
            st.dirty[f] |= req
        _join(st, f, lst, counters)
    else:
        new = missing if w else fetch(had, missing, k)
        nlog = _room_for(st, lst, new, w, counters, log, nlog, do_log, at)
        if w:
            f, dirtied = _write_in(st, s, f, req, missing)
        else:
            nlog = read(s, new, req, k, counters, log, nlog, do_log, at)
            f = _read_in(st, s, f, new, req)
        _settle(st, f, lst, not w, counters)
    feedback(st, counters, b1_hits, b1_pf)
    return nlog, dirtied


def _seg_ref(st, s, req, w, k, counters, log, nlog, do_log, outcome, o0, at):
    """One request's blocks ``req`` of segment s, read or written (``w``): counts its hits (per list, prefetch
    hits, write hits; the request's totals are summed by :func:`_seg_step`), with ``do_log`` writes each
    block's outcome at ``outcome[o0 + b]``, and serves it (:func:`_serve`). Returns ``nlog``."""
    f = jk.load(st.seg_frame, s)
    lst, had, pf_hit = NO_LIST, np.uint64(0), np.uint64(0)  # none of its blocks in memory
    if f >= 0:
        lst, had, pf_hit = _fr(st, f).which, _fr(st, f).present, req & _fr(st, f).pf
        nh = jk.popcount(req & had)
        if nh:  # (a segment with blocks in memory is on L1 or L2)
            jk.store(counters, L1_HITS + lst - L1, jk.load(counters, L1_HITS + lst - L1) + nh)
            if w:
                counters[C.WRITE_HITS] += nh
        if pf_hit:
            counters[PF_HITS] += jk.popcount(pf_hit)
    if do_log:
        m = req
        while m:
            bit = m & (~m + ONE)
            m &= m - ONE
            outcome[o0 + jk.popcount(bit - ONE)] = C.PREFETCH_HIT if pf_hit & bit else (C.HIT if had & bit else C.MISS)
    nlog, dirtied = _serve(st, s, f, lst, had, req, w, k, counters, log, nlog, do_log, at)
    counters[C.DIRTYINGS] += dirtied
    return nlog


def _seg_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    """A segment policy (its hooks and ``CULLING``: :func:`compose`) over the requests of ``refs`` from entry
    ``start``, until the chunk ends or the I/O log lacks room for a request's
    rows. A request is split at segment boundaries; each segment's blocks are counted and served by
    :func:`_seg_ref`. Changes every array of ``state``; adds to ``counters``; with ``do_log`` writes
    ``outcome`` (miss, hit, prefetch hit) and log rows from ``nlog``. Returns the entry it stopped at and
    ``nlog``."""
    st = state
    sc = st.sc[0]
    unit, event, count = refs.unit, refs.event, refs.count
    k, k_shift = sc.k, sc.k_shift
    hits_before = counters[L1_HITS] + counters[L2_HITS]
    n = unit.shape[0]
    i = start
    while i < n:
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(st.seg_frame, _segment(jk.load(unit, i + jk.PREFETCH_DISTANCE), k, k_shift))
        u0 = jk.load(unit, i)
        r = jk.load(count, i)  # the request's pages: units u0 .. u0 + r - 1, all in this chunk
        # at most a read or a write-back per run of blocks, for each segment touched or evicted
        if do_log and nlog + (r + 2 * k + r // k + 2) * (k // 2 + 1) > log.shape[0]:
            break  # the driver grows the log (doubling until this request fits)
        w = jk.load(event, i) == Event.WRITE
        s = _segment(u0, k, k_shift)
        lo = u0 - s * k  # the request's first block in segment s
        o0 = i - lo  # outcome[o0 + b] is block b of segment s
        left = r
        while True:
            hi = min(lo + left, k)
            req = ((ONE << np.uint64(hi - lo)) - ONE) << np.uint64(lo) if hi - lo < 64 else ~np.uint64(0)
            # the reference that reaches this segment: its I/O is logged there
            nlog = _seg_ref(st, s, req, w, k, counters, log, nlog, do_log, outcome, o0, base + o0 + lo)
            left -= hi - lo
            if left == 0:
                break
            o0 += k
            s += 1
            lo = 0
        i += r
    C.add_refs(counters, event, start, i)
    counters[C.HITS] += counters[L1_HITS] + counters[L2_HITS] - hits_before
    return i, nlog


# The hooks a segment policy is composed of (compose), and the stand-ins that name them in the loop above.
def fetch(had, missing, k):
    """The blocks a read miss on a segment brings in (``had``: its blocks in memory; ``missing``: the requested
    ones not in memory; k blocks a segment)."""
    raise NotImplementedError("a segment policy's hook (compose)")


def read(s, new, req, k, counters, log, nlog, do_log, at):
    """The device reads of the blocks ``new`` of segment s (``req``: the requested ones): counted, and logged at
    ``at``. Returns ``nlog``."""
    raise NotImplementedError("a segment policy's hook (compose)")


def window_hits(st, f, lst, had, req, w, counters):
    """Before a request's blocks ``req`` of the segment in frame f (on list ``lst``) are served: the feedback's
    count of its hits. Returns ``(b1_hits, b1_pf)`` for :func:`feedback`. Default: none."""
    raise NotImplementedError("a segment policy's hook (compose)")


def feedback(st, counters, b1_hits, b1_pf):
    """After the request is served: the policy's feedback on its lists. Default: none."""
    raise NotImplementedError("a segment policy's hook (compose)")


CULLING = False  # two lists, L1 culled into L2 (compose sets it in each composed copy); False: one list


@njit(cache=True, inline="always")
def _fetch_missing(had, missing, k):
    """seg_lru: the missing blocks only."""
    return missing


@njit(cache=True, inline="always")
def _fetch_segment(had, missing, k):
    """The prefetching policies: the whole aligned segment (the blocks not in memory)."""
    return _all_blocks(k) & ~had


@jk.njit_no_refcount
def _read_runs(s, new, req, k, counters, log, nlog, do_log, at):
    """seg_lru: one device read per contiguous run of the blocks read."""
    counters[C.DEV_READS] += jk.popcount(new)
    counters[C.DEV_READ_REQS] += _runs(new)
    if do_log:
        nlog = _log_runs(new, s, k, log, nlog, at, C.IO_READ, C.DEMAND)
    return nlog


@jk.njit_no_refcount
def _read_segment(s, new, req, k, counters, log, nlog, do_log, at):
    """The prefetching policies: the whole aligned segment in one request; the blocks nobody asked for are
    prefetched."""
    counters[C.DEV_READS] += k
    counters[C.DEV_READ_REQS] += 1
    counters[PREFETCHED] += jk.popcount(new & ~req)
    if do_log:
        nlog = C.row(log, nlog, at, C.IO_READ, C.PREFETCH, s * k, k, 0)
    return nlog


@njit(cache=True, inline="always")
def _no_window_hits(st, f, lst, had, req, w, counters):
    return np.uint64(0), np.uint64(0)


@njit(cache=True, inline="always")
def _no_feedback(st, counters, b1_hits, b1_pf):
    pass


@njit(cache=True, inline="always")
def _adaptive_window_hits(st, f, lst, had, req, w, counters):
    """Adaptive culling: a segment in B1 or B2 counts its hits (:func:`_window_hits`); the marginal utilities count
    read hits only (the paper's hit rates are about reads) unless ``feedback_writes``."""
    if lst != NO_LIST and _fr(st, f).inw and (not w or st.sc[0].feed_writes != 0):
        return _window_hits(st, f, lst, req & had, req & _fr(st, f).pf, counters)
    return np.uint64(0), np.uint64(0)


@njit(cache=True, inline="always")
def _adaptive_feedback(st, counters, b1_hits, b1_pf):
    """Adaptive culling: N1's update after every ``update_every`` hits in B1 (:func:`_adapt`)."""
    sc = st.sc[0]
    if b1_hits or sc.hits_b1 >= sc.update_every:  # (else _adapt does nothing)
        _adapt(st, counters, b1_hits, b1_pf)


def compose(name: str, fetch, read, culling: bool, window_hits=_no_window_hits, feedback=_no_feedback):
    """The step kernel of segment policy ``name``: :func:`_seg_step` (and the steps that call the hooks:
    :func:`_seg_ref`, :func:`_serve`, :func:`_room_for`, :func:`_settle`) copied with the policy's hooks and
    ``CULLING`` as their globals, so each policy is its own compiled loop without the others' branches, cached
    as ``<name>_step``. The hooks are ``@njit`` functions with the signatures of the stand-ins above."""
    scope = dict(_seg_step.__globals__, fetch=fetch, read=read, window_hits=window_hits, feedback=feedback,
                 CULLING=bool(culling))
    for step in (_settle, _room_for, _serve, _seg_ref):  # each calls the hooks or the one after it
        scope[step.__name__] = njit(inline="always")(jk.copy_with_globals(step, step.__name__, scope))
    return jk.njit_no_refcount(jk.copy_with_globals(_seg_step, f"{name}_step", scope))


_STEPS = (compose("seg_lru", _fetch_missing, _read_runs, culling=False),
          compose("seg_prefetch", _fetch_segment, _read_segment, culling=False),
          compose("seg_cull_fixed", _fetch_segment, _read_segment, culling=True),
          compose("seg_cull_adaptive", _fetch_segment, _read_segment, culling=True, window_hits=_adaptive_window_hits,
                  feedback=_adaptive_feedback))
"""Each segment policy's step (indexed by its mode): its hooks composed into the loop at compile time, so LLVM
compiles none of the other policies' branches (3-6% fewer instructions a reference on the bench stream than one
loop for all four, perf stat)."""


class _SegmentKernel(Kernel):
    counters = SEGMENT_COUNTERS
    caps = C.Caps(prefetches=True)
    mode = MODE_LRU

    def unit_pages(self, params, page_bytes):
        return _unit_pages(params.segment_kib, page_bytes)

    def new_state(self, units, tiers, params):
        k = units.unit_pages
        cap = tiers["capacity_pages"]
        if cap < k:
            raise ValueError(f"capacity_pages={cap} cannot hold one segment of {k} pages")
        n = units.n // k
        scs = jk.scalars(SCALARS)
        sc = scs[0]
        sc.cap, sc.k = cap, k
        sc.k_shift = k.bit_length() - 1 if k & (k - 1) == 0 else -1
        sc.wfront[:] = -1
        adaptive = self.mode == MODE_ADAPTIVE
        # a policy whose parameters lack a setting (seg_lru has no culling, seg_cull_fixed no feedback) does not
        # use it: it reads the defaults, and its feedback is off (no step, no floor)
        s = dataclasses.replace(_DEFAULTS, **dataclasses.asdict(params))
        sc.update_every = s.update_every
        sc.short_only = CULL_WHEN[s.cull_when]
        sc.write_l1 = WRITE_INTO[s.write_into]
        sc.cull_first = ROOM_FIRST[s.room_first]
        sc.full_windows = PARTIAL_WINDOWS[s.partial_windows]
        sc.per_request = COUNT_HITS[s.count_hits]
        sc.carry = int(s.carry_hits)
        sc.at_hit = UPDATE_AT[s.update_at]
        sc.feed_writes = int(s.feedback_writes)
        b = max(1, int(WINDOW_ROUND[s.window_round](s.window_fraction * cap / k)))
        sc.b = b if adaptive else 0  # only adaptive culling needs B1 and B2
        sc.n1 = cap / (2 * k)  # half of the memory, in segments (fixed; adaptive starts there)
        sc.step = s.step if adaptive else 0.0
        sc.n1_max = cap / k if s.n1_cap == "memory" else np.inf
        sc.n1_min = float(b) if adaptive and s.n1_floor == "window" else 0.0
        if adaptive:
            sc.n1 = min(max(sc.n1, sc.n1_min), sc.n1_max)  # the start respects the bounds too
        if self.mode == MODE_FIXED:
            sc.n1 = float(cap // (2 * k))
        frames = min(n, cap)  # each segment in memory holds at least one block
        sc.n_free = frames
        fr = jk.zeros_aligned(frames + 2, FRAME, 32)
        fr["prev"][:frames] = -1  # on no list
        jk.rlist_init(fr, frames)
        jk.rlist_init(fr, frames + 1)
        return SegState(np.full(n, -1, np.int32), fr, np.zeros(frames, np.uint64),
                        np.arange(frames - 1, -1, -1, dtype=np.int32), scs)  # frame 0 on top of the stack

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _STEPS[self.mode](refs, start, state, counters, log, nlog, outcome, base, do_log)

    def resident(self, state):
        sc = state.sc[0]
        k = int(sc.k)
        F = state.dirty.shape[0]
        frames = np.concatenate([jk.rlist_back_to_front(state.fr, F + 1, int(sc.n_list[1])),  # L2, then L1,
                                 jk.rlist_back_to_front(state.fr, F, int(sc.n_list[0]))])  # least recent first
        rec = state.fr[frames]
        b = np.arange(k, dtype=np.uint64)
        held = ((rec["present"][:, None] >> b) & ONE).astype(bool)
        order = (rec["seg"].astype(np.int64)[:, None] * k + np.arange(k))[held]
        dirty = ((state.dirty[frames][:, None] >> b) & ONE).astype(np.uint8)[held]
        return order, dirty

    def observe(self, state):
        sc = state.sc[0]
        return {"n1": float(sc.n1), "l1_segments": int(sc.n_list[0]), "l2_segments": int(sc.n_list[1])}


@register("seg_lru", SegmentParams)
class SegLRU(_SegmentKernel):
    """Segment LRU over demanded blocks, reads split at segment boundaries (paper 2's "existing")."""

    mode = MODE_LRU


@register("seg_prefetch", SegmentParams)
class SegPrefetch(_SegmentKernel):
    """A read miss reads the whole aligned segment; one segment LRU, no culling (paper 2, Fig. 8)."""

    mode = MODE_PREFETCH


@register("seg_cull_fixed", CullParams)
class SegCullFixed(_SegmentKernel):
    """Segment prefetch with culling into a second list, L1 fixed at half the memory (paper 2, Fig. 8)."""

    mode = MODE_FIXED


@register("seg_cull_adaptive", AdaptiveParams)
class SegCullAdaptive(_SegmentKernel):
    """Segment prefetch with adaptive cache culling: L1's size follows the marginal hits of B1 and B2 (paper 2)."""

    mode = MODE_ADAPTIVE
