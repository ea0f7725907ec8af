"""Clean-room reference for paper 3 (Kim, Hwang, Lee, Kwak, Park 2019, "Buffer Policy based on High-capacity
Hybrid Memories ...": CLOCK-HBM) and for CLOCK-DNV as that paper describes it (Kang et al. 2017, its ref. [4]).

Written from the paper's text alone (/work/shared/papers/002_bbcc8db52b148109.txt: Sec. I, II.2, III,
Algorithm 1, Table 2, Table 3, Sec. IV); Fig. 2 and Fig. 3 are images that the text file does not carry, so
everything the paper puts only in Fig. 3 (the starting levels, the diagram of the page states) is an open
point here. Plain Python, slow, meant to be obviously correct.

Both policies are page-level (Algorithm 1's input is "p, // page according to a requested operation"), so a
request of several pages is simply its pages in order.

Returned by both simulators: ``(outcome, rows, counters)``

* ``outcome[i]``: 0 miss, 1 hit, per page reference;
* ``rows``: the device I/O log in issue order, ``(ref, op, cause, first_page, n_pages, tier)`` with op 0 read /
  1 write, the contract's cause codes, ``tier`` 0 = DRAM, 1 = NVM (the tier the page left or entered). Moves
  between tiers are logged too (cause ``migration``, see ``MIGRATION_OP``); they are not device I/O. Within one
  reference the rows come in Algorithm 1's order by default (the victim's migration and the NVM eviction it
  needs, line 3, before the allocation of the new page, line 5); ``incoming_first=True`` puts the incoming
  page's row (its demand read, or its move up from NVM) first, as the package does;
* ``counters``: the contract's counter names.

Every open point of the text is a keyword switch; the default is the reading the text supports best, with
the quote beside it (Korean original, then the English translation). The list is OPEN_POINTS below.
"""

from __future__ import annotations

import numpy as np

# contract cause codes, in order: ('demand', 'eviction', 'end_flush', 'prefetch', 'periodic_flush',
# 'sync_flush', 'migration')
DEMAND, EVICTION, END_FLUSH, PREFETCH, PERIODIC_FLUSH, SYNC_FLUSH, MIGRATION = range(7)
READ, WRITE = 0, 1
DRAM, NVM = 0, 1
# A move between tiers is logged with the tier the page entered; its op says the direction: a write into NVM
# (DRAM -> NVM), a read out of NVM (NVM -> DRAM). (This is the package's log convention, seen on a tiny trace;
# the contract says only "the memory tier the page left or entered".)
MIGRATION_OP = {NVM: WRITE, DRAM: READ}

# NVM classes (Sec. III, last paragraph)
MIG, EVC = "migration", "eviction"

BASE_COUNTERS = ("references", "hits", "write_references", "write_hits", "device_reads", "device_read_requests",
                 "device_writes_eviction", "device_writes_end_flush", "device_write_requests", "dirtyings",
                 "dirty_at_end", "evictions", "resident_at_end")
TIER_COUNTERS = ("hits_dram", "writes_dram", "resident_dram", "hits_nvm", "writes_nvm", "resident_nvm",
                 "migrations_dram_nvm", "migrations_nvm_dram", "write_hits_nvm", "fills_dram", "fills_nvm",
                 "writebacks_dram", "writebacks_nvm")
HBM_COUNTERS = BASE_COUNTERS + TIER_COUNTERS + ("level_ups", "level_downs", "to_eviction_candidate",
                                                "to_migration_candidate", "promote_swaps")
DNV_COUNTERS = BASE_COUNTERS + TIER_COUNTERS + ("clean_drops", "block_evictions", "padded_nvm_pages",
                                                "padded_dram_pages")


def split_tiers(capacity_pages: int) -> tuple[int, int]:
    """Table 3: "buffer size DRAM 6.4MB (20%) / NVMs 25.6MB (80%)": DRAM the nearest whole number of pages to
    20% (never a tie for whole capacities), NVM the rest."""
    dram = (capacity_pages * 20 + 50) // 100
    return dram, capacity_pages - dram


def refs_of(trace, page_bytes: int = 4096) -> list[tuple[int, bool]]:
    """(page, is_write) for every page reference of a Trace, in order."""
    pr = trace.to_pages(page_bytes)
    return [(int(p), bool(w)) for p, w in zip(pr.page, pr.is_write, strict=True)]


def swaps(outcome) -> int:
    """The paper's "swapping operation" count (Fig. 4), in this reading: one per buffer miss, read or write.

    Sec. I: "하이브리드 버퍼에 공간이 부족할 시 하이브리드 버퍼와 SSD 간의 상호 페이지들을 교체하는 스와핑(swapping)
    연산" -- "the swapping operation that exchanges pages between the hybrid buffer and the SSD when the buffer
    lacks space"; Sec. III (Fig. 3): "스와핑 연산으로 할당되는 페이지들은 읽기/쓰기 연산에 따라 DRAM 버퍼에 차등
    할당한다" -- "pages allocated by a swapping operation are allocated differently in DRAM according to the
    read/write operation": write misses are allocated "by a swap" too. Sec. IV: "스와핑 연산은 SSD에서 페이지
    읽기 연산을 수행해야 하기 때문에 긴 지연시간이 요구한다" -- "a swap needs a long latency because it must read
    a page from the SSD". So a swap is a miss (of either kind), counted once, not once per flash access: from the
    device I/O log it is the demand reads when write misses read their page (``write_miss_read=True``), and the
    demand reads plus the write misses otherwise; eviction write-backs are part of the same exchange, not
    further swaps."""
    return int(np.count_nonzero(np.asarray(outcome) == 0))


class _Page:
    __slots__ = ("page", "tier", "frame", "dirty", "level", "wcount", "ref", "rbit", "cls")

    def __init__(self, page):
        self.page = page
        self.tier = DRAM
        self.frame = -1
        self.dirty = False
        self.level = 1  # DRAM level (CLOCK-HBM, Table 2)
        self.wcount = 0  # writes since the DRAM hand last passed (CLOCK-HBM, Table 2)
        self.ref = False  # reference bit (any access)
        self.rbit = False  # read bit (reads only; CLOCK-HBM's NVM classes are by reads)
        self.cls = MIG  # NVM class (CLOCK-HBM)


class _Clock:
    """Fixed frames and a hand. Free frames are taken lowest first (both buffers fill in order 0, 1, 2, ...,
    which is where the hand starts, so newly filled pages are met in the order they came); ``free="lifo"``
    takes the frame freed last. (Only CLOCK-DNV's NVM ever has free frames after filling: block padding.)"""

    def __init__(self, n, free="lowest"):
        assert free in ("lowest", "lifo")
        self.frames = [None] * n
        self.hand = 0
        self.n = n
        self.used = 0
        self.free = free
        self.freed = []  # frames freed, in order

    def full(self):
        return self.used == self.n

    def free_frame(self):
        if self.free == "lifo" and self.freed:
            return self.freed[-1]  # the frame freed last (before any was freed: the fill order, lowest first)
        return self.frames.index(None)

    def put(self, pg, i, tier):
        assert self.frames[i] is None
        if i in self.freed:
            self.freed.remove(i)
        self.frames[i] = pg
        pg.frame, pg.tier = i, tier
        self.used += 1

    def take(self, i):
        pg = self.frames[i]
        self.frames[i] = None
        self.freed.append(i)
        self.used -= 1
        return pg

    def pages(self):
        return [pg for pg in self.frames if pg is not None]


# ------------------------------------------------------------------------------------------------ CLOCK-HBM

def table2(level: int, writes: int) -> int:
    """Table 2, "Switching conditions for the number of write operations of each level in DRAM buffer page":

        Level  Increment  Maintenance  Decrease
        1      1-3        0            -
        2      2 or 3     1            0
        3      3          1 or 2       0
        4      -          2            0 or 1

    The counts go up to 3 ("1-3"), so more than 3 writes count as 3 (and level 4 with 3 writes stays, it
    cannot go higher). A level moves one step at a time ("Increment" / "Decrease")."""
    w = min(writes, 3)
    if level == 1:
        return 2 if w >= 1 else 1
    if level == 2:
        return 3 if w >= 2 else (2 if w == 1 else 1)
    if level == 3:
        return 4 if w == 3 else (3 if w >= 1 else 2)
    return 4 if w >= 2 else 3


def clock_hbm(refs, dram_pages: int, nvm_pages: int, *, flush_at_end: bool = False,
              rotation: str = "page", read_level: int = 1, write_level: int = 2, promote_level: int = 2,
              nvm_classes: str = "respectively", promote_test: str = "before", dram_ref_bit: bool = False,
              levels: bool = True, nvm_to_dram: bool = True, nvm_spare: str = "any", write_miss_read: bool = False,
              own_write_counts: bool = True, level_update: str = "before_test", migrated_referenced: bool = False,
              insert_referenced: bool = True, promote_write_tier: str = "dram", incoming_first: bool = False):
    """CLOCK-HBM (Sec. III, Algorithm 1, Table 2). ``refs``: (page, is_write) in order.

    Algorithm 1 (the paper's listing):
        1 if there is no p in hybrid buffer do
        2   if there is no free space in DRAM buffer then
        3     fs = MigrateToNVMSBuffer(d-clock, n-clock, p);
        5   AllcateToDRAMBuffer(fs, p);
        7 SetPageBitFlags(p, op);
        8 if there is p in NVMs buffer and reference bit is set do
        9   if op is the write operation then
        10    MigrateToDRAMBuffer(d-clock, n-clock, p);

    Open points and switches (defaults first; OPEN_POINTS has the quotes):
      rotation "page" | "sweep"; read_level 1, write_level 2, promote_level 2; nvm_classes "respectively" |
      "swapped"; promote_test "before" | "after"; dram_ref_bit False; levels True; nvm_to_dram True;
      nvm_spare "any" | "read"; write_miss_read False; own_write_counts True (a); level_update "before_test" |
      "after_test" (b); migrated_referenced False (c); insert_referenced True (only with dram_ref_bit);
      promote_write_tier "dram" | "nvm"; incoming_first False (log order, see the module docstring).
    """
    assert dram_pages >= 1 and nvm_pages >= 1
    assert rotation in ("page", "sweep") and nvm_classes in ("respectively", "swapped")
    assert promote_test in ("before", "after") and nvm_spare in ("any", "read")
    assert level_update in ("before_test", "after_test") and promote_write_tier in ("dram", "nvm")
    c = dict.fromkeys(HBM_COUNTERS, 0)
    rows = []
    outcome = []
    where: dict[int, _Page] = {}
    dram, nvm = _Clock(dram_pages), _Clock(nvm_pages)
    if not levels:
        read_level = write_level = promote_level = 1

    def evaluate(pg):
        # Sec. III: "단계의 변화는 CLOCK이 한 사이클이 회전하는 동안에 쓰기 연산의 횟수에 따라 평가되며, 자세한 평가
        # 조건은 표 2와 같다." -- "level changes are evaluated by the number of writes while the CLOCK turns one
        # cycle; the conditions are in Table 2." Default reading (rotation="page"): one cycle of a page is from
        # one pass of the hand over it to the next (from its arrival for a new page); "sweep": all pages at
        # once when the hand wraps from the last frame to the first.
        if not levels:
            pg.wcount = 0
            return
        new = table2(pg.level, pg.wcount)
        if new > pg.level:
            c["level_ups"] += 1
        elif new < pg.level:
            c["level_downs"] += 1
        pg.level = new
        pg.wcount = 0

    def advance_dram():
        dram.hand = (dram.hand + 1) % dram.n
        if rotation == "sweep" and dram.hand == 0:
            for pg in dram.pages():
                evaluate(pg)

    def dram_victim():
        """The DRAM hand: Sec. III: "DRAM 버퍼에 여유 공간이 부족할 시 알고리즘 1과 그림 3과 같이 CLOCK을 시계
        방향으로 회전하면서 레벨 1과 레벨 2에 해당하는 페이지들을 비휘발성 메모리로 이주함으로써 여유 공간을
        확보한다." -- "when DRAM lacks free space it turns the CLOCK clockwise and migrates pages of level 1 and
        level 2 to NVM to make room." One page per miss: "DRAM 버퍼에 존재하는 페이지들 중 하나의 페이지를
        선정하여 비휘발성 메모리 버퍼로 이주하고, 해당하는 공간에 새로운 페이지를 할당한다" -- "selects one of
        the DRAM pages, migrates it to NVM and allocates the new page in its space". Returns the victim's frame;
        the hand is still on it."""
        while True:
            i = dram.hand
            pg = dram.frames[i]
            if rotation == "page" and level_update == "before_test":
                evaluate(pg)  # (b) default: the page's finished rotation is evaluated, then its level tested
            if dram_ref_bit and pg.ref:
                pg.ref = False
                if rotation == "page" and level_update == "after_test":
                    evaluate(pg)
                advance_dram()
                continue
            if pg.level <= 2:
                return i  # the caller takes the victim out, then moves the hand on (take_dram_victim)
            if rotation == "page" and level_update == "after_test":
                evaluate(pg)  # (b) other reading: test the level as it stood, update the spared page
            advance_dram()

    def take_dram_victim():
        """The victim leaves its frame, then the hand moves on (with rotation="sweep" the pages evaluated at a
        wrap are those still in DRAM: neither the leaving victim nor the page about to take its frame)."""
        i = dram_victim()
        v = dram.take(i)
        advance_dram()
        return i, v

    def nvm_class(level):
        # Sec. III, last paragraph: "CLOCK-HBM의 비휘발성 메모리 버퍼 정책은 DRAM 버퍼에서 이주한 페이지들 중
        # 레벨 1과 레벨 2에 해당하는 페이지들을 할당한다. 여기서 레벨 1과 레벨 2의 차이점은 비휘발성 메모리
        # 버퍼에서 차등 분류된다는 것이다. 이는 비휘발성 메모리 버퍼에 지속적으로 상주하길 원하는 페이지인
        # 이주 후보자(migration candidate)와 조기에 쫓아내고 싶은 페이지인 퇴출 후보자(eviction candidate)를
        # 분류하여 할당하기 위함이다." -- "the NVM
        # policy receives the level-1 and level-2 pages migrated from DRAM; the difference between level 1 and
        # level 2 is that they are classified differently in NVM, into migration candidates (pages to keep in
        # NVM) and eviction candidates (pages to evict early)." Default: the word order, level 1 -> migration
        # candidate, level 2 -> eviction candidate ("respectively"); "swapped" the reverse.
        first = level <= 1
        if nvm_classes == "swapped":
            first = not first
        return MIG if first else EVC

    def nvm_victim():
        """The NVM hand. Sec. III: "이러한 페이지들은 DRAM 버퍼 정책과 마찬가지로 할당된 이후 CLOCK이 한 사이클이
        회전하는 동안에 읽기 연산이 발생한 여부에 따라 재분류한다. 최종적으로 CLOCK-HBM은 하이브리드 버퍼에서 읽기/쓰기
        연산에 대한 접근 빈도가 낮은 페이지들을 스와핑 연산의 대상으로 선정한다." -- "like the DRAM policy, after
        allocation these pages are reclassified by whether a read happened while the CLOCK turned one cycle.
        Finally CLOCK-HBM selects as swap targets the pages with a low read/write access frequency."
        Reading: at the hand, the class follows the reads of the cycle: a page read since the last pass
        becomes (stays) a migration candidate, a page not read becomes an eviction candidate; both lose their
        bits. The victim is an eviction candidate that was already one and was not spared: with nvm_spare="any"
        (default: "read/write access frequency") a written (unread) page is spared for this pass, with "read"
        only a read spares it. (My first draft let a write make a page a migration candidate too; the
        sentence above says the classes are by reads, so that was wrong: see the report.)"""
        while True:
            j = nvm.hand
            pg = nvm.frames[j]
            nvm.hand = (j + 1) % nvm.n
            if pg.rbit:
                if pg.cls == EVC:
                    c["to_migration_candidate"] += 1
                pg.cls = MIG
            elif pg.cls == MIG:
                pg.cls = EVC
                c["to_eviction_candidate"] += 1
            elif not (pg.ref and nvm_spare == "any"):
                return j
            pg.ref = pg.rbit = False

    def to_nvm(pg, i, frame=None):
        """Migrate DRAM page ``pg`` (just taken out of DRAM frame i) into NVM: into ``frame`` (a swap), a free
        frame, or the NVM hand's victim's frame (the victim written back if dirty: Sec. III solution 3,
        "비휘발성 메모리 버퍼의 페이지들만 SSD로 쫓아낸다" -- "only pages of the NVM buffer are evicted to the
        SSD")."""
        if frame is None:
            if not nvm.full():
                frame = nvm.free_frame()
            else:
                frame = nvm_victim()
                e = nvm.take(frame)
                del where[e.page]
                c["evictions"] += 1
                if e.dirty:
                    rows.append((i, WRITE, EVICTION, e.page, 1, NVM))
                    c["device_writes_eviction"] += 1
                    c["device_write_requests"] += 1
                    c["writebacks_nvm"] += 1
        pg.cls = nvm_class(pg.level)
        # (c) Sec. III: "할당된 이후 CLOCK이 한 사이클이 회전하는 동안에 읽기 연산이 발생한 여부" -- the observed
        # cycle starts "after allocation" in NVM: the page arrives unreferenced (default).
        pg.ref = pg.rbit = migrated_referenced
        nvm.put(pg, frame, NVM)
        rows.append((i, MIGRATION_OP[NVM], MIGRATION, pg.page, 1, NVM))
        c["migrations_dram_nvm"] += 1

    for i, (p, w) in enumerate(refs):
        mark = len(rows)
        c["references"] += 1
        c["write_references"] += w
        pg = where.get(p)
        if pg is None:
            # 1-6: a miss. Sec. III solution 1: "스와핑 연산이 발생한 페이지들을 오직 DRAM 버퍼에만 할당한다" --
            # "pages of a swap are allocated only to the DRAM buffer".
            outcome.append(0)
            pg = _Page(p)
            if not dram.full():
                frame = dram.free_frame()
            else:
                frame, v = take_dram_victim()
                to_nvm(v, i)
            # Sec. III (Fig. 3): "스와핑 연산으로 할당되는 페이지들은 읽기/쓰기 연산에 따라 DRAM 버퍼에 차등
            # 할당한다. 이는 쓰기 연산을 읽기 연산보다 오래 DRAM 버퍼에 상주시키기 위함이다." -- "pages allocated by
            # a swap are allocated differently in DRAM by read/write, to keep writes longer in DRAM than reads":
            # different starting levels (Fig. 3 is not in the text): read_level 1, write_level 2 by default.
            pg.level = write_level if w else read_level
            pg.ref = insert_referenced
            dram.put(pg, frame, DRAM)
            where[p] = pg
            if not w or write_miss_read:
                # contract: a read miss costs one device page read; a write miss allocates without reading
                # (write_miss_read: read-modify-write).
                rows.insert(mark if incoming_first else len(rows), (i, READ, DEMAND, p, 1, DRAM))
                c["device_reads"] += 1
                c["device_read_requests"] += 1
                c["fills_dram"] += 1
            if w:
                c["writes_dram"] += 1
                c["dirtyings"] += 1
                pg.dirty = True
                # (a) line 7 SetPageBitFlags(p, op) runs after the allocation (line 5), for a miss as well: the
                # write that brought the page in is one of the writes of its first cycle (own_write_counts).
                pg.wcount = 1 if own_write_counts else 0
            continue
        outcome.append(1)
        c["hits"] += 1
        c["write_hits"] += w
        if pg.tier == DRAM:
            c["hits_dram"] += 1
            if dram_ref_bit:
                pg.ref = True
            if w:
                c["writes_dram"] += 1
                pg.wcount += 1
                if not pg.dirty:
                    pg.dirty = True
                    c["dirtyings"] += 1
            continue
        # in NVM
        c["hits_nvm"] += 1
        before = pg.ref
        # 7 SetPageBitFlags(p, op): the reference bit (any access), the read bit, the dirty bit
        pg.ref = True
        if not w:
            pg.rbit = True
            continue
        c["write_hits_nvm"] += 1
        if not pg.dirty:
            pg.dirty = True
            c["dirtyings"] += 1
        # 8-10. Sec. III: "이후 CLOCK-HBM은 해당 페이지가 비휘발성 메모리 버퍼 안에 존재하고 참조 비트가 설정되어
        # 있으며, 그에 해당하는 페이지가 쓰기 연산인 경우 DRAM 버퍼로 이주한다." -- "then, if the page is in NVM, its
        # reference bit is set and the operation is a write, it migrates to DRAM." Sec. I: "비휘발성 메모리 버퍼에서
        # 빈번하게 쓰기 연산이 발생하는 페이지들을 DRAM 버퍼로 이주" -- "pages *frequently* written in NVM migrate
        # to DRAM". Line 7 sets the bit first, which would move every written NVM page and make line 8's test
        # empty; default "before": the bit as it was before this access (accessed earlier in this cycle).
        referenced = before if promote_test == "before" else pg.ref
        if not (nvm_to_dram and referenced):
            c["writes_nvm"] += 1
            continue
        # MigrateToDRAMBuffer(d-clock, n-clock, p): a DRAM victim chosen as for a miss takes p's NVM frame
        f = pg.frame
        nvm.take(f)
        if not dram.full():
            dframe = dram.free_frame()
        else:
            dframe, v = take_dram_victim()
            to_nvm(v, i, frame=f)
            c["promote_swaps"] += 1
        pg.level = promote_level
        pg.wcount = 1 if own_write_counts else 0  # (a) as for a write miss
        pg.ref = migrated_referenced if not dram_ref_bit else insert_referenced
        pg.rbit = False
        dram.put(pg, dframe, DRAM)
        rows.insert(mark if incoming_first else len(rows), (i, MIGRATION_OP[DRAM], MIGRATION, p, 1, DRAM))
        c["migrations_nvm_dram"] += 1
        c["writes_dram" if promote_write_tier == "dram" else "writes_nvm"] += 1

    _finish(c, rows, dram, nvm, flush_at_end)
    return outcome, rows, c


def _finish(c, rows, dram, nvm, flush_at_end):
    """End of trace. With ``flush_at_end`` the dirty pages are written, NVM first and then DRAM, each in the order
    its hand would meet them (from the hand on). The paper has no end flush; this order is the package's
    (seen on the log), not a reading. ``ref`` is -1, as the contract's IOLog says for the end of the trace."""
    c["resident_dram"] = dram.used
    c["resident_nvm"] = nvm.used
    c["resident_at_end"] = dram.used + nvm.used
    for clock, tier, name in ((nvm, NVM, "writebacks_nvm"), (dram, DRAM, "writebacks_dram")):
        for k in range(clock.n):
            pg = clock.frames[(clock.hand + k) % clock.n]
            if pg is not None and pg.dirty:
                if flush_at_end:
                    rows.append((-1, WRITE, END_FLUSH, pg.page, 1, tier))
                    c["device_writes_end_flush"] += 1
                    c["device_write_requests"] += 1
                    c[name] += 1
                else:
                    c["dirty_at_end"] += 1


# ------------------------------------------------------------------------------------------------ CLOCK-DNV

def clock_dnv(refs, dram_pages: int, nvm_pages: int, *, flush_at_end: bool = False, block_pages: int = 64,
              padding: str = "buffer", clean_to_free_nvm: bool = False, write_miss_read: bool = False,
              cache_reads: bool = True, insert_referenced: bool = True, migrated_referenced: bool = False,
              incoming_first: bool = False, pad_order: str = "page", nvm_free: str = "lowest"):
    """CLOCK-DNV as paper 3 describes it (Sec. II.2, last paragraph; Sec. I):

    "CLOCK-DNV는 참조 비트와 더티 비트로 모든 페이지들을 구분하고, 하이브리드 버퍼의 특성을 고려하여 DRAM 버퍼와
    비휘발성 메모리 버퍼를 각기 다른 CLOCK으로 설계했다. CLOCK-DNV에서 DRAM 버퍼 정책은 스와핑 연산이 발생하고 DRAM
    버퍼에 여유 공간이 부족할 경우 더티 비트가 설정된 페이지들을 비휘발성 메모리 버퍼로 이주한 후, 새로운 페이지를
    할당한다. 또한 CLOCK-DNV는 기존의 BPLRU에서 블록 패딩 정책을 비휘발성 메모리 버퍼 정책에 적용하되, 하이브리드 버퍼에
    한해서 수행했다. 하지만 CLOCK-DNV는 DRAM 버퍼의 여유 공간을 확보하는 과정에서 더티 비트가 설정되지 않은 페이지들을
    폐기하기 때문에, 그로 인해 많은 스와핑 연산이 발생하는 단점이 있다."
    -- "CLOCK-DNV tells all pages apart by a reference bit and a dirty bit, and runs the DRAM buffer and the NVM
    buffer as two CLOCKs. Its DRAM policy, when a swap happens and DRAM lacks free space, migrates pages whose
    dirty bit is set to NVM and then allocates the new page. It applies BPLRU's block padding to the NVM policy,
    but only within the hybrid buffer. But since it discards pages whose dirty bit is not set while making room
    in DRAM, many swaps follow."  Sec. I: "한 번 DRAM 버퍼에서 비휘발성 메모리 버퍼로 이주한 페이지들을 재차 DRAM
    버퍼로 이주하는 정책이 존재하지 않기" -- "it has no policy to move a page back from NVM to DRAM".

    Open points and switches (defaults first):
      cache_reads True (d): the text has clean pages in DRAM ("discards pages whose dirty bit is not set ...
        many swaps follow": discarded clean pages are asked for again), and Fig. 6 counts buffer reads for it,
        so read misses are cached although its name says "write buffer"; False: a read miss reads the page
        and does not allocate it (hits are still served).
      clean_to_free_nvm False: a clean DRAM victim is discarded, as the text says, even with NVM room.
      padding "buffer": an NVM victim takes its NVM block-mates with it (dirty ones written) and the dirty DRAM
        block-mates are written back and stay, clean ("block padding ... only within the hybrid buffer": no
        flash reads, the block's pages present in the buffer are written with it); "nvm": NVM block-mates only;
        "none"; "buffer_evict": the DRAM block-mates leave the buffer too (BPLRU evicts the whole block).
      insert_referenced True: a page brought in by an access has its reference bit set (Sec. II.2, CLOCK:
        "페이지들의 접근한 정보를 알리는 참조 비트" -- "a reference bit that tells the page was accessed").
      migrated_referenced False: a page moved into NVM arrives unreferenced (a move is not an access).
      write_miss_read False.
      pad_order "page": the written pages of a padded block in page order (a block written as one);
        "victim_first": the victim, then the rest of its block in page order, either tier (the package's log
        order).
      incoming_first False: as for CLOCK-HBM (the log order within a reference).
    """
    assert dram_pages >= 1 and nvm_pages >= 1
    assert padding in ("buffer", "nvm", "none", "buffer_evict") and pad_order in ("page", "victim_first")
    c = dict.fromkeys(DNV_COUNTERS, 0)
    rows = []
    outcome = []
    where: dict[int, _Page] = {}
    dram, nvm = _Clock(dram_pages), _Clock(nvm_pages, nvm_free)

    def hand_victim(clock):
        """Plain CLOCK: a referenced page loses its bit and is passed; the first unreferenced one is taken."""
        while True:
            j = clock.hand
            pg = clock.frames[j]
            clock.hand = (j + 1) % clock.n
            if pg.ref:
                pg.ref = False
                continue
            return j

    def writeback(i, pg, tier, cause=EVICTION):
        rows.append((i, WRITE, cause, pg.page, 1, tier))
        c["device_writes_eviction"] += 1
        c["device_write_requests"] += 1
        c["writebacks_nvm" if tier == NVM else "writebacks_dram"] += 1

    def nvm_frame(i):
        """A frame for a page moving into NVM: a free one, else the NVM hand's victim's (with block padding)."""
        if not nvm.full():
            return nvm.free_frame()
        j = nvm_victim_frame = hand_victim(nvm)
        e = nvm.take(j)
        del where[e.page]
        c["block_evictions"] += 1
        c["evictions"] += 1
        out_nvm = [e]
        out_dram = []
        if padding != "none":
            b = e.page // block_pages
            mates = sorted((pg for pg in nvm.frames if pg is not None and pg.page // block_pages == b),
                           key=lambda q: q.page)  # the block's pages, in page order
            for pg in mates:
                nvm.take(pg.frame)
                del where[pg.page]
                out_nvm.append(pg)
                c["padded_nvm_pages"] += 1
                c["evictions"] += 1
            if padding in ("buffer", "buffer_evict"):
                for k, pg in enumerate(dram.frames):
                    if pg is not None and pg.page // block_pages == b:
                        if pg.dirty:
                            out_dram.append(pg)
                            c["padded_dram_pages"] += 1
                        if padding == "buffer_evict":
                            dram.take(k)
                            del where[pg.page]
                            c["evictions"] += 1
        # the written pages: dirty NVM pages that leave, dirty DRAM block-mates (written back, kept clean)
        out = [(pg, NVM) for pg in out_nvm if pg.dirty] + [(pg, DRAM) for pg in out_dram]
        if pad_order == "page":  # the block's pages in page order, as a block is written
            out.sort(key=lambda t: t[0].page)
        else:  # "victim_first": the victim, then the rest of its block in page order (either tier)
            head = out[:1] if e.dirty else []
            out = head + sorted(out[len(head):], key=lambda t: t[0].page)
        for pg, tier in out:
            writeback(i, pg, tier)
            if tier == DRAM:
                pg.dirty = False
        return nvm_victim_frame

    for i, (p, w) in enumerate(refs):
        mark = len(rows)
        c["references"] += 1
        c["write_references"] += w
        pg = where.get(p)
        if pg is not None:
            outcome.append(1)
            c["hits"] += 1
            c["write_hits"] += w
            pg.ref = True
            if pg.tier == DRAM:
                c["hits_dram"] += 1
                c["writes_dram"] += w
            else:
                c["hits_nvm"] += 1
                c["writes_nvm"] += w
                c["write_hits_nvm"] += w
            if w and not pg.dirty:
                pg.dirty = True
                c["dirtyings"] += 1
            continue
        outcome.append(0)
        if not w and not cache_reads:
            rows.append((i, READ, DEMAND, p, 1, DRAM))
            c["device_reads"] += 1
            c["device_read_requests"] += 1
            continue
        if not dram.full():
            frame = dram.free_frame()
        else:
            frame = hand_victim(dram)
            v = dram.take(frame)
            del where[v.page]
            if v.dirty or (clean_to_free_nvm and not nvm.full()):
                # "더티 비트가 설정된 페이지들을 비휘발성 메모리 버퍼로 이주한 후, 새로운 페이지를 할당한다"
                j = nvm_frame(i)
                v.ref = migrated_referenced
                nvm.put(v, j, NVM)
                where[v.page] = v
                rows.append((i, MIGRATION_OP[NVM], MIGRATION, v.page, 1, NVM))
                c["migrations_dram_nvm"] += 1
            else:
                # "더티 비트가 설정되지 않은 페이지들을 폐기" -- clean pages are discarded
                c["clean_drops"] += 1
                c["evictions"] += 1
        pg = _Page(p)
        pg.ref = insert_referenced
        dram.put(pg, frame, DRAM)
        where[p] = pg
        if not w or write_miss_read:
            rows.insert(mark if incoming_first else len(rows), (i, READ, DEMAND, p, 1, DRAM))
            c["device_reads"] += 1
            c["device_read_requests"] += 1
            c["fills_dram"] += 1
        if w:
            pg.dirty = True
            c["writes_dram"] += 1
            c["dirtyings"] += 1

    _finish(c, rows, dram, nvm, flush_at_end)
    return outcome, rows, c


# The open points of the text, with the default reading (see the comments above for the quotes). Each key is
# the reference's keyword switch (or, where no switch exists, a description of the fixed reading).
OPEN_POINTS = {
    "clock_hbm": {
        "rotation": ("page", "one cycle per page, hand pass to hand pass; 'sweep': all pages when the hand wraps "
                             "(the leaving victim is not evaluated) (Sec. III 'CLOCK이 한 사이클이 회전하는 동안')"),
        "read_level/write_level": ((1, 2), "starting levels of a read / write miss (Fig. 3 is not in the text)"),
        "promote_level": (2, "level of a page moved up from NVM by a write (not stated; a written page's level)"),
        "levels": (True, "Table 2's levels decide the DRAM victim"),
        "nvm_classes": ("respectively", "level 1 -> migration candidate, level 2 -> eviction candidate (word order)"),
        "NVM reclassification (fixed)": ("reads", "at the hand a page read in the cycle becomes a migration "
                                                  "candidate, one not read an eviction candidate"),
        "nvm_spare": ("any", "a written (unread) eviction candidate is spared once; 'read': only reads spare"),
        "promote_test": ("before", "line 8 tests the reference bit as it was before line 7 set it"),
        "nvm_to_dram": (True, "lines 8-10 are applied"),
        "dram_ref_bit": (False, "DRAM victims by level alone (Sec. III)"),
        "insert_referenced": (True, "with dram_ref_bit: a page entering DRAM by an access is referenced"),
        "write_miss_read": (False, "a write miss reads nothing"),
        "own_write_counts (a)": (True, "the write miss's write is one of its first cycle's writes (line 7)"),
        "level_update (b)": ("before_test", "Table 2 applied to the finished cycle, then the level tested"),
        "migrated_referenced (c)": (False, "a migrated page arrives unreferenced"),
        "promote_write_tier": ("dram", "the write that promotes a page lands in DRAM (counted in writes_dram)"),
        "swap position (fixed)": ("frame", "on a promotion the DRAM victim takes the promoted page's NVM frame"),
        "incoming_first": (False, "log order: Algorithm 1's (victim's moves, line 3, before the allocation, line 5)"),
        "swap (fixed, see swaps())": ("miss", "a swap is a buffer miss, read or write, counted once"),
    },
    "clock_dnv": {
        "cache_reads (d)": (True, "read misses are cached (clean pages are discarded: they exist)"),
        "clean_to_free_nvm": (False, "clean DRAM victims are discarded, even with NVM room"),
        "padding": ("buffer", "NVM block-mates evicted, dirty DRAM block-mates written back and kept"),
        "insert_referenced": (True, "a new page enters with its reference bit set"),
        "migrated_referenced (c)": (False, "a migrated page arrives unreferenced"),
        "write_miss_read": (False, "a write miss reads nothing"),
        "nvm_free": ("lowest", "a page moving into NVM takes the lowest free frame ('lifo': the last freed)"),
        "pad_order": ("page", "a padded block's writes in page order ('victim_first': the victim first)"),
        "incoming_first": (False, "log order as for CLOCK-HBM"),
    },
}
