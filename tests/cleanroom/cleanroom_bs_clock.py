"""Clean-room reference of Spatial Clock and BS-CLOCK, written from the paper's text alone.

Paper: 이미경, 이두기, 박상현, "플래시 메모리 기반의 데이터베이스 시스템을 위한 BS-CLOCK 버퍼 교체 알고리즘"
(Lee, Lee, Park, "BS-CLOCK: A Buffer Replacement Algorithm for Flash Memory-based Database Systems", 2016).
Nothing of the package's policy code was read to write this file.

The mechanism, as the paper gives it
------------------------------------
* Sec. II (Spatial Clock): "CLOCK 알고리즘과 같이 버퍼에 있는 페이지들이 순환적 형태의 리스트로 유지되고 참조 비트를
  사용하여 희생자 페이지를 결정한다. 한 가지 CLOCK 알고리즘과 차별화된 점은 버퍼에 있는 페이지들이 논리적 섹터 번호
  (Logical Sector Number)를 기준으로 정렬된 상태를 유지한다는 점이다." -- like CLOCK, the buffered pages are kept in
  a circular list and a reference bit decides the victim; unlike CLOCK the pages are kept sorted by logical sector
  number.  Here: the resident pages in page-number order, circular.
* Sec. II (CLOCK): "페이지가 참조될 때 하드웨어에 의해 페이지의 참조 비트가 1로 초기화된다 ... 참조 비트가 0인 경우
  ... 이 페이지를 희생자 페이지로 간주하여 버퍼에서 삭제한다. 참조 비트가 1인 경우 CLOCK 포인터가 참조 비트가 0인
  페이지를 가리킬 때까지 페이지들의 참조 비트들을 0으로 변경한다." -- a referenced page gets bit 1; on replacement the
  CLOCK pointer's page is the victim if its bit is 0, otherwise bits are cleared until the pointer reaches a 0.
* Sec. III + Fig. 3 (BS-CLOCK): a dirty victim's following pages that are unreferenced, dirty and sequential
  ("q->referenced == 0 and q->dirty == 1 and q->lsn == r->lsn + 1") are written with it in one request
  ("플래시 메모리로 한꺼번에 쓴다"); only the victim leaves the buffer, the others become clean
  ("본래 CLOCK 포인터가 가리켰던 첫 번째 페이지만을 버퍼에서 내보내고 나머지 희생자 페이지들은 ...
  클린 페이지로 변경한다").
  The number of pages written at once is limited (SEQ_DIRTIED_PAGES, Table 3, 16 in Sec. 4.2).

Open points (the switches of :func:`simulate`; default first, the quote beside each in the code)
----------------------------------------------------------------------------------------------
1. ``insert_referenced`` (True): a newly loaded page enters with its reference bit set.
2. ``new_page_before_hand`` (True): the hand is a pointer to a page; a new page that lands between the victim
   and the hand's page (page-number order) is behind the hand and is examined last.  False: the hand is a
   position just past the victim's page number, so such a page is examined next (the package's reading; it has
   no parameter for the default).
3. ``limit_counts_victim`` (True): a bulk write holds at most ``seq_dirtied_pages`` pages, the victim included.
   False: up to ``seq_dirtied_pages`` pages follow the victim (Fig. 3's loop bound counts followers only).
4. ``hand_past_bulk`` (False): after a bulk write the hand stands one page past the victim, as after any
   eviction.  True: one page past the last page of the bulk write.
5. (no switch) evict first, then load: the write-back of a dirty victim precedes the miss's read.
6. (no switch) the hand starts at the lowest resident page (the head of the sorted list) at the first eviction.
7. (no switch) a write miss loads no data (contract: "a write miss allocates the page without reading it").
8. (no switch) one device read per missed page (the paper's before-cache trace is "연산 종류, 페이지 번호").
9. ``read_before_writeback`` (False): the order of the two device I/Os of one miss.  Default: the victim's
   write-back, then the read of the new page (open point 5).  True: the read first (the package's order).
10. ``end_flush_from_hand`` (False): the end-of-trace flush is not in the paper.  Default: one write per run of
    consecutive dirty pages, in page order.  True: one write per dirty page, in the order the hand would meet
    them from where it stands (the package's order).  End-flush rows carry reference -1 (the contract's IOLog:
    "-1 when an event or the end of the trace did").
"""

from __future__ import annotations

import bisect

CAUSE_DEMAND, CAUSE_EVICTION, CAUSE_END_FLUSH = 0, 1, 2
OP_READ, OP_WRITE = 0, 1

COUNTERS = ("references", "hits", "write_references", "write_hits", "device_reads", "device_read_requests",
            "device_writes_eviction", "device_writes_end_flush", "device_write_requests", "dirtyings",
            "dirty_at_end", "evictions", "resident_at_end", "bulk_cleaned")
DERIVED = ("read_hits", "misses", "write_misses", "read_misses", "device_writes")


class SpatialClockCache:
    """The resident pages in page-number order with a reference bit and a dirty bit each, and a CLOCK hand.

    The hand is kept as a *cursor*: the next page the hand examines is the first resident page whose number is
    >= ``cursor`` (wrapping to the lowest page past the end; ``None`` = the lowest page).  The two readings of
    open point 2 differ only in the cursor set after an eviction:

    * pointer reading (``new_page_before_hand=True``): ``cursor`` = the number of the resident page that follows
      the victim (cyclically, the victim removed).  That page stays resident until the hand reaches it (only the
      hand's page is ever removed), so the cursor is exactly a pointer to it; a new page numbered between the
      victim and it sorts below the cursor and is reached last.
    * position reading (``new_page_before_hand=False``): ``cursor`` = victim + 1, i.e. the first page numbered
      above the victim, which may be the page just inserted.
    """

    def __init__(self, capacity: int, *, seq_dirtied_pages: int | None = None, limit_counts_victim: bool = True,
                 insert_referenced: bool = True, hand_past_bulk: bool = False, new_page_before_hand: bool = True,
                 read_before_writeback: bool = False, end_flush_from_hand: bool = False):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.bulk = seq_dirtied_pages  # None: Spatial Clock (no bulk write)
        self.limit_counts_victim = limit_counts_victim
        self.insert_referenced = insert_referenced
        self.hand_past_bulk = hand_past_bulk
        self.new_page_before_hand = new_page_before_hand
        self.read_before_writeback = read_before_writeback
        self.end_flush_from_hand = end_flush_from_hand
        self.pages: list[int] = []  # resident page numbers, sorted ("논리적 섹터 번호를 기준으로 정렬된 상태")
        self.ref: dict[int, int] = {}
        self.dirty: dict[int, int] = {}
        self.cursor: int | None = None  # open point 6: None = start at the lowest page
        self.io: list[tuple[int, int, int, int, int]] = []
        self.c = dict.fromkeys(COUNTERS, 0)

    # ---- the sorted circular list ----
    def _at_or_after(self, key: int | None) -> int:
        """Index of the first resident page >= key, wrapping to 0."""
        if key is None:
            return 0
        i = bisect.bisect_left(self.pages, key)
        return 0 if i == len(self.pages) else i

    def _next_page(self, page: int) -> int:
        """choose_next_page(lsn) of Fig. 3: the resident page after ``page`` in the circular sorted list."""
        i = bisect.bisect_right(self.pages, page)
        return self.pages[0 if i == len(self.pages) else i]

    # ---- one reference ----
    def access(self, idx: int, page: int, is_write: bool) -> int:
        c = self.c
        c["references"] += 1
        c["write_references"] += int(is_write)
        if page in self.ref:
            c["hits"] += 1
            c["write_hits"] += int(is_write)
            self.ref[page] = 1  # "페이지가 참조될 때 ... 참조 비트가 1로 초기화된다" (Sec. II)
            if is_write and not self.dirty[page]:
                self.dirty[page] = 1
                c["dirtyings"] += 1
            return 1
        # A miss.  Fig. 1 / Sec. III: "버퍼에 새롭게 참조된 페이지를 할당 할 빈 프레임이 없을 때" the victim is
        # chosen and evicted, "그 자리에 새로운 페이지를 적재" -- then the new page is loaded (open point 5: evict
        # first).
        mark = len(self.io)
        if len(self.pages) >= self.capacity:
            self._replace(idx)
        if not is_write:  # open point 7: a write miss is not read
            c["device_reads"] += 1
            c["device_read_requests"] += 1
            row = (idx, OP_READ, CAUSE_DEMAND, page, 1)
            if self.read_before_writeback:  # open point 9
                self.io.insert(mark, row)
            else:
                self.io.append(row)
        bisect.insort(self.pages, page)
        # Open point 1.  "CLOCK 알고리즘은 페이지가 참조될 때 하드웨어에 의해 페이지의 참조 비트가 1로 초기화된다"
        # (Sec. II: when a page is referenced its reference bit is set to 1); loading a page follows its reference.
        self.ref[page] = 1 if self.insert_referenced else 0
        self.dirty[page] = int(is_write)
        c["dirtyings"] += int(is_write)
        return 0

    def _replace(self, idx: int) -> None:
        # Sec. II: "CLOCK 포인터를 사용하여 페이지들의 참조 비트를 검사한다. 참조 비트가 0인 경우 ... 희생자 페이지로
        # 간주 ... 참조 비트가 1인 경우 CLOCK 포인터가 참조 비트가 0인 페이지를 가리킬 때까지, 페이지들의 참조
        # 비트들을 0으로 변경한다."  The hand walks the sorted circle, clearing bits, and stops at the first page
        # with bit 0.
        i = self._at_or_after(self.cursor)
        while self.ref[self.pages[i]]:
            self.ref[self.pages[i]] = 0
            i = (i + 1) % len(self.pages)
        victim = self.pages[i]
        followers = self._bulk_followers(victim) if (self.bulk is not None and self.dirty[victim]) else []
        if self.dirty[victim]:
            n = 1 + len(followers)
            # Sec. III: "조건을 만족하면 이 페이지들을 모두 희생자 페이지들로 간주하고 플래시 메모리로 한꺼번에 쓴다" --
            # all of them are written to flash at once: one write request starting at the victim.
            self.io.append((idx, OP_WRITE, CAUSE_EVICTION, victim, n))
            self.c["device_writes_eviction"] += n
            self.c["device_write_requests"] += 1
            # Sec. III: "첫 번째 페이지만을 버퍼에서 내보내고 나머지 희생자 페이지들은 더티 비트(Dirty Bit)를 이용하여
            # 클린 페이지로 변경한다" -- the followers stay, now clean (their reference bits are untouched: all 0).
            for q in followers:
                self.dirty[q] = 0
            self.c["bulk_cleaned"] += len(followers)
        last = followers[-1] if (followers and self.hand_past_bulk) else victim
        # evict_page(p->lsn) (Fig. 3 line 14): only the victim leaves.
        del self.pages[i]
        del self.ref[victim]
        del self.dirty[victim]
        self.c["evictions"] += 1
        # Open points 2 and 4: where the hand stands now.  Sec. II/III speak of the hand as a pointer that points at a
        # page: "BS-CLOCK 알고리즘은 CLOCK 포인터가 가리키는 페이지의 참조 비트를 검사한다" (Sec. III: it checks the
        # reference bit of the page the CLOCK pointer points to), and "CLOCK 포인터가 참조 비트가 0인 페이지를 가리킬
        # 때까지" (Sec. II: until the CLOCK pointer points to a page whose bit is 0).  After an eviction the pointer
        # points at the page after the victim; loading a page into the sorted list does not move it (the new page
        # takes the victim's place, "그 자리에 새로운 페이지를 적재", Fig. 1, which in CLOCK the hand has just passed).
        # Fig. 3 says nothing about the hand after a bulk write: it evicts only p and its cursor q is a local variable
        # (open point 4, default: as after any eviction).
        if not self.pages:
            self.cursor = None
        elif self.new_page_before_hand:
            self.cursor = self._next_page(last) if last in self.ref else self.pages[self._at_or_after(last + 1)]
        else:
            self.cursor = last + 1

    def _bulk_followers(self, victim: int) -> list[int]:
        """Fig. 3 lines 5-13: the pages after the dirty victim that are unreferenced, dirty and sequential.

        Open point 3.  Fig. 3's loop runs "while (... and i < SEQ_DIRTIED_PAGES)" with i counting the followers put
        in ``array`` (up to SEQ_DIRTIED_PAGES followers, SEQ_DIRTIED_PAGES + 1 pages), but lines 15-20 then cap the
        count: "if nr_pages >= SEQ_DIRTIED_PAGES then ... nr_pages = SEQ_DIRTIED_PAGES", and Table 3 calls the
        parameter "플래시 메모리로 쓸 수 있는 최대 페이지 개수" (the most pages that can be written to flash) with
        "양 (= 페이지 개수 * 페이지 한 개의 크기)" (amount = pages x page size: 2 -> 8K ... 1024 -> 4M, and 4M is the
        whole 4 MB buffer).  Default: a write holds at most SEQ_DIRTIED_PAGES pages, the victim included.
        """
        most = self.bulk - 1 if self.limit_counts_victim else self.bulk
        out: list[int] = []
        r = victim
        while len(out) < most:
            q = self._next_page(r)
            if q != r + 1 or self.ref[q] != 0 or self.dirty[q] != 1:  # "q->lsn == r->lsn + 1" etc.
                break
            out.append(q)
            r = q
        return out

    def finish(self, flush_at_end: bool = False) -> None:
        dirty = [p for p in self.pages if self.dirty[p]]
        if flush_at_end and self.end_flush_from_hand:  # open point 10, the package's order
            i = self._at_or_after(self.cursor) if self.pages else 0
            for p in self.pages[i:] + self.pages[:i]:
                if self.dirty[p]:
                    self.io.append((-1, OP_WRITE, CAUSE_END_FLUSH, p, 1))
                    self.c["device_write_requests"] += 1
                    self.dirty[p] = 0
            self.c["device_writes_end_flush"] += len(dirty)
        elif flush_at_end:
            # Not in the paper; the contract's end flush.  Default: one write per run of consecutive dirty pages.
            runs: list[list[int]] = []
            for p in dirty:
                if runs and p == runs[-1][-1] + 1:
                    runs[-1].append(p)
                else:
                    runs.append([p])
            for run in runs:
                self.io.append((-1, OP_WRITE, CAUSE_END_FLUSH, run[0], len(run)))
                self.c["device_write_requests"] += 1
            self.c["device_writes_end_flush"] += len(dirty)
            for p in dirty:
                self.dirty[p] = 0
        else:
            self.c["dirty_at_end"] = len(dirty)
        self.c["resident_at_end"] = len(self.pages)
        c = self.c
        c["read_hits"] = c["hits"] - c["write_hits"]
        c["misses"] = c["references"] - c["hits"]
        c["write_misses"] = c["write_references"] - c["write_hits"]
        c["read_misses"] = c["misses"] - c["write_misses"]
        c["device_writes"] = c["device_writes_eviction"] + c["device_writes_end_flush"]


def simulate(pages, writes, capacity: int, *, seq_dirtied_pages: int | None = None, limit_counts_victim: bool = True,
             insert_referenced: bool = True, hand_past_bulk: bool = False, new_page_before_hand: bool = True,
             read_before_writeback: bool = False, end_flush_from_hand: bool = False, flush_at_end: bool = False):
    """Run Spatial Clock (``seq_dirtied_pages=None``) or BS-CLOCK over page references.

    ``pages``: page numbers in reference order; ``writes``: truthy for a write.  Returns ``(outcome, io, counters)``:
    outcome per reference (0 miss, 1 hit), device I/O rows ``(ref, op, cause, first_page, n_pages)`` in issue order,
    and the counters under the contract's names.
    """
    cache = SpatialClockCache(capacity, seq_dirtied_pages=seq_dirtied_pages, limit_counts_victim=limit_counts_victim,
                              insert_referenced=insert_referenced, hand_past_bulk=hand_past_bulk,
                              new_page_before_hand=new_page_before_hand, read_before_writeback=read_before_writeback,
                              end_flush_from_hand=end_flush_from_hand)
    outcome = [cache.access(i, int(p), bool(w)) for i, (p, w) in enumerate(zip(pages, writes, strict=True))]
    cache.finish(flush_at_end)
    return outcome, cache.io, dict(cache.c)
