"""The page-mapped FTL kernel: the mechanism of host writes and line-based garbage collection.

Everything here takes arrays and scalars only: one simulated SSD is an :class:`FTLState`, a
``NamedTuple`` of NumPy arrays that :class:`flashrepro.ftl.FTL` owns, and :func:`write_chunk` advances
it by a chunk of host writes, so a stream of any length is processed in pieces. *Which* line GC takes
is not decided here: the victim rule is a compiled function passed in (a Numba first-class function
with signature :data:`VICTIM_SIG`), one per file in :mod:`flashrepro.ftl.victims`.

Notes
-----
**Layout.** A physical page is ``line * P + offset``. ``p2l[ppn]`` is the logical page last written
there; it is valid iff ``l2p[p2l[ppn]] == ppn`` (nothing is cleared in ``p2l`` on overwrite). The same
validity is kept as a bitmap, ``page_bits`` (:func:`page_bits`: ``W = ceil(P / 64)`` words per line, bit
``offset`` of line ``line`` at word ``line * W + offset // 64``), about 300 KB on paper 4's geometry
against ``l2p``'s 8 MB: a host write clears its old copy's bit, and GC finds a victim's valid pages from
its bits and its slice of ``p2l``, read in order, instead of one random read of ``l2p`` per page of the
victim (which was most of the copy loop's time; what is left of it is the random ``l2p`` update per
copied page). Each line has a *kind*, the frontier it was opened for:
0 = normal (2R++ bits 00, host writes), 1 = normal second chance (01), 2 = cold (10). GC copies a
victim's valid pages to the frontier ``copy_dest[kind]``.

**What the mechanism keeps for every victim rule.**

* ``fifo``: the closed lines in close order (write completion), oldest at the front.
* ``buckets``: the closed lines by valid count ``v`` (list ``L + v``), each bucket in the order its
  lines took that count (``entered[line]``, a stamp from the event counter ``sc.tick``, set when the
  line closes and whenever a host write takes a page from it); ``sc.bmin`` is a lower bound on the
  smallest non-empty bucket. Moving a line between buckets on every host write costs a third of the
  host path's time, so the lists follow each change only when the victim rule reads them
  (``prm.eager_buckets``, from the rule's registration); otherwise only the stamps do, and
  :func:`rebuild_buckets` restores the lists from ``(valid, entered)`` at the end of every
  :func:`write_chunk` (and whenever a rule calls it). Either way the lists are exact whenever
  anything reads them.
* ``cands[:sc.n_cands]``: the *candidates*, closed lines with at least one invalid page (FEMU's victim
  queue; fully valid lines sit apart), as an array set: a line is appended when it closes with an
  invalid page or when a closed full line loses its first page, and removed by moving the last one
  into its slot. Uniform sampling is ``cands[r % n]``.
* ``close_seq`` (close number) and ``close_time`` (the host-write clock ``sc.clock`` when the line
  closed: host writes since the device was created, never reset).
* ``sc.cursor``: the closed line after the last victim in close order, where 2R's scan resumes: the
  FIFO sentinel ``L`` (the head) if the victim was the newest closed line, or with ``prm.cursor_resume``
  -1 until the next line closes, which then becomes the cursor.
* ``heap[1:sc.heap_size + 1]``: with ``prm.heap`` (a rule registered ``reads_heap``), FEMU's victim
  priority queue (``victim_line_pq``, ``hw/femu/lib/pqueue.c``): a binary min-heap on valid counts of
  the candidates, ``hpos[line]`` a line's slot (0 = not in it), with pqueue's exact moves (a line is
  inserted when it closes with an invalid page or when a closed full line loses its first page, bubbles
  up whenever it loses a page, and leaves by pqueue's pop), so ties fall as they do in FEMU.
  ``prm.heap == HEAP_STALE`` is FEMU before its commit fe007e336 (2021-10-04): a line that loses a page
  keeps its slot (its count drops in place), so the root need not be the least valid line.
* *Slots* (``prm.slots``, a rule registered ``reads_slots``): each closed line takes the next slot when it
  closes (``slot_of``, ``slot_line``, ``slot_seq``; ``2L`` slots, renumbered in close order when they run
  out, at most once per ``L`` closes), so slots are in close order and a set of closed lines is a bitset
  over them (``slot_bits``): the lines at most ``prm.limit`` valid (a limit the rule's settings give; -1
  when the rule sets none), in the normal and the cold region, and the lines with an invalid page. "The
  first such line after this one in close order" is then a search of a few words instead of a walk of the
  FIFO (2R's scan, FEMU's fifo).
* *Age rows* (``prm.age_lists``, ``reads_ages``): per valid count ``v < P`` a bitset over the slots of
  the closed lines with ``v`` valid pages (``age_slots``), so each count's lines are in close order; its
  first slot (``age_head[v]``: the earliest-closed such line) and whether it has any (``age_bits``).
  Moving a line on every lost page would cost the host loop about 25 ns a write, so the host loop only
  logs a closed line the first time it leaves its count (``age_log``, ``age_v[line]`` is the count it is
  filed under) and :func:`sync_ages` files the logged lines when a rule reads the rows and at the end of
  every :func:`write_chunk`. Cost-benefit reads the earliest-closed line of each count. (2R's least-valid
  fallbacks do not: one vectorized pass over the lines per pass costs less than this upkeep.)
* *The watch* (``prm.watch``, ``watches``): a rule may publish an answer ``sc.watch_line`` that holds
  while ``sc.clock < sc.watch_until`` unless a line could overtake it, which it states per valid count
  as a close time (``watch[v]``): the mechanism clears ``sc.watch_ok`` when a closed line with ``v``
  valid pages and close time ``<= watch[v]`` closes or loses a page, or when the answer is taken as a
  victim. Cost-benefit publishes one; a refused background pass then stays refused while it holds.

**Garbage collection.** A *GC pass* asks the victim rule for a first victim, then, until the stop rule
holds ("one" victim, the victims' valid pages exceed a line, their invalid pages reach a line, or
``max_victims``), for follow-up victims. Each victim is taken off every structure (*detached*), its
valid pages are copied, and it is erased and queued as free. With ``prm.select_upfront`` (paper 4's
reading: "희생 블록을 여러 개 선정한 후 ... 병합", victims are all chosen, then copied) every victim of
the pass is detached before the first copy, so lines the copies close cannot change the choice;
otherwise (*interleaved*) each follow-up is chosen after the previous victim was copied and erased.
Passes are triggered by up to three rules (``prm``, from :class:`flashrepro.ftl.GCTrigger`):

* *reserve*: when the host frontier needs a new line and free lines <= ``RESERVE``, passes run until
  free lines > ``RESERVE`` (paper 4's runs: 1);
* *forced*: before each host write, passes run while free lines <= ``FORCED`` (FEMU's
  ``should_gc_high``; -1 = off);
* *background*: after each host write, if free lines <= ``BACKGROUND``, one pass that takes its first
  victim only if the victim has at least ``BG_MIN_INVALID`` invalid pages, and otherwise does nothing
  and counts a skip (FEMU's ``should_gc`` and ``select_victim_line(force=false)``; -1 = off). Under
  FEMU's thresholds this asks after nearly every write, so the mechanism skips asking when the answer
  cannot have changed since it was refused (:func:`_background_skips`: a ``stable_skip`` rule, or a
  watched answer) and draws a sampling rule's victim itself (``prm.sample_draws``,
  :func:`sample_least_valid`, or with ``SAMPLE_CLOSED`` random-all's :func:`draw_closed`) instead of calling it.

A victim with ``v`` valid pages opens at most one copy line and frees one, so GC never needs more than
one free line at a time; the Python wrapper refuses triggers that keep none free.

**The host's write pointer.** With ``prm.host_eager`` the host frontier takes its next line as soon as
its line fills, by a host write (after the reserve rule's GC) or by GC copies that share it (if a line
is free then): FEMU's ``ssd_advance_write_pointer`` and Fig. 7's GET_NEW_BLOCK(), so FEMU's thresholds
count that line as taken. Otherwise (*lazy*) the next host write takes it, the reserve rule's GC running
before that write invalidates its page's old copy.

**No literal arguments between kernels.** A compiled function called from another with a constant argument
(``0``, ``-1``, ``True``) is compiled again for that constant (Numba types it as a literal first), so a helper
called with a constant in one place and a variable in another compiles twice. The calls here and in the rules
pass such constants as ``np.int64(0)``, ``np.int32(-1)``, ``np.bool_(True)`` (plain values, the same code):
seven such pairs had made a quarter of the FTL's compile time, and
``tests/test_ftl_compile.py`` finds any constant passed to a helper compiled on its own. (A helper called with
an ``int32`` in one place and an ``int64`` in another compiles twice too: ``_copy_erase`` takes ``np.int64``.)

References
----------
.. [1] FEMU, the QEMU-based flash emulator, blackbox SSD FTL: ``hw/femu/bbssd/ftl.c`` and
   ``ftl-line-gc.c`` in https://github.com/MoatLab/FEMU (Li et al., "The CASE of FEMU", FAST 2018).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import jitkit as jk
from ..jitkit import prefetch

PREFETCH = 16
COPY_PREFETCH = 192  # pages ahead in a victim's copy loop

# line status
FREE, OPEN, CLOSED = 0, 1, 2
N_KINDS = 3  # normal (2R++ bits 00), normal second chance (01), cold (10)
COLD = 2

# The parameters and the scalar state are records (NumPy structured scalars, Numba Records), read and written by
# field name: prm.pages, sc.free_count. The state holds each as a one-element record array (every field of the
# state is an array) and a kernel takes the record as ``s.sc[0]``, a reference into it.
#
# prm: the parameters, in three parts. The mechanism's own: the geometry, the stop rule, the trigger, the host
# pointer. What the mechanism keeps or skips for the victim rule, from the rule's registration
# (flashrepro.ftl.victims.VictimRule.fill_prm), of which the RULE_SETTABLE fields may be set by the rule's
# configure hook from its settings. Last, the rule's own block ``rule``, which the mechanism never reads: a device
# has one rule, so every rule numbers its slots of ``rule`` from 0, in its own file.
_I8 = np.int64
PRM_DTYPE = np.dtype([
    ("pages", _I8), ("lines", _I8),  # pages per line, lines
    ("stop", _I8),  # the pass's stop rule: STOP_VALID, STOP_INVALID or STOP_ONE
    ("max_victims", _I8),  # victims per pass at most
    ("reserve", _I8), ("forced", _I8), ("background", _I8),  # the trigger's free-line thresholds (-1 = off)
    ("bg_min_invalid", _I8),  # invalid pages a background pass's first victim needs
    ("div_magic", _I8), ("div_shift", _I8),  # ppn // pages as a multiply and a shift (division_magic)
    ("select_upfront", _I8),  # 1: every victim of a pass is chosen before the first copy
    ("host_eager", _I8),  # 1: the host frontier takes its next line as soon as its line fills (FEMU)
    ("eager_buckets", _I8),  # 1: the bucket lists follow every change (the rule reads them)
    ("heap", _I8),  # 0, HEAP_KEPT or HEAP_STALE: FEMU's victim heap
    ("age_lists", _I8), ("slots", _I8), ("watch", _I8),  # the age rows, the slots, the watch are kept
    ("limit", _I8),  # the valid count at or under which a closed line is in SLOT_UNDER(_COLD) (-1: none is)
    ("cursor_resume", _I8),  # 1: after the newest line was a victim, resume at the next line to close
    ("stable_skip", _I8),  # 1: a refused background pass stays refused until a line closes, is erased or qualifies
    ("sample_draws", _I8),  # the mechanism draws the rule's first victim: d draws, SAMPLE_CLOSED, or 0 = no
    ("rule", _I8, (8,)),  # the victim rule's own parameters
], align=True)
RULE_SETTABLE = ("limit", "cursor_resume", "stable_skip", "sample_draws")
N_RULE_PRM = PRM_DTYPE["rule"].shape[0]
STOP_VALID, STOP_INVALID, STOP_ONE = 0, 1, 2  # more than a line of valid / a line of invalid / one victim

# sc: the scalar state kept between chunks
SC_DTYPE = np.dtype([
    ("free_head", _I8), ("free_count", _I8),  # the ring of free lines: free_q[free_head:][:free_count]
    ("seq", _I8),  # lines closed so far (a closed line's close_seq)
    ("cursor", _I8),  # the closed line after the last victim in close order (L: the head; CURSOR_PENDING)
    ("bmin", _I8),  # a lower bound on the smallest non-empty valid-count bucket
    ("n_closed", _I8),  # closed lines
    ("nlog_v", _I8),  # victims so far (the first len(log_victims) are logged)
    ("clock", _I8),  # host writes since the device was created
    ("n_cands", _I8),  # candidates, in cands[:n_cands]
    ("tick", _I8),  # the event counter that stamps bucket order (entered)
    ("front_line", _I8, (N_KINDS,)),  # the open line per kind (-1 = none)
    ("front_off", _I8, (N_KINDS,)),  # its next free offset
    ("pick_note", _I8),  # set by a victim rule: how it chose the last first victim (0: its rule; FALLBACKS...)
    ("n_bg_ok", _I8),  # closed lines with at least max(1, bg_min_invalid) invalid pages (kept only with background GC)
    ("bg_gen", _I8),  # events that can change a stable rule's background choice: closes, erases, lines reaching n_bg_ok
    ("bg_skip_gen", _I8),  # bg_gen at the last skipped background pass (-1: none)
    ("heap_size", _I8),  # lines in the victim heap (prm.heap)
    ("n_slots", _I8),  # slots handed out (prm.slots): the next closed line takes slot n_slots
    ("watch_ok", _I8),  # 1 while the rule's watched answer watch_line holds (prm.watch; see _watch_threat)
    ("watch_line", _I8),  # the watched answer: a closed line
    ("watch_until", _I8),  # the watched answer holds while clock < this
    ("n_age_log", _I8),  # lines in age_log (prm.age_lists): closed lines whose row is stale until sync_ages
    ("rule", _I8, (4,)),  # the victim rule's own scalars, which the mechanism never reads (numbered in its file)
], align=True)
CURSOR_PENDING = -1  # sc.cursor: the next line to close (prm.cursor_resume, after the newest line was a victim)
SAMPLE_CLOSED = -1  # prm.sample_draws: the rule's first victim is draw_closed (random-all)
HEAP_KEPT, HEAP_STALE = 1, 2  # prm.heap: FEMU's heap moved on every lost page, or (before Oct 2021) not
FULL_FIRST_VICTIMS = True  # reserve and forced passes take a first victim with no invalid page (copied whole)

# counters
(HOST, FIRST_WRITES, ERASES, GC_PASSES, VICTIMS, RETURNED, FALLBACKS, GLOBAL_FALLBACKS, FORCED_PASSES,
 BACKGROUND_PASSES, SKIPPED_BACKGROUND) = range(11)
COPY = 11  # 11 .. 19: copies from kind s to kind d at COPY + 3 * s + d
N_COUNTERS = COPY + N_KINDS * N_KINDS
COUNTER_NAMES = ("host_writes", "first_writes", "erases", "gc_passes", "victims", "returned_from_cold",
                 "fallbacks", "global_fallbacks", "forced_gc_passes", "background_gc_passes",
                 "skipped_background_gc") + tuple(f"copy_{s}_{d}" for s in range(N_KINDS) for d in range(N_KINDS))
assert len(COUNTER_NAMES) == N_COUNTERS


class FTLState(NamedTuple):
    """One simulated SSD (``P`` pages per line, ``L`` lines); every field is a 1-D C-contiguous array."""

    l2p: np.ndarray  # int32[logical pages]: physical page of each logical page (-1 = never written)
    p2l: np.ndarray  # int32[L * P]: logical page last written to each physical page
    valid: np.ndarray  # int32[L]: valid pages per line
    kind: np.ndarray  # int8[L]: frontier kind of a line in use (-1 = free)
    status: np.ndarray  # int8[L]: FREE, OPEN or CLOSED
    free_q: np.ndarray  # int32[L]: ring of free lines from sc.free_head, sc.free_count long
    fifo: np.ndarray  # int32 jitkit list: closed lines in close order (sentinel L)
    buckets: np.ndarray  # int32 jitkit list: closed lines by valid count v (sentinel L + v)
    cands: np.ndarray  # int32[L]: candidates (closed lines with an invalid page) in cands[:sc.n_cands]
    cand_pos: np.ndarray  # int32[L]: a line's slot in cands (-1 = not a candidate)
    close_seq: np.ndarray  # int64[L]: close number of a closed line (1, 2, ...)
    close_time: np.ndarray  # int64[L]: sc.clock (host writes so far) when the line closed
    entered: np.ndarray  # int64[L]: sc.tick when a closed line took its valid count (bucket order)
    erase_count: np.ndarray  # int64[L]
    sc: np.recarray  # SC_DTYPE[1]: the scalar state, sc[0] (jitkit.scalars)
    rng: np.ndarray  # uint64[1]: splitmix64 state of the random victim rules
    counters: np.ndarray  # int64[N_COUNTERS]
    prm: np.recarray  # PRM_DTYPE[1]: the parameters, prm[0] (jitkit.scalars)
    copy_dest: np.ndarray  # int64[N_KINDS]: destination kind of copies out of each kind
    pass_victims: np.ndarray  # int32[L]: the victims of the GC pass being selected (prm.select_upfront)
    heap: np.ndarray  # int32[L + 1]: FEMU's victim heap in heap[1:sc.heap_size + 1] (prm.heap)
    hpos: np.ndarray  # int32[L]: a line's slot in heap (0 = not in it)
    order: np.ndarray  # int32: slot_of, slot_line, age_v, age_log, age_head (order_views)
    order64: np.ndarray  # int64: slot_seq, watch (order_views), count_odds
    order_bits: np.ndarray  # uint64: page_bits (page_bits), slot_bits, age_bits, age_slots (order_views)
    copy_buf: np.ndarray  # int32[P + COPY_PREFETCH]: _copy_erase's list of a victim's valid pages


N_SLOT_BITS = 3
SLOT_UNDER, SLOT_UNDER_COLD, SLOT_HAS_INVALID = 0, 1, 2  # slots of lines at most prm.limit valid, by region; any
NO_WATCH = -(1 << 62)  # watch[v]: no close time is this low (exact as a float too)
ALWAYS = 1 << 62  # watch[v]: every close time is this low; sc.watch_until: no end


def _bits_words(n: int) -> int:
    """The words of a jitkit bitset over ranks 0..n-1 (:func:`flashrepro.jitkit.bits_new`)."""
    n0 = (n + 63) // 64
    n1 = (n0 + 63) // 64
    return n0 + n1 + (n1 + 63) // 64


def _order_sizes(L: int, P: int, ages: bool) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Lengths of the views packed in ``order``, ``order64`` and ``order_bits`` (see :func:`order_views`)."""
    w = _bits_words(2 * L)
    i32 = (L, 2 * L, L, 2 * L, P)
    i64 = (2 * L, P + 1, P + 1)
    return i32, i64, (L * ((P + 63) // 64), N_SLOT_BITS * w, (P + 63) // 64, P * w if ages else 0)


def _order_arrays(L: int, P: int, ages: bool) -> dict:
    i32, i64, u64 = _order_sizes(L, P, ages)
    order = np.full(sum(i32), -1, np.int32)
    order[L + 2 * L + L:L + 2 * L + L + 2 * L] = 0  # age_log
    order64 = np.zeros(sum(i64), np.int64)
    order64[2 * L:2 * L + P + 1].view(np.float64)[:] = NO_WATCH
    v = np.arange(P + 1, dtype=np.float64)
    odds = order64[2 * L + P + 1:].view(np.float64)
    odds[:P] = v[:P] / (P - v[:P])
    odds[P] = np.inf
    return {"order": order, "order64": order64, "order_bits": np.zeros(sum(u64), np.uint64)}


def unpack_order(state) -> dict[str, np.ndarray]:
    """The views of :func:`order_views` by name, for Python (tests, :meth:`FTL.check`)."""
    L, P = int(state.prm[0].lines), int(state.prm[0].pages)
    i32, i64, u64 = _order_sizes(L, P, bool(state.prm[0].age_lists))
    out = {}
    for arr, names, sizes in ((state.order, ORDER_NAMES[:5], i32), (state.order64, ORDER_NAMES[5:8], i64),
                              (state.order_bits, ORDER_NAMES[8:], u64)):
        at = 0
        for name, n in zip(names, sizes, strict=True):
            out[name] = arr[at:at + n]
            at += n
    out["watch"] = out["watch"].view(np.float64)
    out["count_odds"] = out["count_odds"].view(np.float64)
    return out


ORDER_NAMES = ("slot_of", "slot_line", "age_v", "age_log", "age_head", "slot_seq", "watch", "count_odds", "page_bits",
               "slot_bits", "age_bits", "age_slots")


def division_magic(d: int) -> tuple[int, int]:
    """``(m, k)`` with ``(n * m) >> k == n // d`` for every ``0 <= n < 2**31``, ``n * m < 2**63``.

    ``k = 31 + ceil(log2 d)`` and ``m = ceil(2**k / d)``: with ``m * d = 2**k + e``, ``0 <= e < d``, the
    error ``n * e / (d * 2**k)`` stays under ``1 / d`` because ``n * e < 2**31 * 2**ceil(log2 d)``. The
    host path divides a physical page by the pages per line once per write; a multiply and a shift
    are several times cheaper than a 64-bit division."""
    k = 31 + (d - 1).bit_length()
    return -(-(1 << k) // d), k


def new_state(pages_per_line: int, n_lines: int, logical_pages: int, prm: np.record | None = None,
              copy_dest=(0, 0, 0), seed: int = 0) -> FTLState:
    """Fresh arrays for an empty device: every line free (in index order), nothing mapped. ``prm``: the
    parameters (a copy is kept), or None for the geometry's alone."""
    P, L = pages_per_line, n_lines
    sc = jk.scalars(SC_DTYPE)
    sc[0].free_count = L
    sc[0].cursor = L  # the FIFO sentinel: start at the head
    sc[0].bg_skip_gen = -1
    sc[0].front_line[:] = -1
    given, prm = prm, jk.scalars(PRM_DTYPE)
    if given is None:
        prm[0].pages, prm[0].lines = P, L
    else:
        prm[0] = given
    prm[0].div_magic, prm[0].div_shift = division_magic(P)
    return FTLState(
        l2p=np.full(logical_pages, -1, np.int32), p2l=np.full(L * P, -1, np.int32),
        valid=np.zeros(L, np.int32), kind=np.full(L, -1, np.int8), status=np.zeros(L, np.int8),
        free_q=np.arange(L, dtype=np.int32), fifo=jk.list_new(L, 1), buckets=jk.list_new(L, P + 1),
        cands=np.zeros(L, np.int32), cand_pos=np.full(L, -1, np.int32), close_seq=np.zeros(L, np.int64),
        close_time=np.zeros(L, np.int64), entered=np.zeros(L, np.int64), erase_count=np.zeros(L, np.int64),
        sc=sc, rng=np.array([seed], np.uint64), counters=np.zeros(N_COUNTERS, np.int64), prm=prm,
        copy_dest=np.asarray(copy_dest, np.int64), pass_victims=np.zeros(L, np.int32),
        heap=np.zeros(L + 1, np.int32), hpos=np.zeros(L, np.int32),
        **_order_arrays(L, P, prm[0].age_lists != 0), copy_buf=np.zeros(P + COPY_PREFETCH, np.int32))


STATE_T = numba.typeof(new_state(2, 8, 4))
VICTIM_SIG = types.int64(STATE_T, types.boolean)
"""``pick(state, first) -> line or -1``: a victim rule. ``first`` says whether it chooses the first
victim of a GC pass or a follow-up. It must return a closed line and must not change the lists; it may
update counters and its own scalar state. A first victim with no invalid page is copied whole by reserve and
forced passes (``random-all`` draws such lines) and refused by background passes."""


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def splitmix64(rng):
    """The next number of the splitmix64 stream whose state is ``rng[0]`` (FEMU's ``ftl_gc_rand``: the
    state starts at the seed and advances by the golden-ratio constant before each draw)."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def draw_below(rng, n):
    """A draw from splitmix64 reduced modulo ``n`` (n > 0), as FEMU indexes its victim heap."""
    return np.int64(splitmix64(rng) % np.uint64(n))


@njit(cache=True, inline="always")
def sample_least_valid(cands, n, valid, rng, d):
    """The least-valid of ``d`` candidates drawn uniformly with replacement from ``cands[:n]`` (``cands[r %
    n]``), ties to the earliest draw; -1 (and no draw) when ``n == 0``. FEMU's ``random`` (d = 1) and
    ``d-choice`` rules, and the mechanism's background probe for them (``prm.sample_draws``): one function,
    so the two cannot differ. It takes arrays, not the state: the rules are compiled with reference counting,
    where passing the state to an inlined helper costs a reference-count update per array field."""
    if n == 0:
        return -1
    best = cands[draw_below(rng, n)]
    for _ in range(d - 1):
        ln = cands[draw_below(rng, n)]
        if valid[ln] < valid[best]:
            best = ln
    return best


@njit(cache=True, inline="always")
def draw_closed(fifo, L, rng):
    """A closed line drawn uniformly: ``r % L`` drawn again until the line is on the FIFO of closed lines
    (``fifo``, the state's), or -1 (and no draw) when the FIFO is empty. ``random-all``'s first victim, and the
    mechanism's background probe for it (``prm.sample_draws == SAMPLE_CLOSED``), which calls it
    through :func:`_bg_draw`."""
    if fifo[2 * L + 1] == L:  # jitkit's list_front: no closed line
        return -1
    while True:
        ln = draw_below(rng, L)
        if fifo[2 * ln] >= 0:  # jitkit's list_contains
            return ln


@njit(cache=True, inline="always")
def _cand_add(s, ln):
    """Closed line ``ln`` becomes a candidate (it has an invalid page): appended to ``cands``, its position in
    ``cand_pos``."""
    n = s.sc[0].n_cands
    s.cands[n] = ln
    s.cand_pos[ln] = n
    s.sc[0].n_cands = n + 1


@njit(cache=True, inline="always")
def _cand_remove(s, ln):
    """Line ``ln`` leaves the candidates (a victim) if it is one: the last candidate moves into its place."""
    i = s.cand_pos[ln]
    if i >= 0:
        n = s.sc[0].n_cands - 1
        last = s.cands[n]
        s.cands[i] = last
        s.cand_pos[last] = i
        s.cand_pos[ln] = -1
        s.sc[0].n_cands = n


@njit(cache=True, inline="always")
def _heap_up(heap, hpos, valid, i):
    """pqueue.c's bubble_up: move ``heap[i]`` towards the root while its parent has more valid pages."""
    moving = heap[i]
    v = valid[moving]
    while i > 1:
        p = heap[i >> 1]
        if valid[p] <= v:
            break
        heap[i] = p
        hpos[p] = i
        i >>= 1
    heap[i] = moving
    hpos[moving] = i


@jk.njit_no_refcount
def _heap_down(heap, hpos, valid, n, i):
    """pqueue.c's percolate_down over ``heap[1:n + 1]``: move ``heap[i]`` down while its smaller child (the
    left one on ties) has fewer valid pages."""
    moving = heap[i]
    v = valid[moving]
    while True:
        c = i << 1
        if c > n:
            break
        if c + 1 <= n and valid[heap[c]] > valid[heap[c + 1]]:
            c += 1
        if v <= valid[heap[c]]:
            break
        heap[i] = heap[c]
        hpos[heap[i]] = i
        i = c
    heap[i] = moving
    hpos[moving] = i


@jk.njit_no_refcount
def _heap_insert(s, ln):
    """pqueue.c's pqueue_insert: ``ln`` enters the victim heap at the bottom and bubbles up."""
    n = s.sc[0].heap_size + 1
    s.sc[0].heap_size = n
    s.heap[n] = ln
    _heap_up(s.heap, s.hpos, s.valid, n)


@jk.njit_no_refcount
def _heap_remove(s, ln):
    """pqueue.c's pqueue_pop for the root (the last line moves there and percolates down), its
    pqueue_remove elsewhere (the last line takes ``ln``'s slot and moves up or down from there)."""
    heap, hpos, valid = s.heap, s.hpos, s.valid
    i = hpos[ln]
    n = s.sc[0].heap_size - 1
    s.sc[0].heap_size = n
    hpos[ln] = 0
    if i <= n:
        heap[i] = heap[n + 1]
        if i > 1 and valid[ln] > valid[heap[i]]:
            _heap_up(heap, hpos, valid, i)
        else:
            _heap_down(heap, hpos, valid, n, i)


@njit(cache=True, inline="always")
def order_views(s):
    """The close-ordered structures as views of the three arrays they are packed in: ``(slot_of, slot_line,
    age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots)``:

    * ``slot_of`` int32[L]: a closed line's slot (-1 = none); ``slot_line`` int32[2L]: the line in a slot
      (-1 = vacated); ``slot_seq`` int64[2L]: the close number of the line that took a slot (increasing);
      ``slot_bits``: three jitkit bitsets over the slots (:func:`slot_bitset`);
    * ``age_slots``: row ``v < P``, a jitkit bitset over the slots of the closed lines filed under ``v``
      valid pages (empty unless ``prm.age_lists``); ``age_head`` int32[P]: row v's first slot (-1 =
      empty); ``age_bits``: bit v set iff row v is not empty; ``age_v`` int32[L]: the count a closed line is
      filed under (-1 = none, P = full: in no row; != valid: stale, logged); ``age_log`` int32[2L]: the
      logged lines, ``age_log[:sc.n_age_log]``;
    * ``watch`` float64[P + 1] (:func:`watch_view`): a line with v valid pages and close time <= watch[v]
      ends ``sc.watch_ok``.

    Three arrays rather than ten: every array of the state costs each call that passes the state, about
    2 ns an array (ten more made greedy and fifo 5-10% slower under paper 4's trigger, measured: PR
    notes)."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    o, o64, ob = s.order, s.order64, s.order_bits
    w = _bits_words_jit(2 * L)
    na = (P + 63) // 64
    pw = L * na  # page_bits, first
    nb = pw + N_SLOT_BITS * w
    return (o[:L], o[L:3 * L], o[3 * L:4 * L], o[4 * L:6 * L], o[6 * L:6 * L + P], o64[:2 * L], watch_view(s),
            ob[pw:nb], ob[nb:nb + na], ob[nb + na:])


@njit(cache=True, inline="always")
def watch_view(s):
    """float64[P + 1]: ``watch[v]``, the close time at or under which a closed line with ``v`` valid pages
    that closes or loses a page ends the watch (:data:`NO_WATCH`: none does; :data:`ALWAYS`: every one
    does), the bits of ``order64[2L:2L + P + 1]``. Floating point, so that a rule can fill it with vector
    instructions: AVX2 has none that turns a double into an int64, and converting ``P`` thresholds one by
    one cost cost-benefit 8 us a choice at ``P = 2048`` (AMD EPYC, AVX2). A close time (an int64 under 2**53) compares
    exactly."""
    L = s.prm[0].lines
    return s.order64[2 * L:2 * L + s.prm[0].pages + 1].view(np.float64)


@njit(cache=True, inline="always")
def count_odds(s):
    """float64[P + 1]: ``v / (P - v)``, the valid over the invalid pages of a line with ``v`` valid pages
    (``inf`` at ``v = P``), computed once: a rule that scores lines by utilisation multiplies by it instead of
    dividing (a vector division is several times slower than a multiplication)."""
    L = s.prm[0].lines
    return s.order64[2 * L + s.prm[0].pages + 1:].view(np.float64)


@njit(cache=True, inline="always")
def page_bits(s):
    """The valid-page bitmap, the first ``L * W`` words of ``order_bits`` (``W = ceil(P / 64)``): bit ``off & 63``
    of word ``line * W + off // 64`` is set iff page ``off`` of ``line`` is valid (``l2p[p2l[ppn]] == ppn``)."""
    return s.order_bits[:s.prm[0].lines * ((s.prm[0].pages + 63) // 64)]


@njit(cache=True, inline="always")
def _bits_words_jit(n):
    n0, n1, n2 = _dims(n)
    return n0 + n1 + n2


# --- close-ordered structures: age lists (prm.age_lists), slots (prm.slots), the watch (prm.watch) ------
@njit(cache=True, inline="always")
def _dims(n):
    """Words per level of a jitkit bitset over ranks 0..n-1."""
    n0 = (n + 63) // 64
    n1 = (n0 + 63) // 64
    return n0, n1, (n1 + 63) // 64


@njit(cache=True, inline="always")
def _bit(v):
    return np.uint64(1) << np.uint64(v & 63)


@njit(cache=True, inline="always")
def _bits_next_at(words, base, n0, n1, n2, r):
    """:func:`flashrepro.jitkit.bits_next` on the bitset at ``words[base:]``, without slicing the array (a
    slice is a new array, and each costs reference counts in a loop)."""
    if r >= n0 * 64:
        return -1
    w = r >> 6
    m = words[base + w] & (jk.ALL << np.uint64(r & 63))
    if m != 0:
        return (w << 6) + trailing_zeros(m)
    w += 1
    if w >= n0:
        return -1
    w1 = w >> 6
    m = words[base + n0 + w1] & (jk.ALL << np.uint64(w & 63))
    if m == 0:
        w1 += 1
        if w1 >= n1:
            return -1
        w2 = w1 >> 6
        m2 = words[base + n0 + n1 + w2] & (jk.ALL << np.uint64(w1 & 63))
        while m2 == 0:
            w2 += 1
            if w2 >= n2:
                return -1
            m2 = words[base + n0 + n1 + w2]
        w1 = (w2 << 6) + trailing_zeros(m2)
        m = words[base + n0 + w1]
    w = (w1 << 6) + trailing_zeros(m)
    return (w << 6) + trailing_zeros(words[base + w])


@njit(cache=True, inline="always")
def _bits_add_at(words, base, n0, n1, r):
    """:func:`flashrepro.jitkit.bits_add` on the bitset at ``words[base:]``."""
    w = r >> 6
    words[base + w] |= _bit(r)
    w1 = w >> 6
    words[base + n0 + w1] |= _bit(w)
    words[base + n0 + n1 + (w1 >> 6)] |= _bit(w1)


@njit(cache=True, inline="always")
def _bits_remove_at(words, base, n0, n1, r):
    """:func:`flashrepro.jitkit.bits_remove` on the bitset at ``words[base:]``."""
    w = r >> 6
    words[base + w] &= ~_bit(r)
    if words[base + w] == 0:
        w1 = w >> 6
        words[base + n0 + w1] &= ~_bit(w)
        if words[base + n0 + w1] == 0:
            words[base + n0 + n1 + (w1 >> 6)] &= ~_bit(w1)


@njit(cache=True, inline="always")
def _age_move_in(age_slots, age_head, age_bits, age_v, slot_of, L, P, ln, v):
    """Count closed line ``ln`` under ``v`` valid pages (-1: under none, it is a victim): its slot leaves the
    row of its old count and joins row ``v`` (a full line, ``v = P``, is in no row), and each row's first
    slot (``age_head``) and non-empty bit follow. O(1): the rows are bitsets over the slots, which are in
    close order, so each row is in close order for free."""
    n0, n1, n2 = _dims(2 * L)
    w = n0 + n1 + n2
    old = age_v[ln]
    slot = slot_of[ln]
    if 0 <= old < P:
        _bits_remove_at(age_slots, old * w, n0, n1, slot)
        if age_head[old] == slot:  # it was the earliest-closed: the next one is
            age_head[old] = _bits_next_at(age_slots, old * w, n0, n1, n2, slot)
            if age_head[old] < 0:
                age_bits[old >> 6] &= ~_bit(old)
    if 0 <= v < P:
        _bits_add_at(age_slots, v * w, n0, n1, slot)
        if age_head[v] < 0 or slot < age_head[v]:
            age_head[v] = slot
            age_bits[v >> 6] |= _bit(v)
    age_v[ln] = v


@jk.njit_no_refcount
def _age_move(s, ln, v):
    """:func:`_age_move_in` on the state (a line closes or becomes a victim)."""
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = order_views(s)
    _age_move_in(age_slots, age_head, age_bits, age_v, slot_of, s.prm[0].lines, s.prm[0].pages, ln, v)


@jk.njit_no_refcount
def sync_ages(s):
    """Move every line of ``age_log`` to the row of its valid count. A closed line that loses a page is only
    logged (the host loop's cost is a test and a store, and a line often loses several pages between two
    reads); the rules that read the rows call this first, and :func:`write_chunk` at its end."""
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = order_views(s)
    valid = s.valid
    L = s.prm[0].lines
    P = s.prm[0].pages
    for i in range(s.sc[0].n_age_log):
        ln = age_log[i]
        if age_v[ln] >= 0 and age_v[ln] != valid[ln]:  # not a victim since, and stale
            _age_move_in(age_slots, age_head, age_bits, age_v, slot_of, L, P, ln, valid[ln])
    s.sc[0].n_age_log = 0


@njit(cache=True, inline="always")
def age_next(age_bits, v):
    """The smallest valid count ``>= v`` (below ``P``) with a closed line, or -1 (``age_bits`` is the state's;
    after :func:`sync_ages`). The read helpers take the state's arrays, not the state: a rule calls them
    in loops, where, in a rule compiled with reference counting, passing the state to an inlined helper costs
    a reference count per array field."""
    w = v >> 6
    if w >= age_bits.shape[0]:
        return -1
    m = age_bits[w] & (jk.ALL << np.uint64(v & 63))
    while m == 0:
        w += 1
        if w >= age_bits.shape[0]:
            return -1
        m = age_bits[w]
    return (w << 6) + trailing_zeros(m)


@njit(cache=True, inline="always")
def age_first(age_slots, L, v, start):
    """The first slot at or after ``start`` of a closed line with ``v < P`` valid pages, or -1
    (``age_slots`` is the state's; after :func:`sync_ages`)."""
    n0, n1, n2 = _dims(2 * L)
    return _bits_next_at(age_slots, v * (n0 + n1 + n2), n0, n1, n2, start)


@njit(cache=True, inline="always")
def slot_bitset(slot_bits, L, which):
    """Bitset ``which`` (``SLOT_UNDER``, ``SLOT_UNDER_COLD``, ``SLOT_HAS_INVALID``) of ``slot_bits``."""
    n0, n1, n2 = _dims(2 * L)
    w = n0 + n1 + n2
    return slot_bits[which * w:(which + 1) * w]


@njit(cache=True, inline="always")
def _slot_mark(slot_bits, L, slot, v, cold, limit, P):
    """Set a closed line's slot in the bitsets its valid count ``v`` puts it in."""
    n0, n1, _ = _dims(2 * L)
    if v <= limit:
        jk.bits_add(slot_bitset(slot_bits, L, SLOT_UNDER_COLD if cold else SLOT_UNDER), n0, n1, slot)
    if v < P:
        jk.bits_add(slot_bitset(slot_bits, L, SLOT_HAS_INVALID), n0, n1, slot)


@jk.njit_no_refcount
def _slot_compact(s):
    """Renumber the closed lines' slots 0, 1, ... in close order (when every slot was handed out: at most
    once per ``L`` closes, as there are ``2L`` slots and at most ``L`` closed lines)."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = order_views(s)
    slot_line[:] = -1
    slot_bits[:] = 0
    i = 0
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        slot_of[ln] = i
        slot_line[i] = ln
        slot_seq[i] = s.close_seq[ln]
        _slot_mark(slot_bits, L, i, s.valid[ln], s.kind[ln] == COLD, s.prm[0].limit, P)
        i += 1
        ln = jk.list_next(s.fifo, ln)
    s.sc[0].n_slots = i
    if s.prm[0].age_lists:  # the rows, at the new slots (a stale line stays under its old count, logged)
        age_slots[:] = 0
        age_head[:] = -1
        n0, n1, n2 = _dims(2 * L)
        ln = jk.list_front(s.fifo, L)
        while ln != L:
            v = age_v[ln]
            if 0 <= v < P:
                _bits_add_at(age_slots, v * (n0 + n1 + n2), n0, n1, slot_of[ln])
                if age_head[v] < 0:
                    age_head[v] = slot_of[ln]
            ln = jk.list_next(s.fifo, ln)


@jk.njit_no_refcount
def _slot_add(s, ln):
    """A line just closed (it is at the back of the FIFO): the next slot."""
    L = s.prm[0].lines
    if s.sc[0].n_slots == 2 * L:
        _slot_compact(s)  # ln included: it is on the FIFO already
        return
    i = s.sc[0].n_slots
    s.sc[0].n_slots = i + 1
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = order_views(s)
    slot_of[ln] = i
    slot_line[i] = ln
    slot_seq[i] = s.close_seq[ln]
    _slot_mark(slot_bits, L, i, s.valid[ln], s.kind[ln] == COLD, s.prm[0].limit, s.prm[0].pages)


@jk.njit_no_refcount
def _slot_remove(s, ln):
    """Line ``ln`` leaves its slot (a victim): the slot is vacated and cleared from every slot bitset."""
    L = s.prm[0].lines
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = order_views(s)
    i = slot_of[ln]
    slot_of[ln] = -1
    slot_line[i] = -1
    n0, n1, _ = _dims(2 * L)
    for which in range(N_SLOT_BITS):
        jk.bits_remove(slot_bitset(slot_bits, L, which), n0, n1, i)


@njit(cache=True, inline="always")
def slot_last_closed_by(slot_seq, n_slots, seq):
    """The last slot whose line closed at or before close number ``seq`` (-1 if none), of the state's
    ``slot_seq`` and ``sc.n_slots``: the eligible prefix of the FIFO is slots 0 .. this one (binary search;
    ``slot_seq`` increases)."""
    lo = 0
    hi = n_slots  # answer in [lo - 1, hi - 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if slot_seq[mid] <= seq:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@jk.njit_no_refcount
def slot_first_from(slot_bits, L, which, start, last):
    """The first slot of bitset ``which`` of ``slot_bits`` (the state's) in cyclic order ``start .. last, 0 ..
    start - 1``, or -1."""
    n0, n1, n2 = _dims(2 * L)
    base = which * (n0 + n1 + n2)
    q = _bits_next_at(slot_bits, base, n0, n1, n2, start)
    if 0 <= q <= last:
        return q
    if start > 0:
        q = _bits_next_at(slot_bits, base, n0, n1, n2, 0)
        if 0 <= q < start:
            return q
    return -1


@jk.njit_no_refcount
def _open_line(s, k):
    """The next free line (the free queue's head) opens as frontier ``k``'s line at offset 0; returns it. A
    device with no free line left raises: its logical space does not fit the geometry."""
    sc = s.sc[0]
    L = s.prm[0].lines
    if sc.free_count == 0:
        raise RuntimeError("FTL has no free line left: the logical space does not fit the geometry")
    ln = s.free_q[sc.free_head]
    sc.free_head = (sc.free_head + 1) % L
    sc.free_count -= 1
    s.status[ln] = OPEN
    s.kind[ln] = k
    sc.front_line[k] = ln
    sc.front_off[k] = 0
    return ln


@jk.njit_no_refcount
def _close_line(s, ln):
    """A full line joins the FIFO, its valid-count bucket and, with an invalid page, the candidates."""
    sc = s.sc[0]
    L = s.prm[0].lines
    s.status[ln] = CLOSED
    sc.seq += 1
    s.close_seq[ln] = sc.seq
    s.close_time[ln] = sc.clock
    sc.n_closed += 1
    jk.list_push_back(s.fifo, L, ln)
    v = s.valid[ln]
    s.entered[ln] = sc.tick
    sc.tick += 1
    if s.prm[0].eager_buckets:
        jk.list_push_back(s.buckets, L + v, ln)
        if v < sc.bmin:
            sc.bmin = v
    if v < s.prm[0].pages:
        _cand_add(s, ln)
        if s.prm[0].heap:
            _heap_insert(s, ln)
    if v <= _bg_valid_max(s):
        sc.n_bg_ok += 1
    sc.bg_gen += 1
    if sc.cursor == CURSOR_PENDING:
        sc.cursor = ln
    if s.prm[0].slots:
        _slot_add(s, ln)
    if s.prm[0].age_lists:
        _age_move(s, ln, v)
    if s.prm[0].watch and sc.clock <= watch_view(s)[v]:
        sc.watch_ok = 0


@njit(cache=True, inline="always")
def _bg_valid_max(s):
    """The most valid pages a line may hold and still be a background victim (-1 without background GC)."""
    if s.prm[0].background < 0:
        return -1
    return s.prm[0].pages - max(1, s.prm[0].bg_min_invalid)


@njit(cache=True)
def rebuild_buckets(s):
    """Relink every closed line into bucket ``valid[line]`` in ``entered`` order, and set ``sc.bmin`` to
    the smallest non-empty bucket: the lists as eager maintenance would have left them."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    b = s.buckets
    b[:2 * L] = -1
    for v in range(P + 1):
        b[2 * (L + v)] = L + v
        b[2 * (L + v) + 1] = L + v
    closed = np.flatnonzero(s.status == CLOSED)
    order = closed[np.argsort(s.entered[closed])]
    bmin = P + 1
    for ln in order:
        v = s.valid[ln]
        jk.list_push_back(b, L + v, ln)
        bmin = min(bmin, v)
    s.sc[0].bmin = min(bmin, P)


@jk.njit_no_refcount
def _detach(s, victim):
    """Take a chosen victim off every list (its pages stay until :func:`_copy_erase`); the cursor moves
    past it."""
    L = s.prm[0].lines
    sc = s.sc[0]
    nxt = jk.list_next(s.fifo, victim)
    if nxt == L and s.prm[0].cursor_resume:
        nxt = CURSOR_PENDING  # the newest closed line: resume at the next line to close
    sc.cursor = nxt
    jk.list_unlink(s.fifo, victim)
    if jk.list_contains(s.buckets, victim):  # lazy buckets: it may not be linked yet
        jk.list_unlink(s.buckets, victim)
    _cand_remove(s, victim)
    if s.prm[0].heap and s.hpos[victim] > 0:
        _heap_remove(s, victim)
    if s.valid[victim] <= _bg_valid_max(s):
        sc.n_bg_ok -= 1
    sc.bg_gen += 1
    if s.prm[0].age_lists:
        _age_move(s, victim, np.int32(-1))
    if s.prm[0].slots:
        _slot_remove(s, victim)
    if victim == sc.watch_line:
        sc.watch_ok = 0


@njit(cache=True, inline="always")
def _gather_valid(s, victim, bits, P, W):
    """The logical pages of ``victim``'s valid pages, in offset order, into ``s.copy_buf``; returns how many.

    Without a branch: every page's logical number is stored and the slot advances only past a valid one (a page
    is valid iff its bit is set; about one page in ten of a typical victim is not, at random, which a branch
    mispredicts). (``jk.load`` and ``jk.store``: indices from the state, in range, without Numba's fix-up for
    negative ones.)"""
    p2l, moved = s.p2l, s.copy_buf
    base = victim * P
    k = 0
    for wi in range(W):
        m = jk.load(bits, victim * W + wi)
        o0 = wi * 64
        for t in range(min(64, P - o0)):
            jk.store(moved, k, jk.load(p2l, base + o0 + t))
            k += np.int64((m >> np.uint64(t)) & np.uint64(1))
    return k


@njit(cache=True, inline="always")
def _erase(s, victim, bits, W):
    """Erase ``victim``: its page bits and valid count cleared, it is free (at the end of the free queue), and
    its erase counted."""
    sc = s.sc[0]
    bits[victim * W:(victim + 1) * W] = 0
    s.valid[victim] = 0
    s.status[victim] = FREE
    s.kind[victim] = -1
    sc.n_closed -= 1
    s.erase_count[victim] += 1
    s.counters[ERASES] += 1
    s.free_q[(sc.free_head + sc.free_count) % s.prm[0].lines] = victim
    sc.free_count += 1


@jk.njit_no_refcount
def _copy_erase(s, victim):
    """Copy a detached victim's valid pages to their frontier (:func:`_gather_valid`, then in runs that fill the
    destination line; copying a page does not change whether another page of the victim is valid, so this is
    the page-by-page order), erase it and free it (:func:`_erase`). Returns the pages copied."""
    P = s.prm[0].pages
    sc = s.sc[0]
    l2p, p2l, valid = s.l2p, s.p2l, s.valid
    eager = s.prm[0].host_eager != 0
    src = s.kind[victim]
    dst = s.copy_dest[src]
    bits = page_bits(s)
    W = (P + 63) // 64
    moved = s.copy_buf
    k = _gather_valid(s, victim, bits, P, W)
    moved[k:k + COPY_PREFETCH] = 0  # what the copy loop prefetches past the last page: l2p[0]
    for t in range(min(k, COPY_PREFETCH)):  # the copy loop prefetches COPY_PREFETCH pages ahead of itself
        prefetch(l2p, jk.load(moved, t))
    dl = sc.front_line[dst]  # the destination frontier
    do = sc.front_off[dst]
    j = 0
    while j < k:
        if dl < 0:
            dl = _open_line(s, dst)
            do = 0
        run = min(P - do, k - j)
        first_ppn = dl * P + do
        for t in range(run):
            prefetch(l2p, jk.load(moved, j + t + COPY_PREFETCH))
            lpn = jk.load(moved, j + t)
            jk.store(p2l, first_ppn + t, lpn)
            jk.store(l2p, lpn, first_ppn + t)
        _bits_set_run(bits, dl * W, do, do + run)
        valid[dl] += run
        do += run
        j += run
        if do == P:
            _close_line(s, dl)
            dl = -1
            do = 0
            if dst == 0 and eager and sc.free_count > 0:  # FEMU's write pointer takes its next line now
                dl = _open_line(s, np.int64(0))
    sc.front_line[dst] = dl
    sc.front_off[dst] = do
    s.counters[COPY + N_KINDS * src + dst] += k
    _erase(s, victim, bits, W)
    return k


@njit(cache=True, inline="always")
def _bits_set_run(bits, base, lo, hi):
    """Set bits ``lo .. hi - 1`` of the bitmap at ``bits[base:]`` (a run of pages just written in a line)."""
    while lo < hi:
        w = lo >> 6
        b = lo & 63
        n = min(64 - b, hi - lo)
        m = jk.ALL if n == 64 else ((np.uint64(1) << np.uint64(n)) - np.uint64(1)) << np.uint64(b)
        bits[base + w] |= m
        lo += n


@njit(cache=True, inline="always")
def _log_victim(victim, sc, log_victims):
    """Count a victim in ``sc.nlog_v`` and record it in ``log_victims`` while that has room."""
    n = sc.nlog_v
    if n < log_victims.shape[0]:
        log_victims[n] = victim
    sc.nlog_v = n + 1


@jk.njit_no_refcount
def _gc_pass(s, pick, min_invalid, log_victims):
    """One garbage collection: the victim rule's first victim, if it has at least ``min_invalid`` invalid
    pages (reserve and forced passes ask for none: a line with no invalid page is copied whole), then
    follow-up victims until the stop rule holds. Returns the pages copied, or -1 when nothing was collected."""
    s.sc[0].pick_note = 0
    victim = pick(s, True)
    if victim < 0 or s.prm[0].pages - s.valid[victim] < min_invalid:
        return -1
    return _gc_pass_from(s, pick, victim, log_victims)


@jk.njit_no_refcount
def _gc_pass_from(s, pick, victim, log_victims):
    """A GC pass whose first victim is chosen (and accepted): it, then follow-up victims until the stop
    rule holds. Returns the pages copied."""
    P = s.prm[0].pages
    s.counters[GC_PASSES] += 1
    if s.sc[0].pick_note > 0:  # the rule's fallback chose this first victim
        s.counters[s.sc[0].pick_note] += 1
    stop = s.prm[0].stop
    max_victims = s.prm[0].max_victims
    upfront = s.prm[0].select_upfront != 0 and stop != STOP_ONE
    sum_valid = 0
    sum_invalid = 0
    n = 0
    copies = 0
    while True:
        v = s.valid[victim]
        sum_valid += v
        sum_invalid += P - v
        _log_victim(victim, s.sc[0], log_victims)
        s.counters[VICTIMS] += 1
        _detach(s, victim)
        if upfront:
            s.pass_victims[n] = victim
        else:
            copies += _copy_erase(s, victim)
        n += 1
        if stop == STOP_ONE or (stop == STOP_VALID and sum_valid > P) or (
                stop == STOP_INVALID and sum_invalid >= P) or (max_victims > 0 and n >= max_victims):
            break
        victim = pick(s, False)
        if victim < 0:
            break
    if upfront:  # every victim chosen: now the copies
        for j in range(n):
            copies += _copy_erase(s, np.int64(s.pass_victims[j]))
    return copies


@jk.njit_no_refcount
def _gc_until(s, pick, free_above, forced, log_victims):
    """GC passes while free lines <= ``free_above`` (counted as forced passes if ``forced``). Returns the
    pages copied."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    copies = 0
    passes = 0  # passes that took an invalid page
    while s.sc[0].free_count <= free_above:
        victims = s.counters[VICTIMS]
        c = _gc_pass(s, pick, np.int64(0), log_victims)
        if c < 0:
            raise RuntimeError("FTL garbage collection found no closed line to collect")
        if forced:
            s.counters[FORCED_PASSES] += 1
        copies += c
        if c < P * (s.counters[VICTIMS] - victims):  # not only lines with no invalid page (random-all's draws)
            passes += 1
            if passes > L * (P + 1):  # each such pass removes an invalid page: cannot happen
                raise RuntimeError("FTL garbage collection reclaims no space")
    return copies


@njit(cache=True, inline="always")
def watch_holds(sc, now):
    """Whether a watching rule's published answer ``sc.watch_line`` still holds at clock ``now``: nothing
    cleared ``sc.watch_ok`` and ``now`` is under ``sc.watch_until``. While it holds, the rule's pick returns
    that line."""
    return sc.watch_ok != 0 and now < sc.watch_until


@njit(cache=True, inline="always")
def _background_skips(sc, stable, watching, now):
    """Whether FEMU's background pass after this write is skipped without asking the victim rule: no
    closed line has enough invalid pages (whatever the rule chose would be refused; the random rules then
    draw nothing), or the rule refused last time and its choice cannot have changed since: nothing
    happened that could change it (a line closed or was erased, a closed line reached enough invalid
    pages: ``sc.bg_gen`` is where it was at the refusal, ``sc.bg_skip_gen``), and either the rule is
    registered with ``stable_skip`` (``stable``, from ``prm.stable_skip``: its choice moves only with
    those events) or it ``watches`` (``prm.watch``) and its watched answer still holds at clock ``now``
    (2R's scan was O(lines), cost-benefit's is O(valid counts), and FEMU's background rule asks after every
    write)."""
    if sc.n_bg_ok == 0:
        return True
    if sc.bg_skip_gen != sc.bg_gen:
        return False
    return stable or (watching and watch_holds(sc, now))


@jk.njit_no_refcount
def _background_pass(s, pick, bg_min, victim, log_victims, log_copies, write, do_log):
    """FEMU's background GC after a host write: one pass, skipped if its first victim has too few invalid
    pages (the caller has checked :func:`_background_skips`). ``victim``: the first victim if the caller
    has drawn it already (a rule registered ``samples``, see :func:`write_chunk`), else -2: ask the rule."""
    if victim == -2:
        s.sc[0].pick_note = 0
        victim = pick(s, True)
        if victim < 0 or s.prm[0].pages - s.valid[victim] < max(1, bg_min):
            s.counters[SKIPPED_BACKGROUND] += 1
            s.sc[0].bg_skip_gen = s.sc[0].bg_gen
            return
    else:
        s.sc[0].pick_note = 0
    c = _gc_pass_from(s, pick, victim, log_victims)
    s.counters[BACKGROUND_PASSES] += 1
    if do_log:
        log_copies[write] += c


@jk.njit_no_refcount
def _host_needs_line(s, pick, k, log_victims):
    """Frontier ``k`` has no line: the reserve rule's GC, then a line (unless GC copies opened one).
    Returns the pages copied."""
    copies = 0
    if s.sc[0].free_count <= s.prm[0].reserve:
        copies = _gc_until(s, pick, s.prm[0].reserve, np.bool_(False), log_victims)
    if s.sc[0].front_line[k] < 0:
        _open_line(s, k)
    return copies


@jk.njit_no_refcount
def _host_write_to(s, pick, k, lpn, clock, log_victims, eager):
    """One host write placed in frontier ``k`` by the state's fields instead of the host path's registers
    (the same steps): a placement oracle's tagged writes (:func:`write_chunk`'s ``kinds``), lazy, and with
    ``eager`` (FEMU's write pointer, ``k = 0``) a host write that finds no host line (GC copies filled it
    when no line was free), which invalidates the old copy first and takes the next line as soon as it
    fills. The caller has stored the host path's registers in ``sc``. Returns ``(pages GC copied, 1 if
    the page's old copy was in a cold line, 1 if this is the page's first write)``."""
    sc = s.sc[0]
    h = _host_path(s)
    P, W = h.P, h.W
    copies = 0
    if sc.front_line[k] < 0 and not eager:
        sc.clock = clock
        copies = _host_needs_line(s, pick, k, log_victims)
    returned = 0
    first = 0
    old = s.l2p[lpn]
    bits = page_bits(s)
    if old >= 0:
        returned = _old_copy_invalid(s, h, order_views(s), bits, old, sc.tick)
        sc.tick += 1
        if eager:
            s.l2p[lpn] = -1  # the old copy is invalid before GC runs below
    else:
        first = 1
    if sc.front_line[k] < 0:  # eager: after the invalidation, as FEMU's ssd_write
        sc.clock = clock
        copies += _host_needs_line(s, pick, k, log_victims)
    fl = sc.front_line[k]
    fo = sc.front_off[k]
    ppn = fl * P + fo
    s.p2l[ppn] = lpn
    s.l2p[lpn] = ppn
    bits[fl * W + (fo >> 6)] |= _bit(fo)
    s.valid[fl] += 1
    fo += 1
    sc.front_off[k] = fo
    if fo == P:
        sc.clock = clock + 1
        _close_line(s, fl)
        sc.front_line[k] = -1
        sc.front_off[k] = 0
        if eager:
            copies += _host_needs_line(s, pick, k, log_victims)
    return copies, returned, first


class HostPath(NamedTuple):
    """What :func:`write_chunk`'s host path reads from ``prm`` on every write, read once per chunk
    (:func:`_host_path`) and passed to its steps, so that the steps keep them in registers."""

    P: int  # pages per line
    L: int  # lines
    W: int  # words per line of page_bits
    magic: int  # old // P as (old * magic) >> shift
    shift: int
    reserve: int  # prm.reserve, prm.forced, prm.background, prm.bg_min_invalid
    forced: int
    background: int
    bg_min: int
    bg_need: int  # invalid pages a background victim needs: max(1, bg_min)
    bg_max: int  # the valid count at which a closed line becomes a background victim (-1: no background GC)
    trigger: int  # max(forced, background): -1 under the reserve rule alone, one test per write
    eager_buckets: bool  # prm.eager_buckets: the bucket lists follow every change
    heap: bool  # prm.heap: FEMU's victim heap, moved on every lost page if heap_kept
    heap_kept: bool
    eager_host: bool  # prm.host_eager: FEMU's write pointer
    stable: bool  # prm.stable_skip
    sample_d: int  # prm.sample_draws: > 0, sample_least_valid of this many draws; SAMPLE_CLOSED, draw_closed
    age_on: bool  # prm.age_lists, prm.slots, prm.watch
    slot_on: bool
    watch_on: bool
    limit: int  # prm.limit


@njit(cache=True, inline="always")
def _host_path(s):
    """The chunk's :class:`HostPath`."""
    prm = s.prm[0]
    P, L, forced, background, bg_min = prm.pages, prm.lines, prm.forced, prm.background, prm.bg_min_invalid
    return HostPath(P, L, (P + 63) // 64, prm.div_magic, prm.div_shift, prm.reserve, forced, background, bg_min,
                    max(1, bg_min), _bg_valid_max(s) if background >= 0 else -1, max(forced, background),
                    prm.eager_buckets != 0, prm.heap != 0, prm.heap == HEAP_KEPT, prm.host_eager != 0,
                    prm.stable_skip != 0, prm.sample_draws, prm.age_lists != 0, prm.slots != 0, prm.watch != 0,
                    prm.limit)


@njit(cache=True, inline="always")
def _bg_draw(s, h):
    """The first victim of a sampling rule's background pass, drawn here instead of by the rule (no call):
    :func:`sample_least_valid` of ``h.sample_d`` draws, or (``SAMPLE_CLOSED``) :func:`draw_closed`; -1 if
    none. Changes the rule's random stream ``rng``."""
    if h.sample_d > 0:
        return sample_least_valid(s.cands, s.sc[0].n_cands, s.valid, s.rng, h.sample_d)
    return draw_closed(s.fifo, h.L, s.rng)


@njit(cache=True, inline="always")
def _gc_at_write(s, pick, h, i, now, tick, fl, fo, log_copies, log_victims, do_log):
    """FEMU's GC around host write ``i`` at clock ``now`` (free lines are at or under ``h.trigger``): the
    background pass after write ``i - 1``, unless it is skipped (:func:`_background_skips`; or a watched answer
    or a sampling rule's draw with too few invalid pages, which also marks the refusal in ``sc.bg_skip_gen``),
    then the forced passes before write ``i``. ``tick, fl, fo`` are the host path's registers: stored in ``sc``
    before any pass and read back after it (copies may fill the host's line). Returns ``(tick, fl, fo,
    skipped)``."""
    sc = s.sc[0]
    bg = i > 0 and sc.free_count <= h.background
    bg_victim = -2
    skipped = 0
    if bg and _background_skips(sc, h.stable, h.watch_on, now):
        skipped = 1
        bg = False
    elif bg and h.watch_on and watch_holds(sc, now):  # a watching rule's answer while its watch holds is the
        # watched line (what its pick returns): read here, without a call
        bg_victim = sc.watch_line
    elif bg and h.sample_d != 0:  # a sampling rule's draw, here: no call, no read of a state field
        bg_victim = _bg_draw(s, h)
    if bg and bg_victim != -2 and (bg_victim < 0 or h.P - s.valid[bg_victim] < h.bg_need):
        skipped = 1
        sc.bg_skip_gen = sc.bg_gen
        bg = False
    if bg or sc.free_count <= h.forced:  # most writes skip both: the registers stay put
        sc.clock, sc.tick, sc.front_line[0], sc.front_off[0] = now, tick, fl, fo
        if bg:
            _background_pass(s, pick, h.bg_min, bg_victim, log_victims, log_copies, i - 1, do_log)
        if sc.free_count <= h.forced:
            c = _gc_until(s, pick, h.forced, np.bool_(True), log_victims)
            if do_log:
                log_copies[i] += c
        tick, fl, fo = sc.tick, sc.front_line[0], sc.front_off[0]
    return tick, fl, fo, skipped


@njit(cache=True, inline="always")
def _host_takes_line(s, pick, h, i, now, tick, fo, log_copies, log_victims, do_log):
    """The host frontier has no line before write ``i`` (lazy pointer): the reserve rule's GC, then the next free
    line unless GC copies opened one. Returns the registers ``(tick, fl, fo)``."""
    sc = s.sc[0]
    sc.tick, sc.front_line[0], sc.front_off[0] = tick, -1, fo
    if sc.free_count <= h.reserve:
        sc.clock = now
        c = _gc_until(s, pick, h.reserve, np.bool_(False), log_victims)
        if do_log:
            log_copies[i] += c
    fl = sc.front_line[0]  # greedy GC copies may have opened it
    if fl < 0:
        fl = _open_line(s, np.int64(0))
    return sc.tick, fl, sc.front_off[0]


@njit(cache=True, inline="always")
def _ordered_lost_page(s, h, ov, ln, v):
    """The close-ordered structures after closed line ``ln`` lost a page and holds ``v`` valid (``ov``:
    :func:`order_views`): its age row, logged the first time it leaves its count (:func:`sync_ages` files it);
    its slot in the slot bitsets it now belongs to (at most ``h.limit`` valid, an invalid page); and the watch,
    ended if the line could overtake the watched answer."""
    slot_of, _, age_v, age_log, _, _, watch, slot_bits, _, _ = ov
    sc = s.sc[0]
    if h.age_on and age_v[ln] == v + 1:  # it was under its count until now: log it
        if sc.n_age_log == age_log.shape[0]:
            sync_ages(s)
        age_log[sc.n_age_log] = ln
        sc.n_age_log += 1
    if h.slot_on and (v == h.limit or v == h.P - 1):
        n0, n1, _ = _dims(2 * h.L)
        if v == h.limit:
            jk.bits_add(slot_bitset(slot_bits, h.L, SLOT_UNDER_COLD if s.kind[ln] == COLD else SLOT_UNDER), n0, n1,
                        slot_of[ln])
        if v == h.P - 1:
            jk.bits_add(slot_bitset(slot_bits, h.L, SLOT_HAS_INVALID), n0, n1, slot_of[ln])
    if h.watch_on and s.close_time[ln] <= watch[v]:
        sc.watch_ok = 0


@njit(cache=True, inline="always")
def _old_copy_invalid(s, h, ov, pbits, old, tick):
    """A host write makes its logical page's old copy, physical page ``old``, invalid: its bit in ``pbits``
    (:func:`page_bits`), its line's valid count and bucket stamp (``entered``: ``tick``), and what follows that
    count for the victim rule: the bucket lists (``h.eager_buckets``), the candidates (the line's first invalid page),
    FEMU's heap (``h.heap``), the background victims' tally, and for a closed line the close-ordered structures
    (:func:`_ordered_lost_page`). The hot accesses use ``jk.load``/``jk.store``: every index is in range (a
    physical page from the mapping, its line). Returns 1 if the old copy was in a cold line."""
    sc, valid = s.sc[0], s.valid
    ln = (old * h.magic) >> h.shift  # old // P
    off = old - ln * h.P
    wi = ln * h.W + (off >> 6)
    jk.store(pbits, wi, jk.load(pbits, wi) & ~_bit(off))
    v = jk.load(valid, ln) - 1
    jk.store(valid, ln, v)
    jk.store(s.entered, ln, tick)  # for an open line, closing stamps it again
    closed = jk.load(s.status, ln) == CLOSED
    if h.eager_buckets and closed:
        jk.list_unlink(s.buckets, ln)
        jk.list_push_back(s.buckets, h.L + v, ln)
        if v < sc.bmin:
            sc.bmin = v
    if v == h.P - 1:  # only a closed line holds P valid pages: its first invalid page
        _cand_add(s, ln)
    if h.heap and closed:  # FEMU's mark_page_invalid
        if s.hpos[ln] > 0:
            if h.heap_kept:
                _heap_up(s.heap, s.hpos, valid, s.hpos[ln])
        elif v == h.P - 1:
            _heap_insert(s, ln)
    if v == h.bg_max and closed:
        sc.n_bg_ok += 1
        sc.bg_gen += 1
    if (h.age_on or h.slot_on or h.watch_on) and closed:
        _ordered_lost_page(s, h, ov, ln, v)
    return 1 if jk.load(s.kind, ln) == COLD else 0


@njit(cache=True, inline="always")
def _place(s, pick, h, i, now, lpn, tick, fl, fo, pbits, log_copies, log_victims, do_log):
    """Host write ``i`` of logical page ``lpn`` at clock ``now`` takes page ``fo`` of the host's line ``fl``
    (mapping, valid bit, valid count). A line it fills closes (at clock ``now + 1``), and with FEMU's write
    pointer (``h.eager_host``) the next line is taken at once, after the reserve rule's GC. Returns the
    registers ``(tick, fl, fo)``."""
    ppn = fl * h.P + fo
    jk.store(s.p2l, ppn, lpn)
    jk.store(s.l2p, lpn, ppn)
    wf = fl * h.W + (fo >> 6)
    jk.store(pbits, wf, jk.load(pbits, wf) | _bit(fo))
    jk.store(s.valid, fl, jk.load(s.valid, fl) + 1)
    fo += 1
    if fo == h.P:
        sc = s.sc[0]
        sc.clock, sc.tick = now + 1, tick
        _close_line(s, fl)
        fl = -1
        fo = 0
        if h.eager_host:
            sc.front_line[0], sc.front_off[0] = fl, fo
            c = _host_needs_line(s, pick, np.int64(0), log_victims)
            if do_log:
                log_copies[i] += c
            fl, fo = sc.front_line[0], sc.front_off[0]
        tick = sc.tick
    return tick, fl, fo


@njit(cache=True, inline="always")
def _chunk_end(s, pick, h, n, clock0, log_copies, log_victims, do_log):
    """After the chunk's ``n`` writes (from clock ``clock0``): FEMU's background pass after the last one, then
    the clock. Returns 1 if that pass was skipped without asking the rule, else 0."""
    sc = s.sc[0]
    skipped = 0
    if n > 0 and sc.free_count <= h.background:
        sc.clock = clock0 + n
        if _background_skips(sc, h.stable, h.watch_on, clock0 + n):
            skipped = 1
        else:
            _background_pass(s, pick, h.bg_min, np.int64(-2), log_victims, log_copies, n - 1, do_log)
    sc.clock = clock0 + n
    return skipped


@jk.njit_no_refcount
def _host_writes(lpns, s, pick, log_copies, log_victims, kinds):
    """:func:`write_chunk`'s host loop (its arguments). Each write: GC around it under FEMU's thresholds
    (:func:`_gc_at_write`), a line for the host frontier if it has none (:func:`_host_takes_line`; a tagged
    write or FEMU's pointer with no line: :func:`_host_write_to`), its old copy made invalid
    (:func:`_old_copy_invalid`), the page placed (:func:`_place`). The steps are inlined and this function is
    compiled without reference counting, so they cost nothing over one written-out loop (with reference
    counting, each call of a step costs an update per array it is passed, the state's included). The host frontier's
    line, offset and the bucket stamp stay in registers (``tick, fl, fo``), stored in ``sc`` before any call
    that reads them. Adds the host writes, the returns from cold lines, the first writes and the skipped
    background passes to the counters."""
    n = lpns.shape[0]
    h = _host_path(s)
    sc, l2p = s.sc[0], s.l2p
    pbits, ov = page_bits(s), order_views(s)
    do_log = log_copies.shape[0] == n
    tagged = kinds.shape[0] == n
    if do_log:
        log_copies[:] = 0  # GC adds to a write's slot
    clock0 = sc.clock
    skipped = returned = first = 0
    tick, fl, fo = sc.tick, sc.front_line[0], sc.front_off[0]
    for i in range(n):
        if i + PREFETCH < n:
            prefetch(l2p, jk.load(lpns, i + PREFETCH))
        if sc.free_count <= h.trigger:
            tick, fl, fo, sk = _gc_at_write(s, pick, h, i, clock0 + i, tick, fl, fo, log_copies, log_victims, do_log)
            skipped += sk
        if (tagged and kinds[i] != 0) or (fl < 0 and h.eager_host):  # a tagged write to another frontier, or
            # FEMU's write pointer found no line (GC copies filled the host's when none was free)
            sc.tick, sc.front_line[0], sc.front_off[0] = tick, fl, fo
            k = kinds[i] if tagged else 0
            c, r, f1 = _host_write_to(s, pick, k, lpns[i], clock0 + i, log_victims, h.eager_host and k == 0)
            if do_log:
                log_copies[i] += c
            returned += r
            first += f1
            tick, fl, fo = sc.tick, sc.front_line[0], sc.front_off[0]
            continue
        if fl < 0:
            tick, fl, fo = _host_takes_line(s, pick, h, i, clock0 + i, tick, fo, log_copies, log_victims, do_log)
        lpn = jk.load(lpns, i)
        old = jk.load(l2p, lpn)
        if old >= 0:
            returned += _old_copy_invalid(s, h, ov, pbits, old, tick)
            tick += 1
        else:
            first += 1
        tick, fl, fo = _place(s, pick, h, i, clock0 + i, lpn, tick, fl, fo, pbits, log_copies, log_victims, do_log)
    sc.tick, sc.front_line[0], sc.front_off[0] = tick, fl, fo
    skipped += _chunk_end(s, pick, h, n, clock0, log_copies, log_victims, do_log)
    s.counters[HOST] += n
    s.counters[RETURNED] += returned
    s.counters[FIRST_WRITES] += first
    s.counters[SKIPPED_BACKGROUND] += skipped


@njit(types.void(types.int32[::1], STATE_T, types.FunctionType(VICTIM_SIG), types.int32[::1], types.int32[::1],
                 types.int8[::1]), cache=True, nogil=True)
def write_chunk(lpns, s, pick, log_copies, log_victims, kinds):
    """Apply host writes to the device ``s``.

    Parameters
    ----------
    lpns : int32 array
        Logical pages written, in order.
    s : FTLState
        The device; updated in place.
    pick : first-class function with signature :data:`VICTIM_SIG`
        The victim rule.
    log_copies : int32 array
        If it has one slot per write, it receives the pages GC copied for each write: forced and
        reserve passes before it and a background pass after it (that pass runs at the top of the next
        iteration, or after the loop for the last write, which is the same moment). Otherwise unused.
    log_victims : int32 array
        Receives the victims, in order, while it has room; ``sc.nlog_v`` counts them all.
    kinds : int8 array
        If it has one slot per write, write ``i`` goes to frontier ``kinds[i]`` (0 = the host frontier,
        as without it; 1 or 2 = that frontier, with the reserve rule applied when it needs a line): a
        placement oracle's tags (:mod:`flashrepro.ftl.oracle`). Otherwise unused.

    The writes go through :func:`_host_writes`; then the structures the host loop keeps lazily are brought up
    to date (the bucket lists, :func:`rebuild_buckets`, unless kept eagerly; the age rows, :func:`sync_ages`).
    """
    _host_writes(lpns, s, pick, log_copies, log_victims, kinds)
    if s.prm[0].eager_buckets == 0:
        rebuild_buckets(s)
    if s.prm[0].age_lists:
        sync_ages(s)
