"""Clean-room reference for paper 5 (Kim, Bahn 2016, "Buffer cache management of smartphones exploiting
write-only-once characteristics"), written from the paper's text alone.

Two policies over 4 KiB blocks (one block = one page here):

* ``lru_flush`` - the baseline: LRU replacement; dirty blocks are written back every ``period_s`` seconds
  and when the program asks for a sync.
* ``write_once`` - the proposed cache: the same, plus an eviction flag per block ("written exactly once,
  never read"); at a flush a flagged block is written back and then evicted at once; a history buffer
  remembers evicted blocks so that one re-entering by a write is not flagged again.

Plain Python, slow and obvious. :func:`entries_of` turns a ``flashrepro.traces.Trace`` into the entry list
(requests of pages, sync / flush / delete events, with times and files); :func:`run` simulates and returns
``(outcome, io_rows, counters)`` with rows ``(ref, op, cause, first_page, n_pages)``.

Every point the paper leaves open is a keyword of :func:`run`; the default is the reading the text supports
best. The quotes are beside the code (section II.2 is the mechanism, Figs 3-4 its example, section III the
experiment).
"""

from __future__ import annotations

from collections import OrderedDict

# the contract's cause codes
DEMAND, EVICTION, END_FLUSH, PREFETCH, PERIODIC, SYNC, MIGRATION = range(7)
READ, WRITE = 0, 1

# trace Op codes (flashrepro.traces.trace.Op)
OP_READ, OP_WRITE, OP_FLUSH, OP_TRIM, OP_SYNC = range(5)

COUNTERS = (
    "references", "hits", "write_references", "write_hits", "device_reads", "device_read_requests",
    "device_writes_eviction", "device_writes_end_flush", "device_write_requests", "dirtyings", "dirty_at_end",
    "evictions", "resident_at_end", "device_writes_periodic_flush", "device_writes_sync_flush",
    "periodic_flushes", "syncs", "deletes", "deleted_pages", "deleted_dirty", "write_miss_reads",
)
WRITE_ONCE_COUNTERS = COUNTERS + ("flush_evictions", "history_hits")


def entries_of(trace, page_bytes: int = 4096) -> list[tuple]:
    """The trace as entries, in order (my own expansion, independent of the package's):

    ``("rw", time, is_write, file, [pages])`` for a read or write request (zero-size ones vanish),
    ``("sync", time, file)`` for Op.SYNC (fsync of one file), ``("syncall", time)`` for Op.FLUSH,
    ``("delete", time, first_page, n_pages)`` for Op.TRIM."""
    out = []
    files = trace.file
    for i in range(len(trace.op)):
        op = int(trace.op[i])
        t = float(trace.time_s[i])
        f = -1 if files is None else int(files[i])
        off, size = int(trace.offset_bytes[i]), int(trace.size_bytes[i])
        if op in (OP_READ, OP_WRITE):
            if size > 0:
                first, last = off // page_bytes, (off + size - 1) // page_bytes
                out.append(("rw", t, op == OP_WRITE, f, list(range(first, last + 1))))
        elif op == OP_SYNC:
            out.append(("sync", t, f))
        elif op == OP_FLUSH:
            out.append(("syncall", t))
        else:  # TRIM: every page the range touches
            first = off // page_bytes
            n = (off + size - 1) // page_bytes - first + 1 if size > 0 else 0
            out.append(("delete", t, first, n))
    return out


class _Block:
    __slots__ = ("dirty", "writes", "read", "from_history", "file", "dirty_seq")

    def __init__(self, file):
        self.dirty = False
        self.writes = 0  # writes since the block entered the cache
        self.read = False  # a read reference since it entered (the read that brought it in included)
        self.from_history = False  # it entered while the history held it
        self.file = file
        self.dirty_seq = -1  # when it last went from clean (or new) to dirty


def run(entries, policy: str, capacity: int, *,
        period_s: float = 5.0,
        sync_scope: str = "file",
        on_delete: str = "keep",
        write_miss_read: bool = False,
        # --- write_once only ---
        evict_at: str = "flush",
        evict_clean_flagged: bool = True,
        history_pages: int | None = None,
        history_all_written: bool = False,
        consume_history: bool = False,
        history_on_read: bool = True,
        history_refresh: bool = True,
        history_drop_on_delete: bool = False,
        # --- conventions of the time line and of the I/O log (the paper has no device log) ---
        flush_at_equal: bool = True,
        periodic_ref: str = "ref",
        coalesce: bool = True,
        flush_order: str = "page",
        read_before_eviction: bool = False,
        end_order: str = "page",
        end_ref: str = "-1",
        file_of_block: str = "last",
        flush_at_end: bool = False):
    """Simulate ``policy`` ("lru_flush" or "write_once") with ``capacity`` blocks over ``entries``.

    Returns ``(outcome, rows, counters)``: outcome per page reference (0 miss, 1 hit); device I/O rows
    ``(ref, op, cause, first_page, n_pages)`` in issue order; the contract's counters.

    Open points (default first; see the report for the full list):

    period_s, flush_at_equal
        Section II.2: "더티 블록은 ... 동기화 요청이 없더라도 시스템에서 5초 주기로 스토리지에 반영(flush)하며,
        반영 후 클린 상태로 바뀌게 된다" - "dirty blocks are flushed to storage every 5 s by the system even
        without a sync request, and become clean after the flush". Fig 3: "블록 A는 0초 지점에 쓰기 ... 5초
        시점에 주기적인 스토리지 반영 ... 블록 B ... 7초와 9초 지점에 ... 10초 지점에 스토리지 반영시 마지막으로
        쓰기가 발생한 9초 지점의 내용이 스토리지에 기록된다" - flushes at 5 s, 10 s, ... from the start of the
        trace, and a flush writes EVERY dirty block (B, dirty for 1 s only, is written at 10 s; no age
        threshold). A flush point is reached when an entry's time is >= it (``flush_at_equal``: an entry at
        exactly 5.0 s comes after the 5 s flush; False: before it). Each point passed is one flush; none after
        the last entry (the trace ends there).
    sync_scope
        (b) "더티 블록은 프로그램이 명시적으로 동기화(sync) 요청을 할 때, 혹은 ... 5초 주기로 스토리지에
        반영(flush)하며" - "dirty blocks are flushed when the program explicitly requests a sync, or every
        5 s". So a sync writes back: default "file" (an fsync writes the dirty blocks of its file; a device
        flush, Op.FLUSH, writes all). "all": any sync writes back every dirty block. "none": syncs write
        nothing (section III describes the baseline as "LRU ... 과 5초 단위의 스토리지 반영 연산(flush)" -
        "LRU and a flush every 5 s", without syncs).
    evict_at
        (a) "제안하는 기법은 스토리지 반영 연산이 발생할 때, 1회성 쓰기 참조만 발생한 블록을 버퍼캐쉬에서 조기
        방출함으로써" - "when a storage flush (반영) operation happens, the proposed scheme evicts blocks that
        had only a one-time write". The paragraph before calls both the sync-triggered and the periodic
        write-back "반영(flush)", so default "flush": the early eviction follows every write-back, a sync's
        included (of the blocks that sync covers). "periodic": only at the 5 s flushes (Fig 4 shows only
        these; section III: "반영 연산 시점에 1회의 쓰기만 발생한 블록을 캐쉬에서 조기 방출한다").
    evict_clean_flagged
        (c) A flagged block is clean at a flush only if an earlier write-back left it in the cache (a sync
        with evict_at="periodic"). "방출플래그가 'o'인 경우 해당 블록은 스토리지 반영 시점에 캐쉬에서 삭제할
        대상" - "a block whose flag is 'o' is to be deleted from the cache at the flush time": default True,
        every flagged block in the flush's scope leaves, clean or dirty. False: only the flagged blocks this
        flush wrote back ("스토리지 반영 직후 버퍼캐쉬에서 쫓아내어" - "evicted right after being written to
        storage", abstract).
    the flag
        "블록마다 방출플래그(eviction flag)를 두어 블록의 쓰기 횟수가 1번이고 읽기 참조가 발생하지 않았는지
        여부를 표시한다" - "each block's flag tells whether its write count is 1 and no read reference
        happened"; "쓰기 참조가 1번만 발생했다라도 읽기 참조가 발생한 블록은 캐쉬에서 쫓아내지 않는다" - "a block
        with one write but a read is not evicted". Counted since the block entered the cache (a block that
        entered by a read miss has had a read). Flagged blocks are NOT preferred LRU victims between flushes:
        the eviction happens "스토리지 반영 연산이 발생할 때" (at the flush).
    history_pages, history_all_written, consume_history, history_on_read, history_refresh
        (d) "쓰기 횟수가 1회여서 삭제된 블록이 다시 캐쉬에 진입한 경우 그 쓰기 횟수를 0부터 재계산할 경우 해당
        블록이 캐쉬에서 삭제 후 재진입되는 일이 반복될 수 있다. 따라서, 캐쉬에서 데이터가 삭제되더라도 해당
        블록의 쓰기 발생 여부는 히스토리 버퍼(history buffer)를 두어 한동안 저장하도록 한다" - "if a block
        deleted because its write count was 1 re-enters and its count restarts from 0, it may be deleted and
        re-enter again and again; so, even after its data leave the cache, whether the block was written is
        kept for a while in a history buffer." Default: the history records the blocks the flush evicted
        (``history_all_written``: also LRU victims written during their stay), "for a while" = a FIFO of
        ``history_pages`` entries (None: the cache's capacity; 0: none), oldest dropped;
        ``history_refresh``: recording a block already there makes it the newest. Fig 4: "7초 지점에 다시 쓰기
        참조가 발생하여 캐쉬에 진입할 때는 히스토리 버퍼에 블록 B가 존재하므로(즉, 최초의 쓰기가 아니므로)
        방출플래그는 'x'로 바뀌게 된다" - "when B re-enters by a write at 7 s it is in the history (its write is
        not the first), so its flag becomes 'x'": a block that enters while in the history is never flagged
        during that stay. The history keeps a fact ("whether the block was written"), so by default a hit does
        not remove it (``consume_history``: it does). ``history_on_read``: a read miss that finds the block
        in the history is also a history hit (counted, consumed); False: only write misses look.
    write_miss_read
        (e) Not in the paper (it counts hits and misses of 4 KB block references). Default False: a write
        miss allocates the block without reading it; True: it reads it from flash first.
    on_delete, history_drop_on_delete
        Not in the paper. "keep": deletes are ignored; "drop": resident blocks of the range leave without a
        write (``history_drop_on_delete``: also leave the history).
    periodic_ref, coalesce
        The device log's conventions (not the paper's): the ref of a periodic flush's rows ("ref": the page
        reference whose time reached it, -1 if an event did; "-1": always -1); ``coalesce``: a flush writes
        its dirty blocks in page order with adjacent pages in one request, and a request's adjacent read
        misses are one read (False: one row per page); ``flush_order``: the order a flush writes its blocks
        in ("page": address order; "lru": least recently used first; "mru": most recently used first;
        "dirtied": in the order the blocks became dirty); ``read_before_eviction``: a read miss's device read
        is logged before the write-back of the victim it displaces (False: after it); ``end_order``: the
        order of the end flush (``flush_at_end``), as ``flush_order``; ``end_ref``: the ref of its rows ("-1",
        as the contract's IOLog says for the end of the trace; "last": the last page reference; "entry": the
        last page reference if the trace ends with one, -1 if it ends with an event).
    file_of_block
        Which file an fsync covers a block for, when references to one block name different files (the paper's
        blocks belong to one file; filelevel traces never do this): "last" - the file of its latest reference;
        "max" - the largest file id of all references to that page in the trace (-1: none).
    """
    assert policy in ("lru_flush", "write_once")
    assert sync_scope in ("file", "all", "none") and on_delete in ("keep", "drop")
    assert evict_at in ("flush", "periodic") and periodic_ref in ("ref", "-1")
    assert flush_order in ("page", "lru", "mru", "dirtied") and end_order in ("page", "lru", "mru", "dirtied")
    assert end_ref in ("-1", "last", "entry") and file_of_block in ("last", "max")
    wo = policy == "write_once"
    hist_cap = capacity if history_pages is None else history_pages

    static_file = {}  # page -> the largest file id of the references touching it (file_of_block="max")
    if file_of_block == "max":
        for e in entries:
            if e[0] == "rw":
                for p in e[4]:
                    static_file[p] = max(static_file.get(p, -1), e[3])
    cache: OrderedDict[int, _Block] = OrderedDict()  # LRU first, MRU last
    history: OrderedDict[int, None] = OrderedDict()  # oldest first
    c = dict.fromkeys(WRITE_ONCE_COUNTERS if wo else COUNTERS, 0)
    rows: list[tuple] = []
    outcome: list[int] = []
    k_next = 1  # the next periodic flush is at k_next * period_s

    def write_runs(pages, ref, cause, key, order=None):
        """``pages`` come in LRU order (the cache's order)."""
        order = order or flush_order
        if order == "page":
            pages = sorted(pages)
        elif order == "dirtied":
            pages = sorted(pages, key=lambda p: cache[p].dirty_seq)
        elif order == "mru":
            pages = pages[::-1]
        runs = []
        for p in pages:
            if coalesce and runs and runs[-1][0] + runs[-1][1] == p:
                runs[-1][1] += 1
            else:
                runs.append([p, 1])
        for p, n in runs:
            rows.append((ref, WRITE, cause, p, n))
            c["device_write_requests"] += 1
            c[key] += n

    def remember(p):
        if hist_cap <= 0:
            return
        if p in history:
            if history_refresh:
                history.move_to_end(p)
            return
        history[p] = None
        while len(history) > hist_cap:
            history.popitem(last=False)

    def flagged(b):
        return b.writes == 1 and not b.read and not b.from_history

    def flush(ref, cause, in_scope, evicts):
        """Write back the dirty blocks ``in_scope`` selects; then (write_once) evict the flagged ones."""
        chosen = [p for p, b in cache.items() if in_scope(b)]
        dirty = [p for p in chosen if cache[p].dirty]
        write_runs(dirty, ref, cause,
                   "device_writes_periodic_flush" if cause == PERIODIC else "device_writes_sync_flush")
        written = set(dirty)
        for p in dirty:
            cache[p].dirty = False
        if wo and evicts:
            for p in chosen:
                b = cache[p]
                if flagged(b) and (p in written or evict_clean_flagged):
                    del cache[p]
                    c["flush_evictions"] += 1
                    remember(p)

    def reach(t, ref):
        nonlocal k_next
        if period_s <= 0:
            return
        while (t >= k_next * period_s) if flush_at_equal else (t > k_next * period_s):
            c["periodic_flushes"] += 1
            flush(ref if periodic_ref == "ref" else -1, PERIODIC, lambda b: True, True)
            k_next += 1

    def sync(file):
        c["syncs"] += 1
        if sync_scope == "none":
            return
        if file is None or sync_scope == "all":
            scope = lambda b: True  # noqa: E731
        else:
            scope = lambda b: b.file == file  # noqa: E731
        flush(-1, SYNC, scope, evict_at == "flush")

    # the current run of read misses of a request (coalesced into one device read): first page, its
    # reference, length, and where in ``rows`` its first victim's write-back (if any) went
    run = {"start": None, "ref": None, "len": 0, "at": 0}

    def end_run():
        if run["len"]:
            row = (run["ref"], READ, DEMAND, run["start"], run["len"])
            if read_before_eviction:
                rows.insert(run["at"], row)
            else:
                rows.append(row)
            c["device_read_requests"] += 1
            c["device_reads"] += run["len"]
        run["start"], run["len"] = None, 0

    for e in entries:
        kind, t = e[0], e[1]
        if kind != "rw":
            reach(t, -1)
            if kind == "sync":
                sync(e[2])
            elif kind == "syncall":
                sync(None)
            else:
                c["deletes"] += 1
                if on_delete == "drop":
                    for p in range(e[2], e[2] + e[3]):
                        b = cache.pop(p, None)
                        if b is not None:
                            c["deleted_pages"] += 1
                            c["deleted_dirty"] += b.dirty
                        if history_drop_on_delete:
                            history.pop(p, None)
            continue
        _, t, is_write, file, pages = e
        reach(t, len(outcome))
        for p in pages:
            ref = len(outcome)
            c["references"] += 1
            c["write_references"] += is_write
            b = cache.get(p)
            if b is not None:
                outcome.append(1)
                c["hits"] += 1
                c["write_hits"] += is_write
                cache.move_to_end(p)
                end_run()
            else:
                outcome.append(0)
                needs_read = not is_write or write_miss_read
                if needs_read:
                    if is_write:
                        c["write_miss_reads"] += 1
                    if coalesce and run["len"] and run["start"] + run["len"] == p:
                        run["len"] += 1
                    else:
                        end_run()
                        run.update(start=p, ref=ref, len=1, at=len(rows))
                else:
                    end_run()
                if len(cache) >= capacity:
                    v, vb = cache.popitem(last=False)
                    c["evictions"] += 1
                    if vb.dirty:
                        rows.append((ref, WRITE, EVICTION, v, 1))
                        c["device_write_requests"] += 1
                        c["device_writes_eviction"] += 1
                    if wo and history_all_written and vb.writes > 0:
                        remember(v)
                b = _Block(file)
                cache[p] = b
                if wo and p in history and (is_write or history_on_read):
                    b.from_history = True
                    c["history_hits"] += 1
                    if consume_history:
                        del history[p]
            b.file = file if file_of_block == "last" else static_file[p]
            if is_write:
                b.writes += 1
                if not b.dirty:
                    b.dirty = True
                    b.dirty_seq = c["dirtyings"]
                    c["dirtyings"] += 1
            else:
                b.read = True
        end_run()

    dirty = [p for p, b in cache.items() if b.dirty]
    if flush_at_end:
        ref = {"-1": -1, "last": len(outcome) - 1,
               "entry": len(outcome) - 1 if entries and entries[-1][0] == "rw" else -1}[end_ref]
        write_runs(dirty, ref, END_FLUSH, "device_writes_end_flush", end_order)
        for p in dirty:
            cache[p].dirty = False
    else:
        c["dirty_at_end"] = len(dirty)
    c["resident_at_end"] = len(cache)
    return outcome, rows, c
