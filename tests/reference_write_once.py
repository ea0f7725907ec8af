"""Paper 5's references: ``lru_flush`` and ``write_once`` written for reading, not speed.

The input is the trace itself, request by request (:func:`entries`): page references with their time and
file, and the syncs, flushes and deletes between them, so the reference shares nothing with the kernel's
stream conversion. It returns what the other references return: the hit of every page reference, the
device I/Os as ``(ref, op, cause, first_page, n_pages)`` (``ref`` the page reference being served, -1 when
an event triggered it; causes as in ``flashrepro.cache.contract``: 1 eviction, 2 end flush, 4 periodic
flush, 5 sync flush) and every counter the kernel reports.

``lru_flush`` / ``write_once`` take the generic tests' arguments (page list, write flags, capacity, flush at
end, parameters) and run with every reference at time 0 and no events: then no periodic flush falls
inside the trace (the grid starts at ``period_s``). The full comparison with time, syncs and deletes is in
``tests/test_write_once.py``.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

EVICTION, END_FLUSH, PERIODIC_FLUSH, SYNC_FLUSH = 1, 2, 4, 5


@dataclasses.dataclass
class Entry:
    kind: str  # "read", "write", "sync" (one file), "sync_all", "delete"
    time: float
    page: int = -1  # for reads and writes
    file: int = -1
    pages: tuple = ()  # for deletes: every page of the range


def entries(trace, page_bytes=4096):
    """The trace's requests as entries, in order: one per page a read or write touches, one per event."""
    out = []
    file = trace.file if trace.file is not None else [-1] * len(trace)
    for t, op, off, size, f in zip(trace.time_s.tolist(), trace.op.tolist(), trace.offset_bytes.tolist(),
                                   trace.size_bytes.tolist(), list(file), strict=True):
        first = off // page_bytes
        last = (off + size - 1) // page_bytes
        if op in (0, 1):
            out += [Entry("write" if op == 1 else "read", t, q, int(f)) for q in range(first, last + 1) if size > 0]
        elif op == 2:
            out.append(Entry("sync_all", t, file=int(f)))
        elif op == 4:
            out.append(Entry("sync", t, file=int(f)))
        else:
            out.append(Entry("delete", t, file=int(f), pages=tuple(range(first, last + 1)) if size > 0 else ()))
    return out


COUNTERS = ("references", "hits", "write_references", "write_hits", "read_hits", "misses", "read_misses",
            "write_misses", "device_reads", "device_read_requests", "device_writes_eviction",
            "device_writes_end_flush", "device_write_requests", "device_writes", "dirtyings", "dirty_at_end",
            "evictions", "resident_at_end", "device_writes_periodic_flush", "device_writes_sync_flush",
            "periodic_flushes", "syncs", "deletes", "deleted_pages", "deleted_dirty", "write_miss_reads")


def flush_cache(stream, capacity, flush_at_end=False, *, write_once=False, period_s=5.0, sync_scope="file",
                on_delete="keep", history_pages=None, history_all_written=False, consume_history=False,
                write_miss_read=False, evict_at_sync=True, evict_clean_flagged=True):
    """LRU with write-back at a 5 s grid and at syncs; with ``write_once``, the eviction flag and history.
    With ``write_miss_read`` a write miss reads its block first (a device read that is not a reference:
    the flag still sees only the write). With ``evict_at_sync=False`` a sync writes flagged blocks back and
    keeps them; a flush that evicts then takes those still flagged (``evict_clean_flagged``), in the order
    they were written back, before the dirty ones."""
    c = dict.fromkeys(COUNTERS + (("flush_evictions", "history_hits") if write_once else ()), 0)
    hits, ios = [], []
    cache = OrderedDict()  # page -> None, least recently used first
    dirty = OrderedDict()  # page -> None, oldest dirtying first
    history = OrderedDict()  # page -> None, oldest first
    written_back = OrderedDict()  # flagged pages a non-evicting sync wrote back, oldest first
    seen = {}  # page -> {"reads": bool, "writes": int, "noflag": bool} since it entered the cache
    file_of = {}
    H = capacity if history_pages is None else history_pages
    next_flush = period_s
    ref = -1  # page references so far

    def flagged(p):
        s = seen[p]
        return write_once and s["writes"] == 1 and not s["reads"] and not s["noflag"]

    def remember(p):
        if H <= 0:
            return
        history.pop(p, None)
        history[p] = None
        if len(history) > H:
            history.popitem(last=False)

    def flush(only_file, cause, at):
        evict = cause == PERIODIC_FLUSH or evict_at_sync
        if evict and evict_clean_flagged:
            for p in list(written_back):
                if p in cache and p not in dirty and flagged(p) and (only_file < 0 or file_of[p] == only_file):
                    del written_back[p]
                    del cache[p]
                    del seen[p]
                    c["flush_evictions"] += 1
                    remember(p)
        for p in list(dirty):
            if only_file < 0 or file_of[p] == only_file:
                del dirty[p]
                ios.append((at, 1, cause, p, 1))
                c["device_writes_periodic_flush" if cause == PERIODIC_FLUSH else "device_writes_sync_flush"] += 1
                c["device_write_requests"] += 1
                if flagged(p):
                    if evict:
                        del cache[p]
                        del seen[p]
                        c["flush_evictions"] += 1
                        remember(p)
                    else:
                        written_back.pop(p, None)
                        written_back[p] = None

    at = -1
    for e in stream:
        at = ref + 1 if e.kind in ("read", "write") else -1  # what a triggered I/O is charged to
        while period_s > 0 and e.time >= next_flush:
            flush(-1, PERIODIC_FLUSH, at)
            c["periodic_flushes"] += 1
            next_flush += period_s
        if e.kind in ("sync", "sync_all"):
            c["syncs"] += 1
            if sync_scope != "none":
                only = e.file if (e.kind == "sync" and sync_scope == "file") else -1
                flush(only, SYNC_FLUSH, at)
            continue
        if e.kind == "delete":
            c["deletes"] += 1
            if on_delete == "drop":
                for p in e.pages:
                    if p in cache:
                        del cache[p]
                        del seen[p]
                        c["deleted_pages"] += 1
                        if p in dirty:
                            del dirty[p]
                            c["deleted_dirty"] += 1
            continue
        ref += 1
        p, w = e.page, e.kind == "write"
        file_of[p] = e.file
        hit = p in cache
        hits.append(hit)
        c["references"] += 1
        c["write_references"] += w
        kind = "write" if w else "read"
        c["hits" if hit else "misses"] += 1
        c[f"{kind}_{'hits' if hit else 'misses'}"] += 1
        if hit:
            cache.move_to_end(p)
            if w:
                seen[p]["writes"] += 1
            else:
                seen[p]["reads"] = True
        else:
            if not w or write_miss_read:
                ios.append((ref, 0, 0, p, 1))
                c["device_reads"] += 1
                c["device_read_requests"] += 1
                c["write_miss_reads"] += w
            if len(cache) >= capacity:
                v = next(iter(cache))
                del cache[v]
                c["evictions"] += 1
                if v in dirty:
                    del dirty[v]
                    ios.append((ref, 1, EVICTION, v, 1))
                    c["device_writes_eviction"] += 1
                    c["device_write_requests"] += 1
                if write_once and history_all_written and seen[v]["writes"] >= 1:
                    remember(v)
                del seen[v]
            cache[p] = None
            seen[p] = {"reads": not w, "writes": int(w), "noflag": False}
            if write_once and H > 0 and p in history:
                seen[p]["noflag"] = True
                c["history_hits"] += 1
                if consume_history:
                    del history[p]
        if w and p not in dirty:
            dirty[p] = None
            c["dirtyings"] += 1
    for p in cache:  # the end: least recently used first
        if p in dirty:
            if flush_at_end:
                ios.append((at, 1, END_FLUSH, p, 1))
                c["device_writes_end_flush"] += 1
                c["device_write_requests"] += 1
            else:
                c["dirty_at_end"] += 1
    c["resident_at_end"] = len(cache)
    c["device_writes"] = sum(c[k] for k in ("device_writes_eviction", "device_writes_end_flush",
                                            "device_writes_periodic_flush", "device_writes_sync_flush"))
    return hits, ios, c


def _plain(pages, is_write):
    return [Entry("write" if w else "read", 0.0, p) for p, w in zip(pages, is_write, strict=True)]


def lru_flush(pages, is_write, capacity, flush_at_end=False, **params):
    return flush_cache(_plain(pages, is_write), capacity, flush_at_end, **params)


def write_once(pages, is_write, capacity, flush_at_end=False, **params):
    return flush_cache(_plain(pages, is_write), capacity, flush_at_end, write_once=True, **params)


REFERENCES_WRITE_ONCE = {"lru_flush": (lru_flush, ("write_miss_read",)),
                         "write_once": (write_once, ("history_all_written", "consume_history", "write_miss_read"))}
