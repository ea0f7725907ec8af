"""Slow, obviously correct reference implementations of every kernel, written for reading, not speed.

Each cache reference returns ``(hits, ios, counters)``: a list with one bool per page reference, the
device I/Os as ``(ref, op, cause, first_page, n_pages)`` tuples in issue order (op 0 read / 1 write;
cause 0 demand, 1 eviction, 2 end-of-trace flush), and every counter the kernel reports.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict, deque

from refbook import Book as _Book  # the tally, shared with paper 3's references


def _lru_family(pages, is_write, capacity, flush_at_end, choose_victim, cache_reads=True):
    """An LRU list (an OrderedDict, least recent first) whose victim ``choose_victim(cache)`` picks. Without
    ``cache_reads`` a read miss is read from the device and not kept."""
    b = _Book()
    cache = OrderedDict()  # page -> dirty
    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in cache
        b.ref(hit, w)
        if hit:
            cache.move_to_end(p)
        else:
            if not w:
                b.read(i, p)
                if not cache_reads:
                    continue
            if len(cache) == capacity:
                victim = choose_victim(cache)
                b.c["evictions"] += 1
                if cache.pop(victim):
                    b.write(i, victim, 1)
            cache[p] = False
        if w and not cache[p]:
            cache[p] = True
            b.c["dirtyings"] += 1
    return b.end(list(cache), {p for p, d in cache.items() if d}, len(pages), flush_at_end)


def lru(pages, is_write, capacity, flush_at_end=False, cache_reads=True):
    return _lru_family(pages, is_write, capacity, flush_at_end, lambda cache: next(iter(cache)), cache_reads)


def cflru(pages, is_write, capacity, flush_at_end=False, window_fraction=0.5):
    """CFLRU by scanning: the victim is the first clean page among the ``window`` LRU-most pages, else the
    LRU page."""
    window = max(1, round(window_fraction * capacity)) if window_fraction > 0 else 0

    def victim(cache):
        lru_first = list(cache.items())[:window]
        return next((q for q, dirty in lru_first if not dirty), next(iter(cache)))

    return _lru_family(pages, is_write, capacity, flush_at_end, victim)


def clock(pages, is_write, capacity, flush_at_end=False, insert_referenced=False, cache_reads=True):
    """CLOCK as FIFO with reinsertion (libCacheSim's formulation): the queue's left end is under the
    hand; a referenced page there loses its bit and goes to the right end. Without ``cache_reads`` a read
    miss is read from the device and not kept."""
    b = _Book()
    queue = deque()  # entries [page, referenced]
    where = {}  # page -> entry
    dirty = set()
    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in where
        b.ref(hit, w)
        if hit:
            where[p][1] = True
        else:
            if not w:
                b.read(i, p)
                if not cache_reads:
                    continue
            if len(queue) == capacity:
                while queue[0][1]:
                    e = queue.popleft()
                    e[1] = False
                    queue.append(e)
                victim = queue.popleft()[0]
                del where[victim]
                b.c["evictions"] += 1
                if victim in dirty:
                    dirty.discard(victim)
                    b.write(i, victim, 1)
            e = [p, insert_referenced]
            queue.append(e)
            where[p] = e
        if w and p not in dirty:
            dirty.add(p)
            b.c["dirtyings"] += 1
    return b.end([e[0] for e in queue], dirty, len(pages), flush_at_end)


def bs_clock(pages, is_write, capacity, flush_at_end=False, max_bulk_pages=16, max_counts_victim=True,
             insert_referenced=True, hand_past_bulk=False, insert_behind_hand=False):
    """BS-CLOCK as the paper's Fig. 3 reads: a sorted list of resident pages, a hand position, and a bulk
    write of the victim's unreferenced, dirty, page-consecutive successors. A miss evicts first, then
    loads (Fig. 1): the victim's write-back comes before the demand read. ``insert_behind_hand``: after an
    eviction the hand is the page number of the next resident page (a page inserted before it is met last),
    not the number just past the victim (or the bulk)."""
    limit = max_bulk_pages if max_counts_victim else max_bulk_pages + 1
    b = _Book(extra=("bulk_cleaned",))
    resident = []  # sorted page numbers
    referenced = {}
    dirty = set()
    hand = -1  # the sweep starts at the first resident page >= hand
    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in referenced
        b.ref(hit, w)
        if hit:
            referenced[p] = True
        else:
            if len(resident) == capacity:
                k = bisect.bisect_left(resident, hand) % len(resident)
                while referenced[resident[k]]:
                    referenced[resident[k]] = False
                    k = (k + 1) % len(resident)
                victim = resident[k]
                b.c["evictions"] += 1
                if victim in dirty:
                    run = [victim]
                    j = k + 1
                    while (len(run) < limit and j < len(resident) and not referenced[resident[j]]
                           and resident[j] in dirty and resident[j] == run[-1] + 1):
                        run.append(resident[j])
                        j += 1
                    dirty.difference_update(run)
                    b.write(i, victim, 1, len(run))
                    b.c["bulk_cleaned"] += len(run) - 1
                    after = run[-1] + 1 if hand_past_bulk else victim + 1
                else:
                    after = victim + 1
                del resident[k]
                del referenced[victim]
                if insert_behind_hand and resident:  # the page number of the next resident page, wrapping
                    hand = resident[bisect.bisect_left(resident, after) % len(resident)]
                else:
                    hand = after
            if not w:
                b.read(i, p)
            bisect.insort(resident, p)
            referenced[p] = insert_referenced
        if w and p not in dirty:
            dirty.add(p)
            b.c["dirtyings"] += 1
    if resident:
        k = bisect.bisect_left(resident, hand) % len(resident)
        order = resident[k:] + resident[:k]
    else:
        order = []
    return b.end(order, dirty, len(pages), flush_at_end)


def spatial_clock(pages, is_write, capacity, flush_at_end=False, insert_referenced=True, insert_behind_hand=False):
    return bs_clock(pages, is_write, capacity, flush_at_end, max_bulk_pages=1, insert_referenced=insert_referenced,
                    insert_behind_hand=insert_behind_hand)


def stack_distances(pages):
    """Distinct pages referenced since the previous reference to the same page (-1 if none)."""
    stack = []  # most recent first
    out = []
    for p in pages:
        if p in stack:
            d = stack.index(p)
            stack.pop(d)
            out.append(d)
        else:
            out.append(-1)
        stack.insert(0, p)
    return out


# Policies whose reference works on whole requests, not page lists, and is compared in its own test file.
SEPARATE_TESTS = {"seg_lru": "test_segment.py", "seg_prefetch": "test_segment.py",
                  "seg_cull_fixed": "test_segment.py", "seg_cull_adaptive": "test_segment.py",
                  "linux_readahead": "test_segment.py"}

# policy name -> (reference function, parameter names it accepts)
REFERENCES = {"lru": (lru, ("cache_reads",)), "clock": (clock, ("insert_referenced", "cache_reads")),
              "cflru": (cflru, ()),
              "spatial_clock": (spatial_clock, ("insert_referenced", "insert_behind_hand")),
              "bs_clock": (bs_clock, ("insert_referenced", "max_counts_victim", "hand_past_bulk",
                                      "insert_behind_hand"))}
from reference_write_once import REFERENCES_WRITE_ONCE  # noqa: E402  (paper 5's references live there)

REFERENCES.update(REFERENCES_WRITE_ONCE)

from reference_clock_hbm import REFERENCES as _PAPER3  # noqa: E402  (paper 3's hybrid buffers, own module)

REFERENCES.update(_PAPER3)


# ---------------------------------------------------------------------------------------------------
# Paper 4's FTL reference is in tests/reference_ftl.py.

# ---------------------------------------------------------------------------------------------------
# fio's zipf block generator (lib/zipf.c, lib/rand.h, hash.h), with C's unsigned arithmetic spelled
# out: 32-bit taus88 state, 64-bit wrap-around hash.

def fio_zipf_blocks(seed, n, theta, count, max_terms=10_000_000, mult=0x61C8864680B583EB):
    import math
    m32, m64 = 2**32 - 1, 2**64 - 1

    def seeded(x, minimum):
        return x + minimum if x < minimum else x

    s1 = seeded((53 * 69069 ^ seed) & m32, 1)
    s2 = seeded((s1 * 69069 ^ seed) & m32, 7)
    s3 = seeded((s2 * 69069 ^ seed) & m32, 15)

    def rand32():
        nonlocal s1, s2, s3
        s1 = (((s1 & 4294967294) << 12) ^ ((((s1 << 13) & m32) ^ s1) >> 19)) & m32
        s2 = (((s2 & 4294967288) << 4) ^ ((((s2 << 2) & m32) ^ s2) >> 25)) & m32
        s3 = (((s3 & 4294967280) << 17) ^ ((((s3 << 3) & m32) ^ s3) >> 11)) & m32
        return s1 ^ s2 ^ s3

    for _ in range(6):
        rand32()
    rand_off = rand32()
    zetan = 0.0
    for i in range(min(n, max_terms)):
        zetan += math.pow(1.0 / (i + 1), theta)
    zeta2 = math.pow(1.0, theta) + math.pow(0.5, theta)
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - math.pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2 / zetan)
    out = []
    for _ in range(count):
        u = rand32() / 4294967295.0
        z = u * zetan
        if z < 1.0:
            val = 1
        elif z < 1.0 + math.pow(0.5, theta):
            val = 2
        else:
            val = 1 + int(n * math.pow(eta * u - eta + 1.0, alpha))
        out.append(((((val - 1) * mult) + rand_off) & m64) % n)
    return out


# ---------------------------------------------------------------------------------------------------
# Paper 4's growing-database write model: the same draws as GrowingDB, one write at a time.

def growing_db_writes(model):
    import numpy as np

    k = model.classes()
    weight = model.class_weights()
    members = {c: [p for p in range(model.final_pages) if k[p] == c] for c in range(len(weight))}
    u = np.random.default_rng([model.seed, 2]).random(2 * model.n_writes)
    size = model.initial_pages
    out = []
    for i in range(model.n_writes):
        target = model.initial_pages + (model.final_pages - model.initial_pages) * (i + 1) // model.n_writes
        if target > size:
            out.append(size)
            size += 1
            continue
        live = {c: [p for p in members[c] if p < size] for c in members}
        total = sum(len(v) * weight[c] for c, v in live.items())
        x, acc, chosen = u[2 * i] * total, 0.0, None
        for c in sorted(live):
            acc += len(live[c]) * weight[c]
            if acc > x and live[c]:
                chosen = c
                break
        if chosen is None:  # rounding at the very top: the last non-empty class
            chosen = max(c for c in live if live[c])
        out.append(live[chosen][int(u[2 * i + 1] * len(live[chosen]))])
    return out


# ---------------------------------------------------------------------------------------------------
# FIFO and RANDOM replacement (issue 22): writes as in LRU (a write miss allocates without a read, a write
# dirties the page, a dirty page is written back when it leaves or at the end).

def _splitmix64(state):
    """``(new_state, value)``: the splitmix64 stream, with C's unsigned 64-bit arithmetic spelled out."""
    m64 = 2**64 - 1
    state = (state + 0x9E3779B97F4A7C15) & m64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m64
    return state, z ^ (z >> 31)


def fifo(pages, is_write, capacity, flush_at_end=False):
    """A queue of the resident pages in insertion order; a hit leaves it as it is, a miss in a full cache
    takes the page at its left end (the oldest inserted)."""
    b = _Book()
    queue = deque()
    dirty = {}  # page -> dirty, for the resident pages
    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in dirty
        b.ref(hit, w)
        if not hit:
            if not w:
                b.read(i, p)
            if len(queue) == capacity:
                victim = queue.popleft()
                b.c["evictions"] += 1
                if dirty.pop(victim):
                    b.write(i, victim, 1)
            queue.append(p)
            dirty[p] = False
        if w and not dirty[p]:
            dirty[p] = True
            b.c["dirtyings"] += 1
    return b.end(list(queue), {p for p, d in dirty.items() if d}, len(pages), flush_at_end)


def random_replacement(pages, is_write, capacity, flush_at_end=False, seed=0):
    """A list of slots holding the resident pages; a miss in a full cache draws a slot uniformly (the next
    number of the splitmix64 stream from ``seed``, modulo the number of slots) and the new page takes it."""
    b = _Book()
    slots = []
    dirty = {}  # page -> dirty, for the resident pages
    rng = seed
    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in dirty
        b.ref(hit, w)
        if not hit:
            if not w:
                b.read(i, p)
            if len(slots) == capacity:
                rng, r = _splitmix64(rng)
                k = r % len(slots)
                victim = slots[k]
                b.c["evictions"] += 1
                if dirty.pop(victim):
                    b.write(i, victim, 1)
                slots[k] = p
            else:
                slots.append(p)
            dirty[p] = False
        if w and not dirty[p]:
            dirty[p] = True
            b.c["dirtyings"] += 1
    return b.end(list(slots), {p for p, d in dirty.items() if d}, len(pages), flush_at_end)


REFERENCES.update({"fifo": (fifo, ()), "random": (random_replacement, ())})


# ---------------------------------------------------------------------------------------------------
# LRU with one-block lookahead (flashrepro.cache.obl), from its docstring: an LRU list and a set of the
# prefetched pages nobody has requested since.

def lru_obl(pages, is_write, capacity, flush_at_end=False, tagged=True, sequential_k=0):
    """After a read of page p that missed (or, ``tagged``, found a page a prefetch had brought in), page p + 1
    is read ahead if it is not cached and the ``sequential_k`` reads before p were p - k, ..., p - 1. A
    prefetched page enters at the MRU end, clean; its read is logged at the request that caused it, after that
    request's own I/O, and the victim it displaces is written back after it."""
    b = _Book(extra=("prefetch_hits", "prefetched_pages", "prefetch_evicted"))
    cache = OrderedDict()  # page -> dirty, least recent first
    unrequested = set()  # prefetched pages not requested since
    reads = []  # every read's page, in order

    def bring_in(i, p):
        if len(cache) == capacity:
            victim, was_dirty = cache.popitem(last=False)
            b.c["evictions"] += 1
            if victim in unrequested:
                unrequested.remove(victim)
                b.c["prefetch_evicted"] += 1
            if was_dirty:
                b.write(i, victim, 1)
        cache[p] = False

    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in cache
        b.ref(hit, w)
        found_prefetched = hit and p in unrequested
        if found_prefetched:
            unrequested.remove(p)
            b.c["prefetch_hits"] += 1
        if hit:
            cache.move_to_end(p)
        else:
            if not w:
                b.read(i, p)
            bring_in(i, p)
        if w and not cache[p]:
            cache[p] = True
            b.c["dirtyings"] += 1
        if w:
            continue
        before = reads[len(reads) - sequential_k:] if sequential_k else []
        sequential = before == [p - sequential_k + j for j in range(sequential_k)]
        reads.append(p)
        if (not hit or (tagged and found_prefetched)) and sequential and p + 1 not in cache:
            b.ios.append((i, 0, 3, p + 1, 1))  # a read of cause prefetch
            b.c["device_reads"] += 1
            b.c["device_read_requests"] += 1
            b.c["prefetched_pages"] += 1
            bring_in(i, p + 1)
            unrequested.add(p + 1)
    return b.end(list(cache), {p for p, d in cache.items() if d}, len(pages), flush_at_end)


REFERENCES["lru_obl"] = (lru_obl, ("tagged",))
