"""Slow, obviously correct versions of paper 2's segment policies and Linux-style read-ahead, written for
reading: lists are OrderedDicts (least recent first), blocks are Python sets, windows are recomputed from
list positions at every request. They return what the kernels report: the outcome of every page reference
(0 miss, 1 hit, 2 prefetch hit), every device I/O as (ref, op, cause, first_page, n_pages) in order, and
every counter.

Input: the trace's requests as (first_page, n_pages, is_write) tuples, in order.
"""

from __future__ import annotations

import math
from collections import OrderedDict

DEMAND, EVICTION, END_FLUSH, PREFETCH = 0, 1, 2, 3

SEGMENT_COUNTERS = ("references", "hits", "write_references", "write_hits", "read_hits", "misses", "read_misses",
                    "write_misses", "device_reads", "device_read_requests", "device_writes_eviction",
                    "device_writes_end_flush", "device_write_requests", "device_writes", "dirtyings",
                    "dirty_at_end", "evictions", "resident_at_end", "prefetch_hits", "prefetched_pages",
                    "culled_pages", "prefetch_evicted", "list_operations", "n1_updates", "n1_skipped", "hits_b1",
                    "hits_b2", "hits_l1", "hits_l2")


def _runs(blocks):
    """Maximal runs of consecutive ints in a set, as (first, length)."""
    out, run = [], None
    for b in sorted(blocks):
        if run and b == run[0] + run[1]:
            run[1] += 1
        else:
            if run:
                out.append(tuple(run))
            run = [b, 1]
    if run:
        out.append(tuple(run))
    return out


class SegmentCache:
    """mode: "lru" (seg_lru), "prefetch" (seg_prefetch), "fixed" (seg_cull_fixed), "adaptive"."""

    def __init__(self, mode, k, capacity, step=1.0, window_fraction=0.05, update_every=3, n1_floor="window",
                 cull_when="always", write_into="l2", room_first="evict", partial_windows="count",
                 count_hits="block", carry_hits=False, update_at="step", feedback_writes=False, n1_cap="memory",
                 window_round="nearest"):
        assert capacity >= k
        self.mode, self.k, self.M = mode, k, capacity
        self.L1, self.L2 = OrderedDict(), OrderedDict()  # segment -> None, least recent first
        self.present, self.pf, self.dirty = {}, {}, {}  # segment -> set of block offsets
        w = window_fraction * capacity / k
        self.b = max(1, int({"nearest": round(w), "floor": math.floor(w + 1e-9), "ceil": math.ceil(w - 1e-9)}[
            window_round]))
        self.n1 = float(capacity // (2 * k)) if mode == "fixed" else capacity / (2 * k)
        self.n1_max = capacity / k if n1_cap == "memory" else math.inf
        self.n1_min = float(self.b) if n1_floor == "window" and mode == "adaptive" else 0.0
        if mode == "adaptive":
            self.n1 = min(max(self.n1, self.n1_min), self.n1_max)
        self.step, self.update_every = step, update_every
        self.short_only = cull_when == "memory_short" and mode in ("fixed", "adaptive")
        self.write_l1 = write_into == "l1"
        self.cull_first = room_first == "cull" and mode in ("fixed", "adaptive")
        self.full_windows_only = partial_windows == "skip"
        self.per_request = count_hits == "request"
        self.carry = carry_hits
        self.at_hit = update_at == "hit"
        self.feed_writes = feedback_writes
        self.hits_b1 = self.dp = self.dc = 0
        self.c = dict.fromkeys(SEGMENT_COUNTERS, 0)
        self.outcomes, self.ios = [], []

    # --- bookkeeping -----------------------------------------------------------------------------------
    def used(self):
        return sum(map(len, self.present.values()))

    def window(self, lst):
        """The b least recently used segments (only adaptive culling keeps B1 and B2)."""
        return set(list(lst)[:self.b]) if self.mode == "adaptive" else set()

    def remove(self, s):
        for lst in (self.L1, self.L2):
            if s in lst:
                del lst[s]
                self.c["list_operations"] += 1

    def insert(self, s, lst):
        lst[s] = None
        self.c["list_operations"] += 1

    def evict(self, s, ref):
        for first, n in _runs(self.dirty.get(s, set())):
            self.ios.append((ref, 1, EVICTION, s * self.k + first, n))
            self.c["device_write_requests"] += 1
        self.c["device_writes_eviction"] += len(self.dirty.get(s, set()))
        self.c["evictions"] += len(self.present.get(s, set()))
        self.c["prefetch_evicted"] += len(self.pf.get(s, set()))
        self.forget(s)

    def forget(self, s):
        """Segment ``s`` holds no block any more: drop its (empty) sets, so that :meth:`used` sums over the
        segments in memory only, not every segment ever seen."""
        for blocks in (self.present, self.pf, self.dirty):
            blocks.pop(s, None)

    def cull(self, s):
        self.remove(s)
        self.c["culled_pages"] += len(self.pf[s])
        self.present[s] -= self.pf[s]
        self.pf[s] = set()
        if self.present[s]:
            self.insert(s, self.L2)
        else:
            self.forget(s)

    def make_room(self, need, ref, to_l1):
        while self.used() + need > self.M:
            if self.short_only and self.L1 and len(self.L1) + to_l1 > self.n1:
                self.cull(next(iter(self.L1)))
            elif self.L2:
                v = next(iter(self.L2))
                self.remove(v)
                self.evict(v, ref)
            elif self.L1:
                v = next(iter(self.L1))
                if self.mode in ("fixed", "adaptive"):
                    self.cull(v)
                else:
                    self.remove(v)
                    self.evict(v, ref)
            else:
                raise RuntimeError("request larger than memory")

    def adapt(self, b1_hits=()):
        """After a segment step: ``b1_hits`` are its hits in B1 in block order, (is a prefetch hit) each, which
        update_at="hit" counts here one by one; otherwise the step counted them already."""
        if self.at_hit:
            for pf in b1_hits:
                self.hits_b1 += 1
                self.dp += pf
                if self.hits_b1 >= self.update_every:
                    self.update()
                    self.hits_b1 = 0
            return
        while self.hits_b1 >= self.update_every:
            self.update()
            if not self.carry:
                self.hits_b1 = 0
                return
            self.hits_b1 -= self.update_every

    def update(self):
        b1 = sum(len(self.present[s]) for s in self.window(self.L1))
        b2 = sum(len(self.present[s] - self.pf[s]) for s in self.window(self.L2))
        full = len(self.window(self.L1)) == self.b and len(self.window(self.L2)) == self.b
        if b2 > 0 and (full or not self.full_windows_only):
            a = b1 / b2
            self.n1 = min(max(self.n1 + self.step * (self.dp - a * self.dc), self.n1_min), self.n1_max)
            self.c["n1_updates"] += 1
        else:
            self.c["n1_skipped"] += 1
        self.dp = self.dc = 0

    # --- one request -------------------------------------------------------------------------------------
    def request(self, ref, first, n, w):
        k = self.k
        for s in range(first // k, (first + n - 1) // k + 1):
            req = {p - s * k for p in range(max(first, s * k), min(first + n, (s + 1) * k))}
            at = ref + max(first, s * k) - first  # the reference that reaches segment s
            had = set(self.present.get(s, set()))
            pf = set(self.pf.get(s, set()))
            self.present.setdefault(s, set())
            self.pf.setdefault(s, set())
            self.dirty.setdefault(s, set())
            in_l1, in_l2 = s in self.L1, s in self.L2
            in_b1, in_b2 = s in self.window(self.L1), s in self.window(self.L2)
            hits = req & had
            self.c["references"] += len(req)
            self.c["hits"] += len(hits)
            self.c["prefetch_hits"] += len(req & pf)
            if w:
                self.c["write_references"] += len(req)
                self.c["write_hits"] += len(hits)
            feeds = not w or self.feed_writes
            b1_hits = []
            if in_l1:
                self.c["hits_l1"] += len(hits)
                if in_b1 and feeds:
                    self.c["hits_b1"] += len(hits)
                    if self.at_hit:
                        b1_hits = [b in pf for b in sorted(hits)]
                    else:
                        unit = (lambda x: min(x, 1)) if self.per_request else (lambda x: x)
                        self.hits_b1 += unit(len(hits))
                        self.dp += unit(len(req & pf))
            elif in_l2:
                self.c["hits_l2"] += len(hits)
                if in_b2 and feeds:
                    self.c["hits_b2"] += len(hits)
                    self.dc += min(len(hits), 1) if self.per_request else len(hits)
            for b in sorted(req):
                self.outcomes.append(2 if b in pf else (1 if b in had else 0))
            self.remove(s)
            self.pf[s] -= req
            missing = req - had
            from_storage = False
            into_l1 = in_l1 or (self.write_l1 and not in_l2)
            if w:
                if missing:
                    if self.write_l1 and not in_l1 and not in_l2 and self.cull_first and not self.short_only:
                        while self.L1 and len(self.L1) + 1 > self.n1:  # as for a newly read segment
                            self.cull(next(iter(self.L1)))
                    self.make_room(len(missing), at, into_l1)
                    self.present[s] |= missing
                self.c["dirtyings"] += len(req - self.dirty[s])
                self.dirty[s] |= req
            elif missing:
                from_storage = True
                if self.mode == "lru":
                    self.make_room(len(missing), at, False)
                    for b, m in _runs(missing):
                        self.ios.append((at, 0, DEMAND, s * k + b, m))
                        self.c["device_reads"] += m
                        self.c["device_read_requests"] += 1
                    self.present[s] |= missing
                else:
                    new = set(range(k)) - self.present[s]
                    if self.cull_first and not self.short_only:  # L1 back to N1 - 1, then evict for the rest
                        while self.L1 and len(self.L1) + 1 > self.n1:
                            self.cull(next(iter(self.L1)))
                    self.make_room(len(new), at, True)
                    self.ios.append((at, 0, PREFETCH, s * k, k))
                    self.c["device_reads"] += k
                    self.c["device_read_requests"] += 1
                    self.c["prefetched_pages"] += len(new - req)
                    self.pf[s] |= new - req
                    self.present[s] |= new
            if self.mode in ("lru", "prefetch"):
                self.insert(s, self.L1)
            elif from_storage or into_l1:
                self.insert(s, self.L1)
                if (from_storage or not (in_l1 or in_l2)) and not self.short_only:  # new to L1: cull to N1
                    while len(self.L1) > self.n1:
                        self.cull(next(iter(self.L1)))
            else:
                self.insert(s, self.L2)
            if self.mode == "adaptive":
                self.adapt(b1_hits)

    def end(self, last_ref, flush):
        order = []
        for lst in (self.L2, self.L1):
            for s in lst:
                order += [(s, b) for b in sorted(self.present[s])]
        for s, b in order:
            if b in self.dirty[s]:
                if flush:
                    self.ios.append((last_ref, 1, END_FLUSH, s * self.k + b, 1))
                    self.c["device_writes_end_flush"] += 1
                    self.c["device_write_requests"] += 1
                else:
                    self.c["dirty_at_end"] += 1
        self.c["resident_at_end"] = len(order)
        c = self.c
        c["read_hits"] = c["hits"] - c["write_hits"]
        c["misses"] = c["references"] - c["hits"]
        c["write_misses"] = c["write_references"] - c["write_hits"]
        c["read_misses"] = c["misses"] - c["write_misses"]
        c["device_writes"] = c["device_writes_eviction"] + c["device_writes_end_flush"]
        return self.outcomes, self.ios, c


def segment(requests, mode, k, capacity, flush_at_end=False, **params):
    """Run a segment policy over ``requests`` [(first_page, n_pages, is_write)]; pages are unit numbers."""
    cache = SegmentCache(mode, k, capacity, **params)
    ref = 0
    for first, n, w in requests:
        cache.request(ref, first, n, w)
        ref += n
    return cache.end(ref - 1, flush_at_end)


def readahead(requests, min_pages, max_pages, n_units, capacity, flush_at_end=False):
    """linux_readahead: an LRU page cache (OrderedDict, least recent first) with a sequential window that
    starts at ``min_pages`` and doubles up to ``max_pages``; pages beyond ``n_units`` do not exist."""
    cache = OrderedDict()  # page -> {"dirty": bool, "pf": bool}
    names = ("references", "hits", "write_references", "write_hits", "read_hits", "misses", "read_misses",
             "write_misses", "device_reads", "device_read_requests", "device_writes_eviction",
             "device_writes_end_flush", "device_write_requests", "device_writes", "dirtyings", "dirty_at_end",
             "evictions", "resident_at_end", "prefetch_hits", "prefetched_pages", "prefetch_evicted")
    c = dict.fromkeys(names, 0)
    outcomes, ios = [], []
    last_end, window = -1, 0

    def insert(p, ref):
        if len(cache) == capacity:
            v, e = cache.popitem(last=False)
            c["evictions"] += 1
            c["prefetch_evicted"] += e["pf"]
            if e["dirty"]:
                c["device_writes_eviction"] += 1
                c["device_write_requests"] += 1
                ios.append((ref, 1, EVICTION, v, 1))
        cache[p] = {"dirty": False, "pf": False}

    ref = 0
    for first, n, w in requests:
        c["references"] += n
        c["write_references"] += n if w else 0
        run = None  # the open run of missing demanded pages [first, length], issued when a hit closes it
        for p in range(first, first + n):
            e = cache.get(p)
            outcomes.append(0 if e is None else (2 if e["pf"] else 1))
            if e is not None:
                c["hits"] += 1
                c["write_hits"] += 1 if w else 0
                c["prefetch_hits"] += e["pf"]
                e["pf"] = False
                cache.move_to_end(p)
                if run:
                    ios.append((ref, 0, DEMAND, run[0], run[1]))
                    c["device_reads"] += run[1]
                    c["device_read_requests"] += 1
                    run = None
            else:
                insert(p, ref)
                if not w:
                    run = [run[0], run[1] + 1] if run else [p, 1]
            if w and not cache[p]["dirty"]:
                cache[p]["dirty"] = True
                c["dirtyings"] += 1
        if w:
            ref += n
            continue
        window = (min_pages if window == 0 else min(2 * window, max_pages)) if first == last_end else 0
        ra = []
        for p in range(first + n, first + n + window):
            if p >= n_units or p in cache:
                break
            insert(p, ref)
            cache[p]["pf"] = True
            ra.append(p)
        c["prefetched_pages"] += len(ra)
        if run and ra:  # the last run touches the window: one request
            ios.append((ref, 0, PREFETCH, run[0], run[1] + len(ra)))
            c["device_reads"] += run[1] + len(ra)
            c["device_read_requests"] += 1
        else:
            if run:
                ios.append((ref, 0, DEMAND, run[0], run[1]))
                c["device_reads"] += run[1]
                c["device_read_requests"] += 1
            if ra:
                ios.append((ref, 0, PREFETCH, ra[0], len(ra)))
                c["device_reads"] += len(ra)
                c["device_read_requests"] += 1
        last_end = first + n
        ref += n
    for p, e in cache.items():
        if e["dirty"]:
            if flush_at_end:
                ios.append((ref - 1, 1, END_FLUSH, p, 1))
                c["device_writes_end_flush"] += 1
                c["device_write_requests"] += 1
            else:
                c["dirty_at_end"] += 1
    c["resident_at_end"] = len(cache)
    c["read_hits"] = c["hits"] - c["write_hits"]
    c["misses"] = c["references"] - c["hits"]
    c["write_misses"] = c["write_references"] - c["write_hits"]
    c["read_misses"] = c["misses"] - c["write_misses"]
    c["device_writes"] = c["device_writes_eviction"] + c["device_writes_end_flush"]
    return outcomes, ios, c
