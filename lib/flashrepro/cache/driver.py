"""The per-reference loop of a page-granular cache policy, written once, and the hooks a policy supplies.

A policy that decides only *which* page to evict (``lru``, ``fifo``, ``random``, ``clock``, ``cflru``,
``spatial_clock``, ``bs_clock``; with the optional hooks for flushes and trace events, ``lru_flush`` and
``write_once``; placing missed pages in its tiers itself, ``clock_dnv``, and moving the pages it finds between them,
``clock_hbm``) is its state and five hooks;
:func:`compose` builds its ``step`` (the contract of :mod:`flashrepro.cache.contract`) from :func:`page_loop` with
the hooks inlined, so the loop below is the only place that does what every such policy does: the log's room
check, the CPU prefetch hint for a page's entry a few references ahead, hit or miss, the tallies, a device read on
a read miss (none on a write miss: it covers the whole page), a free frame while the cache fills, the victim's
write-back when it is dirty, the page table, and the per-chunk counter update. The page table is
``st.page_frame`` unless the policy gives the optional hooks (:data:`OPTIONAL_HOOKS`) that keep its pages another
way (Spatial Clock's resident bitmap). A prefetcher
(pages read ahead from the device) is six more hooks (:data:`PREFETCH_HOOKS`), kept apart from eviction as
libCacheSim's prefetchers are, so one prefetcher composes with any of these policies (:mod:`flashrepro.cache.obl`).

The policy's state is a ``NamedTuple`` with ``page_frame`` (int32 per unit: the frame holding it, -1 if not
resident; unless its optional hooks keep the pages) and ``sc``, the scalars: a one-element record array from
:func:`new_scalars`, whose record ``sc[0]`` has the fields of :data:`SCALARS` (``used``: frames in use,
``frames``: frames of the cache) and the policy's own. Its hooks, :data:`HOOKS`, are ``@njit(inline="always")``
functions with the signatures of the stand-ins below; ``r``, the policy's *registers*, is a tuple of scalars that
stays in CPU registers across a chunk (a hand, a random stream's state, a list's sentinel).

The hooks are *composed at compile time*: :func:`compose` makes a copy of :func:`page_loop` whose globals
name the policy's hooks (the same code object, so tracebacks and the line numbers Numba reports are this
file's) and compiles it with Numba's IR inlining of every hook. Numba caches it per policy (its
qualified name is the policy's): a closure over the hooks would be compiled again in every process. The
package's JIT cache folder is keyed by the source of this file and of every policy's module
(:mod:`flashrepro.jitcache`), so an edit to a hook is never served a stale compiled loop.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C

SCALARS = [("used", np.int64),  # frames in use (filled in order 0, 1, ...)
           ("frames", np.int64)]  # frames of the cache
HOOKS = ("begin", "hit", "victim", "admit", "end")
# Hooks a policy may leave out: where its pages are (the defaults keep the page table ``st.page_frame``), its own
# counters (the default has none), what it does at an entry before its reference (the default: nothing; a policy that
# flushes on a clock or at a trace's events), which free frame a page takes (the default: frames in order), the log
# rows one entry may write (the default: LOG_ROWS), whether a miss reads the device (the default: a read does),
# where a missed page goes (the default: a free frame or the victim's; a policy with tiers places it itself, and then
# gives no victim or admit hook) and whether a hit moves its page (the default: never; a policy with tiers may promote
# it, and then gives no hit hook). See the stand-ins below.
OPTIONAL_HOOKS = ("lookup", "ahead", "near", "unbind", "bind", "tally", "entry", "fresh", "rows", "miss_reads", "place",
                  "hit_move")
NEAR_DISTANCE = jk.PREFETCH_DISTANCE // 2  # references ahead where ``near`` is told of a page (see near)
PREFETCH_HOOKS = ("pf_begin", "pf_found", "pf_evicted", "pf_admitted", "pf_next", "pf_end")
PREFETCH_COUNTERS = (  # a policy composed with a prefetcher reports these after the base counters
    C.Counter("prefetch_hits", None, "requested pages that a prefetch had read (and nobody had requested since)"),
    C.Counter("prefetched_pages", "prefetch", "pages read ahead by the prefetcher"),
    C.Counter("prefetch_evicted", None, "prefetched pages evicted before any request"),
)
# What a composed copy of page_loop is compiled with (compose sets both in its copy's globals): whether it has a
# prefetcher, and the most log rows one reference can write (a read and a write-back, twice with a prefetch).
PREFETCHING = False
LOG_ROWS = C.ROWS_PER_REF
# Whether the policy places a missed page itself (the ``place`` hook; compose sets it)
PLACES = False
# compose's two readings of a miss: whether the victim's write-back is logged before the missed page's read
# (evict first, then load) rather than after it, and whether a victim's write-back is a run of ``dirty`` pages in
# one request (a bulk write) rather than one page
EVICT_FIRST = False
WRITEBACK_RUNS = False
PREFETCH_LOG_ROWS = 4  # LOG_ROWS with a prefetcher (a composed policy's Kernel.log_rows_per_ref)


def new_scalars(frames: int, extra=()) -> np.recarray:
    """A policy's scalars for a cache of ``frames`` frames: a one-element record array of :data:`SCALARS` and the
    policy's ``extra`` fields (``[(name, dtype), ...]``), all zero but ``frames``. Hooks read them by name from
    ``st.sc[0]``, a reference into the array."""
    sc = jk.scalars(SCALARS + list(extra))
    sc[0].frames = frames
    return sc


# The hooks' contract. These stand-ins are what page_loop's names mean until compose gives it a policy's.
def begin(st):
    """``r``: the policy's registers, read from its state ``st`` at the start of a chunk."""
    raise NotImplementedError("a policy's hook (compose)")


def hit(st, r, f, w):
    """A reference to the page in frame ``f`` (``w`` = 1 for a write): update the policy's order and the
    frame's dirty bit. Returns ``(r, dirtied)``, ``dirtied`` = 1 if a clean page became dirty."""
    raise NotImplementedError("a policy's hook (compose)")


def victim(st, r):
    """Every frame is in use and a page must come in: take a frame off the policy's order. Returns ``(r, f,
    page, dirty)``, the frame, the page it held and its dirty bit (the loop unbinds the page and writes it back
    if dirty); with ``WRITEBACK_RUNS``, ``dirty`` is the number of pages written back from it in one request
    (0 for a clean victim)."""
    raise NotImplementedError("a policy's hook (compose)")


def admit(st, r, f, p, w):
    """Frame ``f`` (a free one, or the victim's) now holds page ``p``: clean, or dirty if ``w``. Returns ``r``."""
    raise NotImplementedError("a policy's hook (compose)")


def end(st, r):
    """Store the registers ``r`` back into ``st`` at the end of a chunk."""
    raise NotImplementedError("a policy's hook (compose)")


def lookup(st, p):
    """The frame holding page ``p``, or -1 if it is not resident (default: the page table ``st.page_frame``)."""
    raise NotImplementedError("a policy's hook (compose)")


def ahead(st, p):
    """Page ``p`` is referenced a few references from now: a CPU prefetch hint for what :func:`lookup` and
    :func:`hit` will read of it (default: its page table entry)."""
    raise NotImplementedError("a policy's hook (compose)")


def near(st, p):
    """Page ``p`` is referenced :data:`NEAR_DISTANCE` references from now, half the distance of :func:`ahead`,
    whose hint has had time to bring in its page table entry: a hint for what that entry points at (a policy whose
    frames are rows in megabytes: the row of the frame that holds it). Default: nothing."""
    raise NotImplementedError("a policy's hook (compose)")


def unbind(st, p):
    """Page ``p``, the victim's, is no longer resident (default: its page table entry becomes -1)."""
    raise NotImplementedError("a policy's hook (compose)")


def bind(st, p, f):
    """Page ``p`` is now resident in frame ``f``; called before :func:`admit` (default: its page table entry)."""
    raise NotImplementedError("a policy's hook (compose)")


def tally(st, r, counters):
    """At the end of a chunk, after :func:`end`: add the policy's own counters (those after the base ones and a
    prefetcher's) from its registers ``r`` to ``counters`` (default: it has none)."""
    raise NotImplementedError("a policy's hook (compose)")


def entry(st, r, refs, i, counters, log, nlog, do_log, ref):
    """Entry ``i`` of ``refs`` is next, before its reference is looked up: what the policy does first (a flush its
    time has reached, a trace event; log rows at ``ref``). Returns ``(r, nlog, skip, freed)``: ``skip`` true for
    an entry that is no reference (an event: the loop goes on to the next entry and does not count it as a
    reference), ``freed`` the frames it emptied (each goes back to :func:`fresh`). Default: nothing."""
    raise NotImplementedError("a policy's hook (compose)")


def fresh(st, used):
    """The free frame a page takes while fewer than ``frames`` are in use (``used`` of them). Default: frame
    ``used`` (frames fill in order and are never emptied but by an eviction)."""
    raise NotImplementedError("a policy's hook (compose)")


def rows(st):
    """The most log rows one entry can write (the loop stops a chunk where fewer are left). Default: ``LOG_ROWS``."""
    raise NotImplementedError("a policy's hook (compose)")


def miss_reads(st, r, w, counters):
    """1 if a miss (``w`` = 1 for a write) reads the page from the device, else 0; may count it in ``counters``.
    Default: a read miss reads, a write miss covers the whole page."""
    raise NotImplementedError("a policy's hook (compose)")


def place(st, r, p, w, read, counters, log, nlog, do_log, ref):
    """Page ``p``, missed (``read``: read from the device; its log row the policy's to write, at ``ref``), goes where
    the policy puts it: a policy with tiers takes its frame, evicts, migrates and writes back, logging and
    counting each itself (the loop counts the reference, its hit or miss, the read and a write's dirtying).
    Returns ``(r, nlog)``. Default: none; the loop takes a frame (:func:`fresh` or :func:`evict`) and calls
    ``bind`` and ``admit``."""
    raise NotImplementedError("a policy's hook (compose)")


def hit_move(st, r, p, f, w, counters, log, nlog, do_log, ref):
    """A hit on page ``p`` in frame ``f`` of a policy that may move the page it finds (a promotion from one tier to
    another, which may evict): what :func:`hit` does, and the move, logged at ``ref`` and counted as :func:`place`
    logs and counts. Returns ``(r, nlog, dirtied)``. Default: :func:`hit` (nothing moves)."""
    raise NotImplementedError("a policy's hook (compose)")


# The prefetcher's hooks (libCacheSim's prefetcher interface: told of finds, evictions and insertions, asked what
# to prefetch). ``q`` is the prefetcher's registers, as ``r`` is the policy's. :data:`NO_PREFETCHER` is the default.
def pf_begin(st):
    """``q``: the prefetcher's registers, read from ``st`` at the start of a chunk."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def pf_found(st, q, f):
    """A request found its page in frame ``f``. Returns ``(q, found)``, ``found`` = 1 if that page had been
    prefetched and not requested since (it no longer counts as such)."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def pf_evicted(st, q, f):
    """The page in frame ``f`` is being evicted. Returns ``(q, unrequested)``, 1 if it was prefetched and never
    requested."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def pf_admitted(st, q, f, prefetched):
    """Frame ``f`` now holds a requested page (``prefetched`` = 0) or a prefetched one (1). Returns ``q``."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def pf_next(st, q, p, hit, w):
    """After a request to page ``p`` (``hit``, ``w`` as in the loop): the page to read ahead, or -1. Returns
    ``(q, page)``; the loop reads it only if it is not resident (a page after the last one has no unit: a
    prefetcher that reads p + j needs a unit halo of j, :meth:`Kernel.unit_halo`)."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def pf_end(st, q):
    """Store the registers ``q`` back into ``st`` at the end of a chunk."""
    raise NotImplementedError("a prefetcher's hook (compose)")


def evict(st, r, q, log, nlog, do_log, ref):
    """Every frame is in use: empty the ``victim``'s frame for a page coming in. Its page is unbound
    (``unbind``), the prefetcher hears of it (``pf_evicted``), and it is written back if dirty (a log row at
    ``ref``: one page, or with ``WRITEBACK_RUNS`` the ``dirty`` pages from it). Returns ``(r, q, f, dirty,
    unrequested, nlog)``: the frame, the pages written back (0 or 1, or the run's length), and whether it was a
    prefetched page nobody had requested."""
    r, f, v, dirty = victim(st, r)
    unbind(st, v)
    q, unrequested = pf_evicted(st, q, f)
    if do_log and dirty:
        nlog = C.row(log, nlog, ref, C.IO_WRITE, C.EVICTION, v, dirty if WRITEBACK_RUNS else 1, 0)
    return r, q, f, dirty, unrequested, nlog


def take_frame(st, r, q, used, frames, log, nlog, do_log, ref):
    """A frame for a page read ahead: the next free one while the cache fills, else the victim's (:func:`evict`).
    Returns ``(r, q, f, used, evicted, dirty, unrequested, nlog)``. (A miss's own frame is taken in the loop, the
    same way written out: through this helper fifo's and cflru's loops took 4-9% more instructions, perf stat.)"""
    if used < frames:
        return r, q, fresh(st, used), used + 1, 0, 0, 0, nlog
    r, q, f, dirty, unrequested, nlog = evict(st, r, q, log, nlog, do_log, ref)
    return r, q, f, used, 1, dirty, unrequested, nlog


def read_ahead(st, r, q, p, resident, w, used, frames, log, nlog, do_log, ref):
    """After a request to page ``p``: ask the prefetcher for a page to read ahead (``pf_next``); one that is not
    resident is read from the device (cause prefetch) into a frame taken as a miss takes one (:func:`take_frame`)
    and admitted clean. Returns ``(r, q, used, nlog, read, evicted, dirty, unrequested)``: ``read`` = 1 if a page
    was read, and the eviction it caused, as :func:`take_frame` says."""
    q, a = pf_next(st, q, p, resident, w)
    if a < 0 or lookup(st, a) >= 0:
        return r, q, used, nlog, 0, 0, 0, 0
    if do_log:
        nlog = C.row(log, nlog, ref, C.IO_READ, C.PREFETCH, a, 1, 0)
    r, q, f, used, evicted, dirty, unrequested, nlog = take_frame(st, r, q, used, frames, log, nlog, do_log, ref)
    bind(st, a, f)
    r = admit(st, r, f, a, 0)
    q = pf_admitted(st, q, f, 1)
    return r, q, used, nlog, 1, evicted, dirty, unrequested


def page_loop(refs, start, st, counters, log, nlog, outcome, base, do_log, no_read_alloc):
    """A page-granular policy over one chunk, from entry ``start`` of ``refs`` (a
    :class:`~flashrepro.traces.trace.RefStream`), with the policy's hooks and its prefetcher's (the stand-ins
    above say what each does).

    A hit (``lookup`` finds the page) calls ``hit_move`` (by default ``hit``). A miss reads the page from the device
    if it is a read (a write covers the whole page), takes the next free frame while the cache fills and otherwise
    empties the ``victim``'s frame (:func:`evict`: a device write if its page was dirty; with ``EVICT_FIRST`` logged
    before the read), then gives the page to ``bind`` and ``admit`` (a policy with tiers: to ``place``). With
    ``no_read_alloc`` (not None) a read miss is read from the device and not allocated. ``do_log`` and
    ``no_read_alloc`` are None or a value, so each combination is its own specialisation, compiled without the
    other's branches. A policy composed with a
    prefetcher (``PREFETCHING``, a constant of each composed copy) then reads ahead (:func:`read_ahead`).

    Changes ``sc[0].used`` and what the hooks change; adds the base counters to ``counters`` (then, with a
    prefetcher, :data:`PREFETCH_COUNTERS`, and the policy's own through ``tally``); with ``do_log``, writes each
    reference's outcome (``C.MISS``, ``C.HIT``, ``C.PREFETCH_HIT``) to ``outcome`` and its device I/O as rows of
    ``log`` from row ``nlog`` (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``: ``stop`` < the chunk's
    length when the log had no room for a reference's rows (the simulator grows it and calls again from
    ``stop``). Every index is in range by construction, so the hot accesses go through ``jk.load``/``jk.store``
    (no negative-index fix-up)."""
    unit, event = refs.unit, refs.event
    sc = st.sc[0]
    used, frames = sc.used, sc.frames
    r, q = begin(st), pf_begin(st)
    hits = write_hits = write_refs = dev_reads = dev_write_evict = write_reqs = dirtyings = evictions = events = 0
    pf_hits = prefetched = pf_unrequested = 0
    room = rows(st)
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + room > log.shape[0]:  # no room for this entry's rows: the log is grown
            stop = i
            break
        r, nlog, skip, freed = entry(st, r, refs, i, counters, log, nlog, do_log, base + i)
        used -= freed
        if skip:  # an entry that is no reference
            events += 1
            continue
        if i + jk.PREFETCH_DISTANCE < n:
            ahead(st, jk.load(unit, i + jk.PREFETCH_DISTANCE))
        if i + NEAR_DISTANCE < n:
            near(st, jk.load(unit, i + NEAR_DISTANCE))
        p = jk.load(unit, i)
        w = np.uint8(jk.load(event, i))
        f = lookup(st, p)
        resident = f >= 0
        if do_log:
            outcome[i] = resident
        hits += resident  # counted branch-free: reads and writes interleave at random
        write_hits += resident & w
        write_refs += w
        if resident:
            r, nlog, dirtied = hit_move(st, r, p, f, w, counters, log, nlog, do_log, base + i)
            dirtyings += dirtied
            if PREFETCHING:
                q, found = pf_found(st, q, f)
                pf_hits += found
                if do_log and found:
                    outcome[i] = C.PREFETCH_HIT
        elif no_read_alloc is not None and not w:  # a read that bypasses the cache: nothing moves
            dev_reads += 1
            if do_log:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
        elif PLACES:
            read = miss_reads(st, r, w, counters)
            dev_reads += read
            r, nlog = place(st, r, p, w, read, counters, log, nlog, do_log, base + i)
            dirtyings += w
        else:
            read = miss_reads(st, r, w, counters)
            dev_reads += read
            if do_log and read and not EVICT_FIRST:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if used < frames:  # filling
                f = fresh(st, used)
                used += 1
            else:
                r, q, f, dirty, unrequested, nlog = evict(st, r, q, log, nlog, do_log, base + i)
                evictions += 1
                dev_write_evict += dirty
                write_reqs += dirty != 0
                pf_unrequested += unrequested
            if do_log and read and EVICT_FIRST:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            bind(st, p, f)
            r = admit(st, r, f, p, w)
            q = pf_admitted(st, q, f, 0)
            dirtyings += w
        if PREFETCHING:
            r, q, used, nlog, read, evicted, dirty, unrequested = read_ahead(st, r, q, p, resident, w, used, frames,
                                                                             log, nlog, do_log, base + i)
            dev_reads += read
            prefetched += read
            evictions += evicted
            dev_write_evict += dirty
            write_reqs += dirty != 0
            pf_unrequested += unrequested
    sc.used = used
    end_chunk(st, r, q, counters, stop - start - events, hits, write_hits, write_refs, dev_reads, dev_write_evict,
              write_reqs, dirtyings, evictions, pf_hits, prefetched, pf_unrequested)
    return stop, nlog


def end_chunk(st, r, q, counters, refs, hits, write_hits, write_refs, dev_reads, dev_write_evict, write_reqs,
              dirtyings, evictions, pf_hits, prefetched, pf_unrequested):
    """The end of :func:`page_loop`'s chunk: the policy's and the prefetcher's registers go back to ``st``
    (``end``, ``pf_end``), and the chunk's tallies (``refs`` references, the rest as the loop names them) to
    ``counters``: the base counters, then with a prefetcher :data:`PREFETCH_COUNTERS`, then the policy's own
    (``tally``)."""
    end(st, r)
    pf_end(st, q)
    C.add_base(counters, refs=refs, hits=hits, write_hits=write_hits, write_refs=write_refs, dev_reads=dev_reads,
               dev_read_reqs=dev_reads, dev_write_evict=dev_write_evict,
               dev_write_reqs=write_reqs if WRITEBACK_RUNS else dev_write_evict, dirtyings=dirtyings,
               evictions=evictions)
    if PREFETCHING:
        counters[C.N_BASE] += pf_hits
        counters[C.N_BASE + 1] += prefetched
        counters[C.N_BASE + 2] += pf_unrequested
    tally(st, r, counters)


def no_read_alloc(params):
    """:func:`page_loop`'s ``no_read_alloc`` from a policy's ``cache_reads`` setting, as its ``Kernel.rules``: None
    when read misses are cached, else 1 (each selects its own specialisation, without the other's branches)."""
    return None if params.cache_reads else 1


def compose(name: str, prefetcher: dict | None = None, evict_first: bool = False, writeback_runs: bool = False,
            **hooks):
    """The step kernel of policy ``name``: :func:`page_loop` with ``hooks`` (every name in :data:`HOOKS`, and any of
    :data:`OPTIONAL_HOOKS`, each an ``@njit(inline="always")`` function) and a ``prefetcher``'s (a dict of the
    :data:`PREFETCH_HOOKS`; None: no prefetching, compiled without its branches), compiled once per argument
    types, and cached on disk as ``<name>_step`` if every hook is defined in the package (a policy of the user's
    own is compiled in each process instead). ``evict_first`` and ``writeback_runs`` set the loop's
    :data:`EVICT_FIRST` and :data:`WRITEBACK_RUNS`."""
    needed = set(HOOKS) - ({"victim", "admit"} if "place" in hooks else set())  # (a policy placing pages evicts itself)
    needed -= {"hit"} if "hit_move" in hooks else set()
    missing, unknown = needed - set(hooks), set(hooks) - set(HOOKS) - set(OPTIONAL_HOOKS)
    if missing or unknown:
        raise TypeError(f"{name}: compose needs the hooks {HOOKS} (but victim and admit with place, hit with "
                        f"hit_move) and takes "
                        f"{OPTIONAL_HOOKS}; missing "
                        f"{sorted(missing)}, unknown {sorted(unknown)}")
    if prefetcher is not None and sorted(prefetcher) != sorted(PREFETCH_HOOKS):
        raise TypeError(f"{name}: a prefetcher has the hooks {PREFETCH_HOOKS}, got {tuple(prefetcher)}")
    every = dict(PAGE_TABLE, **hooks, **(prefetcher if prefetcher is not None else NO_PREFETCHER))
    for k, h in every.items():  # (with NUMBA_DISABLE_JIT, njit returns the function itself: the loop runs in Python)
        if not numba.config.DISABLE_JIT and getattr(h, "targetoptions", {}).get("inline") != "always":
            raise TypeError(f"{name}: hook {k} must be an @njit(inline='always') function, got {h!r}")
    scope = dict(page_loop.__globals__, **every, PREFETCHING=prefetcher is not None, PLACES="place" in hooks,
                 LOG_ROWS=PREFETCH_LOG_ROWS if prefetcher is not None else C.ROWS_PER_REF,
                 EVICT_FIRST=bool(evict_first), WRITEBACK_RUNS=bool(writeback_runs))
    for hook, default in (("rows", _log_rows), ("hit_move", _hit_in_place)):  # defaults that read the copy's globals
        if hook not in hooks:
            scope[hook] = njit(inline="always")(jk.copy_with_globals(default, default.__name__, scope))
    for helper in (evict, take_frame, read_ahead, end_chunk):  # they call the policy's hooks
        scope[helper.__name__] = njit(inline="always")(jk.copy_with_globals(helper, helper.__name__, scope))
    fn = jk.copy_with_globals(page_loop, f"{name}_step", scope)  # one cache file per policy
    # cached only when every hook is the package's own: the cache folder's key covers the package's source, not a
    # user's file, whose edited hooks would otherwise be served the loop compiled from the old ones
    top = __name__.partition(".")[0]
    ours = all(getattr(h, "py_func", h).__module__.partition(".")[0] == top for h in every.values())
    return njit(cache=ours, _nrt=False)(fn)


# Hooks for a state that keeps each frame's page in ``frame_page`` (int32 per frame) and its dirty bit in ``dirty``
# (uint8 per frame), for a policy whose hit changes no order (fifo, random).
@njit(cache=True, inline="always")
def hit_dirty_only(st, r, f, w):
    """A hit changes no order: a write makes frame ``f`` dirty."""
    d = jk.load(st.dirty, f)
    jk.store(st.dirty, f, d | w)
    return r, (d | w) - d


@njit(cache=True, inline="always")
def admit_to_frame(st, r, f, p, w):
    """Frame ``f`` holds page ``p``, dirty if ``w``; no order to update."""
    jk.store(st.frame_page, f, p)
    jk.store(st.dirty, f, w)
    return r


# Hooks for a policy whose registers are its settings, kept in its state as ``rules`` (a NamedTuple the hooks read as
# ``r.name``; nothing to store back at the end of a chunk): lru_flush and write_once, clock_dnv.
@njit(cache=True, inline="always")
def rules_begin(st):
    """The registers: the state's ``rules``."""
    return st.rules


@njit(cache=True, inline="always")
def rules_end(st, r):
    """Nothing to store: the settings do not change."""


# The optional hooks' defaults: the page table ``st.page_frame`` (int32 per unit: its frame, -1 if not resident), and
# no counters of the policy's own.
@njit(cache=True, inline="always")
def _table_lookup(st, p):
    return np.int64(jk.load(st.page_frame, p))


@njit(cache=True, inline="always")
def _table_ahead(st, p):
    jk.prefetch(st.page_frame, p)


@njit(cache=True, inline="always")
def _no_near(st, p):
    pass


@njit(cache=True, inline="always")
def _table_unbind(st, p):
    jk.store(st.page_frame, p, -1)


@njit(cache=True, inline="always")
def _table_bind(st, p, f):
    jk.store(st.page_frame, p, f)


@njit(cache=True, inline="always")
def _no_tally(st, r, counters):
    pass


@njit(cache=True, inline="always")
def _no_entry(st, r, refs, i, counters, log, nlog, do_log, ref):
    return r, nlog, False, 0


@njit(cache=True, inline="always")
def _in_order(st, used):
    return used


def _log_rows(st):  # compiled in each composed copy (compose), whose LOG_ROWS it reads
    return LOG_ROWS


def _hit_in_place(st, r, p, f, w, counters, log, nlog, do_log, ref):  # compiled in each composed copy: its hit
    r, dirtied = hit(st, r, f, w)
    return r, nlog, dirtied


@njit(cache=True, inline="always")
def _read_misses(st, r, w, counters):
    return 1 - w


@njit(cache=True, inline="always")
def _no_place(st, r, p, w, read, counters, log, nlog, do_log, ref):
    return r, nlog


PAGE_TABLE = {"lookup": _table_lookup, "ahead": _table_ahead, "near": _no_near, "unbind": _table_unbind,
              "bind": _table_bind,
              "tally": _no_tally, "entry": _no_entry, "fresh": _in_order, "miss_reads": _read_misses,
              "place": _no_place}


# No prefetcher: every hook does nothing (compose's default; the loop's prefetching branches are compiled out).
@njit(cache=True, inline="always")
def _no_begin(st):
    return 0


@njit(cache=True, inline="always")
def _no_found(st, q, f):
    return q, 0


@njit(cache=True, inline="always")
def _no_admitted(st, q, f, prefetched):
    return q


@njit(cache=True, inline="always")
def _no_next(st, q, p, hit, w):
    return q, -1


@njit(cache=True, inline="always")
def _no_end(st, q):
    pass


NO_PREFETCHER = {"pf_begin": _no_begin, "pf_found": _no_found, "pf_evicted": _no_found, "pf_admitted": _no_admitted,
                 "pf_next": _no_next, "pf_end": _no_end}
