"""Clean-room reference for paper 2 (Baek 2011, "A prefetching and memory management policy for personal SSDs").

Written from the paper's text alone (sections 4.1, 4.2 and 5), plain Python, slow on purpose. It takes whole
requests (a read or write of consecutive pages), as the paper's RAID driver does, and returns

* ``outcome``: per page reference 0 miss, 1 cache hit, 2 prefetch hit;
* ``io``: device I/O in issue order, rows ``(reference index, op 0 read / 1 write, cause, first page, pages)``
  with the contract's cause codes (0 demand, 1 eviction, 2 end_flush, 3 prefetch);
* ``counters``: the contract's counter names.

Policies (the names of the package under test):

* ``seg_lru``       the "existing" scheme: segment lists without prefetch (see OPEN POINT E1; partly inferred);
* ``seg_prefetch``  segment prefetch (4.1) with a single segment LRU and no culling;
* ``seg_cull_fixed`` segment prefetch + culling with L1 fixed at half the memory (Fig. 8 "고정 캐시 솎기");
* ``seg_cull_adaptive`` segment prefetch + adaptive cache culling (4.2).

Every reading the text leaves open is marked ``OPEN POINT`` below, with the paper's sentence (Korean) and a
translation; the default is the reading the text supports best, the keyword switches select the others:

  R0  requests: a request's own blocks are demanded (misses), never prefetch hits of its own segment read
  R1  read_span        "segment" | "absent_span" | "absent_runs"   what a prefetching read sends
  R2  merge_segments   False | True                                one read per segment, or merged
  R3  l2_miss          "to_l1" | "stay_l2"                         a read miss in a segment held in L2
  W1  write_enters     "l1" | "l2"                                 (brief b) a write to a segment not in memory
  W2  write_prefetch   False | True                                (brief b) whether a write miss prefetches
  W3  writeback        "runs" | "pages" | "span"                   write-back rows of an evicted segment
  C1  evict_order      "evict_first" | "cull_first"                (brief c) LRU2 eviction before/after culling
  C2  cull_count       "down_to_n1" | "one"                        culls per insertion
  C3  l2_empty         "cull_l1" | "evict_l1"                      memory short while L2 is empty
  --  cull_when        "always" | "memory_short"                   the package's parameter; the text: "always"
  A1  window_round     "floor" | "round" | "ceil"                  B1/B2 size from "about 5%"
  A2  require_full_windows  False | True                           (brief a) update while a window is not full
  A3  hit_unit         "block" | "request"                         (brief d) hits counted per block or request
  A3b update_at        "hit" | "segment"                           update at the 3rd hit, or after the step
  A4  carry            True | False                                (brief d) hits past the 3 at a step's end
  A5  dp_counts        "prefetch" | "all"                          what ΔP counts in B1
  A6  count_writes     True | False                                whether write hits feed the adaptation
  A7  empty_b2         "skip" | "no_dc"                            α undefined (no cached block in B2)
  A8  n1_floor         "window" | "zero"                           N1's lower bound (the package's parameter)
  A9  n1_cap           "none" | "memory"                           N1's upper bound
  A10 n1_init          "half" | "window"                           N1's first value
  E1  seg_lru          (the "existing" scheme, only partly described; see the report)
  --  end_flush / end_flush_order / end_ref                        not in the paper (see ``_finish``)

``PACKAGE_READING`` holds the switch settings that reproduce the package (found by comparison only).

The paper's terms (4.2):
  "캐싱된 블록이란 요청에 의해서 읽혀지거나 메모리 히트가 발생한 블록이다. 선반입된 블록은 요청되지 않고
   선반입에 의해서 읽혀진 블록들이다. 선반입된 블록에 요청이 발생하는 사건을 선반입 히트라고 한다.
   선반입 히트가 발생하면 선반입된 블록은 캐싱된 블록으로 속성이 바뀌다."
  (A cached block is one read by a request or that had a memory hit. Prefetched blocks are blocks read by a
   prefetch without being requested. A request to a prefetched block is a prefetch hit; on a prefetch hit the
   prefetched block becomes a cached block.)
"""

from __future__ import annotations

import math
from collections import OrderedDict

DEMAND, EVICTION, END_FLUSH, PREFETCH = 0, 1, 2, 3
READ, WRITE = 0, 1
CACHED, PREFETCHED = "c", "p"

POLICIES = ("seg_lru", "seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive")

# The package's readings where they differ from the defaults, inferred from its behaviour (never from its code):
# with these, outcomes, I/O rows and counters agree with flashrepro on every trace tried (see the tests).
PACKAGE_READING = {
    "write_enters": "l2",        # W1
    "count_writes": False,       # A6: only read hits feed B1/B2 (its counters say "read hits")
    "update_at": "segment",      # A3b: hits added per request step in a segment, then at most one update ...
    "carry": False,              # A4: ... and hits past the threshold dropped
    "n1_cap": "memory",          # A9: N1 <= M / k
    "window_round": "round",     # A1: round(f * M / k), halves to even
    "end_flush": "lists", "end_flush_order": "l2_first", "end_ref": "last",  # end flush (not in the paper)
}

COUNTERS = ("references", "hits", "write_references", "write_hits", "device_reads", "device_read_requests",
            "device_writes_eviction", "device_writes_end_flush", "device_write_requests", "dirtyings",
            "dirty_at_end", "evictions", "resident_at_end", "prefetch_hits", "prefetched_pages", "culled_pages",
            "prefetch_evicted", "list_operations", "n1_updates", "n1_skipped", "hits_b1", "hits_b2", "hits_l1",
            "hits_l2")


def requests_from_trace(trace, page_bytes: int = 4096):
    """The trace's reads and writes as ``(op, [pages])`` requests, through the public page expansion."""
    refs = trace.to_pages(page_bytes)
    out = []
    prev = None
    for page, is_write, req in zip(refs.page.tolist(), refs.is_write.tolist(), refs.req.tolist(), strict=True):
        if req != prev:
            out.append((WRITE if is_write else READ, []))
            prev = req
        out[-1][1].append(page)
    return out


def _runs(offsets):
    """Sorted offsets -> list of (first, length) runs of consecutive offsets."""
    runs = []
    for o in sorted(offsets):
        if runs and runs[-1][0] + runs[-1][1] == o:
            runs[-1][1] += 1
        else:
            runs.append([o, 1])
    return [tuple(r) for r in runs]


class SegmentCache:
    """The state and rules; ``run`` feeds it requests. See the module docstring and the OPEN POINTs."""

    def __init__(self, policy: str, capacity_pages: int, *, segment_kib: int = 32, page_bytes: int = 4096,
                 flush_at_end: bool = False,
                 # --- OPEN POINT R1: what a prefetching read of a segment sends to the device --------------
                 read_span: str = "segment", lru_read: str = "runs",
                 # --- OPEN POINT R2: one device read per segment, or contiguous segments merged -----------
                 merge_segments: bool = False,
                 # --- OPEN POINT R3: a read miss in a segment held in L2 -----------------------------------
                 l2_miss: str = "to_l1",
                 # --- OPEN POINT W1/W2 (brief b): writes ---------------------------------------------------
                 write_enters: str = "l1", write_prefetch: bool = False,
                 # --- OPEN POINT W3: write-back of an evicted segment's dirty blocks -----------------------
                 writeback: str = "runs",
                 # --- end flush (not in the paper; see _finish) --------------------------------------------
                 end_flush: str = "address", end_flush_order: str = "l1_first", end_ref: str = "none",
                 # --- OPEN POINT C1 (brief c): evict for the new segment before or after its culling -------
                 evict_order: str = "evict_first",
                 # --- OPEN POINT C2: cull down to N1, or one segment per insertion -------------------------
                 cull_count: str = "down_to_n1",
                 # --- package's cull_when (its docstring); the text says "always" --------------------------
                 cull_when: str = "always",
                 # --- OPEN POINT C3: memory short while L2 is empty ----------------------------------------
                 l2_empty: str = "cull_l1",
                 # --- adaptive (4.2) -----------------------------------------------------------------------
                 step: float = 1.0, window_fraction: float = 0.05, update_every: int = 3,
                 window_round: str = "floor",          # OPEN POINT A1
                 require_full_windows: bool = False,   # OPEN POINT A2 (brief a)
                 hit_unit: str = "block",              # OPEN POINT A3 (brief d)
                 update_at: str = "hit",               # OPEN POINT A3b ("hit" | "segment" | "request")
                 carry: bool = True,                   # OPEN POINT A4 (brief d)
                 dp_counts: str = "prefetch",          # OPEN POINT A5
                 count_writes: bool = True,            # OPEN POINT A6
                 empty_b2: str = "skip",               # OPEN POINT A7
                 n1_floor: str = "window",             # OPEN POINT A8
                 n1_cap: str = "none",                 # OPEN POINT A9
                 n1_init: str = "half",                # OPEN POINT A10
                 ):
        if policy not in POLICIES:
            raise ValueError(policy)
        self.policy = policy
        self.M = int(capacity_pages)
        if (segment_kib * 1024) % page_bytes:
            raise ValueError("a segment must be a whole number of pages")
        self.k = segment_kib * 1024 // page_bytes
        if self.M < self.k:
            raise ValueError("the reference needs memory of at least one segment")
        self.flush_at_end = flush_at_end
        self.read_span, self.merge_segments, self.l2_miss = read_span, merge_segments, l2_miss
        self.lru_read = lru_read
        self.write_enters, self.write_prefetch, self.writeback = write_enters, write_prefetch, writeback
        self.end_flush, self.end_flush_order, self.end_ref = end_flush, end_flush_order, end_ref
        self.refs = 0
        self.evict_order, self.cull_count, self.cull_when, self.l2_empty = evict_order, cull_count, cull_when, l2_empty
        self.step, self.update_every = step, update_every
        self.require_full_windows, self.hit_unit, self.carry = require_full_windows, hit_unit, carry
        self.update_at = update_at
        self.dp_counts, self.count_writes, self.empty_b2 = dp_counts, count_writes, empty_b2
        self.n1_floor, self.n1_cap = n1_floor, n1_cap

        # OPEN POINT E1 -- the "existing" scheme (5): "'기존'은 주어진 레이드 드라이버에서 제안한 기법을 제거한
        # 것 외에는 '제안' 방식과 동일하게" (the same RAID driver with the proposed techniques removed), in which
        # "세그먼트가 메모리 관리 단위 및 최대 입출력 크기와 관련" (the segment is tied to the memory-management
        # unit and the largest I/O). Its replacement policy is not stated: taken as one segment LRU of demanded
        # blocks (no prefetch, no culling), reads split at segment boundaries; a miss reads each run of missing
        # requested blocks (switch lru_read="span": one read from the first to the last). Fig. 6 calls it
        # "리눅스 기본 설정" (Linux defaults), whose read-ahead above the driver is not modelled here.
        self.prefetch = policy != "seg_lru"
        self.cull = policy in ("seg_cull_fixed", "seg_cull_adaptive")
        self.adaptive = policy == "seg_cull_adaptive"

        # OPEN POINT A1 -- the window size. 4.2: "B1은 L1의 LRU위치에 있는 영역이며, 기설정된 개수의 세그먼트를
        # 가지고 있으며, 그 크기는 전체 메모리의 약 5% 정도로 설정한다. B2는 L2의 LRU 위치에 있는 영역이며, B1과
        # 동일한 개수의 세그먼트를 가진다." (B1 is the region at L1's LRU end, holds a preset number of segments,
        # its size set to about 5% of the whole memory; B2, at L2's LRU end, holds as many segments as B1.)
        # Default: the segments that fit in 5% of memory, floor(f * M / k), at least one. Switches: "round" (to
        # the nearest, halves to even: Python's round), "ceil".
        w = window_fraction * self.M / self.k
        w = {"floor": math.floor(w + 1e-9), "round": round(w), "ceil": math.ceil(w - 1e-9)}[window_round]
        self.W = max(1, int(w))

        # Fig. 8: "고정 캐시 솎기는 적응적 캐시 솎기의 L1 크기를 적응적으로 변화시키지 않고 전체 캐시 메모리의 절반으로
        # 고정한 방식이다." (Fixed culling is adaptive culling with L1 not adapted but fixed at half of the whole
        # cache memory.) L1 counts segments (4.2: "L1의 세그먼트 개수 N1"), so N1 = M / 2k (a real number: L1 is
        # culled while it holds more segments than N1).
        half = self.M / (2 * self.k)
        if policy == "seg_cull_fixed":
            self.N1 = half
        elif self.adaptive:
            # OPEN POINT A10 -- N1's initial value: not given. Default half the memory (the fixed scheme is "the
            # adaptive scheme with L1 fixed at half", so adaptation starts there). Switch "window": B1's size.
            self.N1 = half if n1_init == "half" else float(self.W)
            if n1_floor == "window":  # OPEN POINT A8: L1 keeps at least B1's W segments, from the start
                self.N1 = max(self.N1, float(self.W))
        else:
            self.N1 = math.inf  # seg_prefetch / seg_lru: a single list, never culled

        self.L1: OrderedDict[int, None] = OrderedDict()  # first = LRU end, last = MRU end
        self.L2: OrderedDict[int, None] = OrderedDict()
        self.blocks: dict[int, dict[int, str]] = {}  # segment -> {offset: CACHED / PREFETCHED}
        self.dirty: dict[int, set[int]] = {}
        self.used = 0
        self.c = dict.fromkeys(COUNTERS, 0)
        self.io: list[tuple[int, int, int, int, int]] = []
        self.outcome: list[int] = []
        self.b1_count = 0  # hits in B1 since the last update
        self.dP = 0
        self.dC = 0
        self.n1_trace: list[float] = []  # N1 after each update
        self.per_request: list[tuple] = []  # (references so far, N1, L1 segments, L2 segments) after each request

    # ----------------------------------------------------------------------------------------------- lists
    def _where(self, s):
        if s in self.L1:
            return self.L1
        if s in self.L2:
            return self.L2
        return None

    def _to_mru(self, lst, s):
        # list_operations counts every unlink and every link of a segment (a move is two): a bookkeeping
        # convention of the package's counter; the paper only measures the list overhead as time (Fig. 8)
        old = self._where(s)
        if old is not None:
            del old[s]
            self.c["list_operations"] += 1
        lst[s] = None
        self.c["list_operations"] += 1

    def _window(self, lst):
        """B1 / B2: the W segments at the list's LRU end.

        OPEN POINT A2 (brief a) -- a list shorter than W (warm-up, or L1 held small): B1 "은 L1의 LRU위치에 있는
        영역" (is the region at L1's LRU end), so the whole short list is the window and the update runs as soon as
        α is defined (default). Switch require_full_windows=True: no update (counted in n1_skipped) until both
        lists hold W segments."""
        out = []
        for s in lst:
            if len(out) == self.W:
                break
            out.append(s)
        return out

    # ------------------------------------------------------------------------------------- memory, culling
    def _write_rows(self, ref, s, offsets, cause):
        if not offsets:
            return
        if self.writeback == "runs":
            rows = _runs(offsets)
        elif self.writeback == "pages":
            rows = [(o, 1) for o in sorted(offsets)]
        else:  # "span": first dirty .. last dirty in one write
            lo, hi = min(offsets), max(offsets)
            rows = [(lo, hi - lo + 1)]
        for first, n in rows:
            self.io.append((ref, WRITE, cause, s * self.k + first, n))
            self.c["device_write_requests"] += 1

    def _evict(self, ref, s):
        """Evict the whole segment ``s`` (4.2: "필요한 메모리가 부족할 때에는 L2의 끝에(LRU2) 있는 세그먼트를
        퇴출시킨다" -- when memory is short, the segment at L2's end is evicted)."""
        del self._where(s)[s]
        self.c["list_operations"] += 1
        blocks = self.blocks.pop(s)
        dirty = self.dirty.pop(s, set())
        self._write_rows(ref, s, dirty, EVICTION)
        self.c["device_writes_eviction"] += len(dirty)
        self.c["evictions"] += len(blocks)
        self.c["prefetch_evicted"] += sum(1 for v in blocks.values() if v == PREFETCHED)
        self.used -= len(blocks)

    def _cull(self, s):
        """4.2: "L2에는 선반입된 블록이 존재 하지 않기 때문에, L1에서 L2로 이동하는 세그먼트에서 선반입된 블록들만을
        메모리에서 퇴출된다. 이 과정을 솎기라고 한다." (L2 holds no prefetched blocks, so of a segment moving from L1
        to L2 only its prefetched blocks are dropped from memory: culling.) It goes to MRU2."""
        blocks = self.blocks[s]
        gone = [o for o, v in blocks.items() if v == PREFETCHED]
        for o in gone:
            del blocks[o]
        self.used -= len(gone)
        self.c["culled_pages"] += len(gone)
        self._to_mru(self.L2, s)

    def _cull_l1(self, keep=None):
        """4.2: "L1의 크기는 제한을 갖기 때문에 새로 읽힌 새 세그먼트가 삽입되어 L1의 크기가 기설정된 크기를 초과하면,
        그 크기를 유지하기 위해 L1의 끝 (LRU1)에 있는 세그먼트를 L2의 앞 (MRU2)으로 이동시킨다." (L1's size is
        limited: when a newly read segment is inserted and L1 exceeds the preset size, the segment at L1's end is
        moved to the front of L2 to keep the size.)
        OPEN POINT C2 -- "to keep the size" needs as many culls as L1 is over N1 (default "down_to_n1"); the
        sentence names one segment (switch "one")."""
        if not self.cull:
            return
        while len(self.L1) > self.N1:
            victim = next(iter(self.L1))
            if victim == keep:
                break
            self._cull(victim)
            if self.cull_count == "one":
                break

    def _make_room(self, ref, need, loading, to_l1=True):
        """Free memory until ``need`` more blocks fit. ``loading`` (the segment being filled) is out of the lists.
        OPEN POINT C3 -- memory short while L2 is empty. The text evicts only at LRU2 ("필요한 메모리가 부족할
        때에는 L2의 끝에(LRU2) 있는 세그먼트를 퇴출시킨다") and a segment leaves L1 only by culling into L2
        ("L1의 끝에(LRU1)있는 세그먼트를 L2로 이동시키면서 그 세그먼트의 선반입된 블록들을 퇴출한다"). Default
        "cull_l1": L1's LRU segment is culled into L2 and, if memory is still short, evicted from there (I first
        chose "evict_l1", evicting it whole with its prefetched blocks, a rule the text does not have; changed
        after the comparison, see the report). seg_prefetch / seg_lru (one list) evict its LRU segment whole."""
        while self.used + need > self.M:
            # the package's cull_when="memory_short": L1 is cut back to N1 (the loading segment counted when it
            # goes to L1) only when a block needs room
            if self.cull and self.cull_when == "memory_short" and len(self.L1) + to_l1 > self.N1 \
                    and self.L1:
                self._cull(next(iter(self.L1)))
                continue
            if self.L2:
                self._evict(ref, next(iter(self.L2)))
            elif self.L1:
                victim = next(iter(self.L1))
                if self.cull and self.l2_empty == "cull_l1":
                    self._cull(victim)  # into L2 (its prefetched blocks dropped); evicted next if still short
                else:
                    self._evict(ref, victim)
            else:
                raise AssertionError("nothing to evict")

    # --------------------------------------------------------------------------------------------- adaptive
    def _update(self):
        """4.2: "N1 <- N1 + S(ΔP - αΔC) 단, S는 되먹임의 속도를 조절하는 상수이고, α는 "B1에 있는 모든 블록의 수"를
        "B2의 캐싱된 블록의 수"로 나눈 값이다." (S a constant setting the feedback speed, α = all blocks in B1 /
        cached blocks in B2.)"""
        full = len(self.L1) >= self.W and len(self.L2) >= self.W
        b1 = self._window(self.L1)
        b2 = self._window(self.L2)
        blocks_b1 = sum(len(self.blocks[s]) for s in b1)
        cached_b2 = sum(1 for s in b2 for v in self.blocks[s].values() if v == CACHED)
        dP, dC = self.dP, self.dC
        self.dP = self.dC = 0
        if self.require_full_windows and not full:
            # OPEN POINT A2 (brief a), the other reading: no update until both windows are full
            self.c["n1_skipped"] += 1
            return
        if cached_b2 == 0:
            # OPEN POINT A7 -- α is undefined when B2 holds no cached block. Default "skip": no update (the
            # period still ends). Switch "no_dc": the ΔC term is taken as 0 (N1 += S ΔP).
            if self.empty_b2 == "skip":
                self.c["n1_skipped"] += 1
                return
            a = 0.0
        else:
            a = blocks_b1 / cached_b2
        n1 = self.N1 + self.step * (dP - a * dC)
        # OPEN POINT A8 -- N1's lower bound is not given. Default "window": B1 "기설정된 개수의 세그먼트를 가지고"
        # (holds a preset number of segments), so L1 keeps at least B1's W segments; and the feedback, which runs
        # on hits in B1, must keep running "워크로드가 변함에 따라 N1이 적응적으로 변하게 된다" (N1 adapts as the
        # workload changes), which N1 = 0 (B1 empty forever) would stop. Switch "zero".
        floor = float(self.W) if self.n1_floor == "window" else 0.0
        n1 = max(n1, floor)
        # OPEN POINT A9 -- no upper bound is given. Default none; switch "memory": M / k segments.
        if self.n1_cap == "memory":
            n1 = min(n1, self.M / self.k)
        self.N1 = n1
        self.c["n1_updates"] += 1
        self.n1_trace.append(n1)

    def _count_b1(self, hits):
        """Add ``hits`` B1 hits toward the update threshold (OPEN POINTs A3, A3b, A4).

        OPEN POINT A3 (brief d) -- "세 개의 캐시 히트 또는 선반입 히트" counts hits, and a hit is a request to a
        block ("캐싱된 블록에 대한 요청을 캐시 히트라고 한다"): per block (default); switch hit_unit="request".
        OPEN POINT A3b -- when the count is checked: at each hit (default update_at="hit", so the update runs at
        exactly the third hit, inside a request if need be), or after each request step in a segment ("segment")
        or after the whole request ("request"), when several hits may arrive at once.
        OPEN POINT A4 (brief d) -- at a check that finds more than three: "세 개의 ... 발생할 때마다" (every time
        three occur): the extra hits count toward the next update (default carry=True; with "hit" checks there
        are never extra ones); switch carry=False drops them."""
        if hits <= 0:
            return
        self.b1_count += hits
        # 4.2: "실험에서는 구현의 간략화를 위하여 B1에 세 개의 캐시 히트 또는 선반입 히트가 발생할 때마다 위의
        # 되먹임 식을 수행하였다." (In the experiments, for simplicity, the feedback was run every time three cache
        # or prefetch hits occurred in B1.) ΔP and ΔC are what happened since the last update ("단위 시간").
        while self.b1_count >= self.update_every:
            self._update()
            self.b1_count = self.b1_count - self.update_every if self.carry else 0
            if not self.carry:
                break

    # ---------------------------------------------------------------------------------------------- requests
    def run(self, requests):
        ref = 0
        for op, pages in requests:
            self._request(op, pages, ref)
            ref += len(pages)
            self.refs = ref
            self.per_request.append((ref, self.N1, len(self.L1), len(self.L2)))
        self._finish()
        return self.outcome, self.io, self.c

    def _request(self, op, pages, ref0):
        k = self.k
        # group the request's pages by segment, in the request's (address) order
        groups: list[tuple[int, list[tuple[int, int]]]] = []
        for j, p in enumerate(pages):
            s, o = divmod(p, k)
            if not groups or groups[-1][0] != s:
                groups.append((s, []))
            groups[-1][1].append((o, ref0 + j))
        self.c["references"] += len(pages)
        if op == WRITE:
            self.c["write_references"] += len(pages)
        out = {}
        req_b1 = req_dp = req_dc = 0
        pending_reads = []  # for merge_segments: (ref, first page, pages)
        for s, members in groups:
            res = self._group(op, s, members, out, pending_reads)
            if self.adaptive:
                if self.hit_unit == "block" and self.update_at == "hit":
                    # default: the update runs at the very hit that makes three (4.2 "B1에 세 개의 캐시 히트 또는
                    # 선반입 히트가 발생할 때마다", whenever three hits occur in B1), even inside a request
                    for b1, dp, dc in res:
                        self.dP += dp
                        self.dC += dc
                        if b1:
                            self._count_b1(1)
                elif self.hit_unit == "block" and self.update_at == "segment":
                    # switch update_at="segment": the hits of the request's step in one segment are added at once,
                    # then the threshold is checked (A4 carry decides what happens to hits past it)
                    self.dP += sum(e[1] for e in res)
                    self.dC += sum(e[2] for e in res)
                    self._count_b1(sum(e[0] for e in res))
                else:  # per request: hit_unit="request", or update_at="request" (block hits, checked per request)
                    req_b1 += sum(e[0] for e in res)
                    req_dp += sum(e[1] for e in res)
                    req_dc += sum(e[2] for e in res)
        if self.merge_segments and pending_reads:
            self._flush_reads(pending_reads)
        if self.adaptive and self.hit_unit == "request":
            # OPEN POINT A3 (brief d), the other reading: a request counts once
            self.dP += int(req_dp > 0)
            self.dC += int(req_dc > 0)
            self._count_b1(int(req_b1 > 0))
        elif self.adaptive and self.update_at == "request":
            self.dP += req_dp
            self.dC += req_dc
            self._count_b1(req_b1)
        for j in range(len(pages)):
            o = out[ref0 + j]
            self.outcome.append(o)
            if o:
                self.c["hits"] += 1
                if op == WRITE:
                    self.c["write_hits"] += 1
            if o == 2:
                self.c["prefetch_hits"] += 1

    def _flush_reads(self, pending):
        # OPEN POINT R2 switch: contiguous segment reads of one request merged into one device read
        merged = []
        for ref, first, n, cause in pending:
            if merged and merged[-1][1] + merged[-1][2] == first:
                merged[-1][2] += n
            else:
                merged.append([ref, first, n, cause])
        for ref, first, n, cause in merged:
            self.io.append((ref, READ, cause, first, n))
            self.c["device_read_requests"] += 1
        pending.clear()

    def _read_rows(self, ref, s, offsets, pending, cause):
        """Device reads for blocks ``offsets`` of segment ``s``.
        OPEN POINT R1 -- what a prefetching read sends. Fig. 5: "네 개의 블록이 모여 하나의 세그먼트(선반입 단위)를
        형성하였다. 즉 항상 네 개의 블록에 대한 읽기 동작을 한다." (Four blocks form a segment, the prefetch unit:
        that is, a read always covers four blocks.) Default "segment": the whole aligned segment, even blocks that
        are already in memory (those keep their memory copy). Switches "absent_span" (first..last block not in
        memory, one read) and "absent_runs" (each run of blocks not in memory). seg_lru reads the runs of missing
        requested blocks ("span": first..last of them)."""
        k = self.k
        if self.prefetch:
            if self.read_span == "segment":
                rows = [(0, k)]
            elif self.read_span == "absent_span":
                rows = [(min(offsets), max(offsets) - min(offsets) + 1)]
            else:
                rows = _runs(offsets)
        else:
            rows = _runs(offsets) if self.lru_read == "runs" else [(min(offsets), max(offsets) - min(offsets) + 1)]
        for first, n in rows:
            self.c["device_reads"] += n
            if self.merge_segments:
                if pending and pending[-1][1] + pending[-1][2] != s * k + first:
                    self._flush_reads(pending)
                pending.append((ref, s * k + first, n, cause))
            else:
                self.io.append((ref, READ, cause, s * k + first, n))
                self.c["device_read_requests"] += 1

    def _group(self, op, s, members, out, pending):
        """One request's pages in one segment (a "step"). Returns the hit events for the adaptation.

        OPEN POINT R0 -- a request reading several blocks of a segment: the blocks it asks for are demanded (misses
        when absent), the others of the segment prefetched. Prefetched blocks are "요청되지 않고 선반입에 의해서
        읽혀진 블록들" (blocks read by the prefetch, not requested), so a request's own blocks never become prefetch
        hits of its own segment read. A request spanning segments is handled one segment at a time, in address
        order: the segment is the prefetch unit and the largest I/O of the driver (5: "세그먼트가 메모리 관리 단위
        및 최대 입출력 크기와 관련"); OPEN POINT R2 switch merge_segments joins contiguous segment reads."""
        k = self.k
        lst = self._where(s)
        blocks = self.blocks.get(s, {})
        # where the segment was when the request came (B1 / B2 membership), before anything moves
        pos = list(lst).index(s) if lst is not None else None
        in_b1 = lst is self.L1 and pos < self.W
        in_b2 = lst is self.L2 and pos < self.W
        ref = members[0][1]
        requested = {o for o, _ in members}
        outs = []
        for o, r in members:
            v = blocks.get(o)
            out[r] = 0 if v is None else (1 if v == CACHED else 2)
            outs.append(out[r])
        absent_req = [o for o, _ in members if o not in blocks]

        if op == READ and absent_req:
            # 4.1: "어떤 섹터를 읽으면, 그 섹터가 속해있는 세그먼트의 나머지 섹터들도 포함하여 읽는다." (When a sector
            # is read, the other sectors of the segment it belongs to are read with it.) A read that misses reads
            # the segment; seg_lru (no prefetch) reads only the missing requested blocks.
            # OPEN POINT R3 -- a read miss in a segment held in L2 (L2 "에는 캐싱된 블록만 존재할 수 있다", holds
            # only cached blocks): default the segment is read like any other and, "저장장치로부터 최근에 읽은
            # 세그먼트는 L1의 앞(MRU1)에 삽입된다" (a segment just read from the device goes to L1's front), moves
            # to MRU1 with its refilled blocks prefetched. Switch "stay_l2": only the missing requested blocks are
            # read and the segment goes to MRU2.
            stay = lst is self.L2 and self.l2_miss == "stay_l2"
            prefetch_here = self.prefetch and not stay
            fill = [o for o in range(k) if o not in blocks] if prefetch_here else absent_req
            self._place(ref, s, lst, fill, fill, requested, self.L2 if stay else self.L1, pending, prefetch_here)
        elif op == WRITE and absent_req and self.write_prefetch and self.prefetch:
            # OPEN POINT W2 switch (brief b): a write miss reads the rest of its segment, like a read
            fill = [o for o in range(k) if o not in blocks]
            device = [o for o in fill if o not in requested]
            self._place(ref, s, lst, fill, device, requested, self.L1, pending, True)
        elif op == WRITE and lst is None:
            # OPEN POINT W1 (brief b) -- where a write to a segment not in memory enters. The text describes reads
            # only: "저장장치로부터 최근에 읽은 세그먼트는 L1의 앞(MRU1)에 삽입된다" (a segment just read from the
            # device goes to MRU1), and L2 is filled from L1 only, by culling. Default "l1": a segment enters at
            # MRU1, whatever brought it; switch "l2": L2 "에는 캐싱된 블록만 존재할 수 있다" (holds only cached
            # blocks), and a write brings only cached blocks.
            # OPEN POINT W2 (brief b) -- writes do not prefetch (default): 4.1 prefetches "어떤 섹터를 읽으면"
            # (when a sector is READ); a write miss allocates its blocks without a device read.
            target = self.L2 if (self.cull and self.write_enters == "l2") else self.L1
            self._place(ref, s, lst, absent_req, [], requested, target, pending)
        elif op == WRITE:
            # a write to a segment in memory: its missing blocks are allocated, the segment goes to the MRU end
            # of its list, as for a hit
            self._place(ref, s, lst, absent_req, [], requested, lst, pending)
        else:
            # every requested block is in memory: 4.2 "L1에서 캐시 히트 또는 선반입 히트가 발생하면 그 히트된
            # 세그먼트는 L1의 MRU1로 이동한다 ... L2에서 캐시 히트된 세그먼트는 L2의 앞으로(MRU2) 이동한다." (A
            # segment with a cache or prefetch hit in L1 moves to MRU1; one with a cache hit in L2 moves to MRU2.)
            self._to_mru(lst, s)

        # every requested block is now a cached block (a prefetch hit turns it cached; a write makes it dirty)
        blocks = self.blocks[s]
        for o in requested:
            blocks[o] = CACHED
        if op == WRITE:
            d = self.dirty.setdefault(s, set())
            for o in requested:
                if o not in d:
                    d.add(o)
                    self.c["dirtyings"] += 1

        nh = sum(1 for x in outs if x)
        if lst is self.L1:
            self.c["hits_l1"] += nh
        elif lst is self.L2:
            self.c["hits_l2"] += nh
        if not self.adaptive or (op == WRITE and not self.count_writes):
            return []
        # OPEN POINT A5 -- ΔP: 4.2 "L1을 증가시켜서 얻는 선반입 히트율의 여분의 사용률은 단위 시간에 B1에서 발생한
        # 선반입 히트율이고, 이것을 ΔP이라고 하자. L2가 커져서 얻는 여분의 이득은 단위 시간에 B2에서 발생한 캐시
        # 히트율이다. 이것을 ΔC라고 하자." (The marginal utility of growing L1 is the prefetch-hit rate in B1 per
        # unit time, ΔP; that of growing L2 the cache-hit rate in B2 per unit time, ΔC.) Default ΔP = prefetch hits
        # in B1 (switch dp_counts="all": every hit in B1), while the update clock counts "세 개의 캐시 히트 또는
        # 선반입 히트" (three cache hits or prefetch hits) in B1.
        # OPEN POINT A6 -- writes: a hit is "캐싱된 블록에 대한 요청" (a request to a cached block), reads and
        # writes alike (default count_writes=True; switch False: reads only).
        events = []  # per hit block, in order: (in B1, counts toward ΔP, counts toward ΔC)
        for x in outs:
            if x:
                dp = in_b1 and (x == 2 or self.dp_counts == "all")
                dc = in_b2 and x == 1
                events.append((int(in_b1), int(dp), int(dc)))
                self.c["hits_b1"] += int(in_b1)
                self.c["hits_b2"] += int(dc)
        return events

    def _place(self, ref, s, lst, fill, device, requested, target, pending, prefetching=False):
        """Bring blocks ``fill`` of segment ``s`` into memory (``device`` of them read from the device; the
        unrequested ones become prefetched blocks) and put the segment at the MRU end of ``target``."""
        if lst is not None:
            del lst[s]
            self.c["list_operations"] += 1
        # culling follows "새로 읽힌 새 세그먼트가 삽입되어" (the insertion of a newly read segment) into L1
        culls = self.cull and target is self.L1 and (lst is not self.L1 or bool(device))
        if culls and self.evict_order == "cull_first":
            # OPEN POINT C1 (brief c), the other reading: the new segment's insertion culls L1 first, and the
            # memory those culls free is used before anything is evicted from L2
            self.L1[s] = None
            self._cull_l1(keep=s)
            del self.L1[s]
        if fill:
            self._make_room(ref, len(fill), s, target is self.L1)
        if device:
            # cause code: a segment read of a prefetching policy is logged as "prefetch" (even when the request
            # asked for all of it), a read of requested blocks only as "demand" (the package's convention; the
            # paper has no cause codes)
            self._read_rows(ref, s, device, pending, PREFETCH if prefetching else DEMAND)
        blocks = self.blocks.setdefault(s, {})
        for o in fill:
            blocks[o] = CACHED if o in requested else PREFETCHED
            if o not in requested:
                self.c["prefetched_pages"] += 1
        self.used += len(fill)
        # OPEN POINT C1 (brief c) -- default "evict_first": memory for the segment is found (LRU2 evicted) before
        # it is read, and "새로 읽힌 새 세그먼트가 삽입되어 L1의 크기가 기설정된 크기를 초과하면" (when the newly
        # read segment is inserted and L1 exceeds its size) the culling follows the insertion.
        target[s] = None
        self.c["list_operations"] += 1
        if culls and self.cull_when == "always":
            self._cull_l1()

    def _finish(self):
        ndirty = sum(len(d) for d in self.dirty.values())
        if self.flush_at_end:
            # Not in the paper (its runs never flush at the end). The contract: an I/O the end of the trace
            # triggered has ref -1. Default: segments in address order, each segment's dirty blocks in runs, as
            # an eviction writes them. Switch end_flush="lists": segments from L1's LRU end to its MRU end, then
            # L2's (``end_flush_order="l2_first"``: L2 first), one write per block; end_ref="last": the rows
            # carry the index of the last reference.
            ref = -1 if self.end_ref == "none" else self.refs - 1
            if self.end_flush == "address":
                for s in sorted(self.dirty):
                    self._write_rows(ref, s, self.dirty[s], END_FLUSH)
            else:
                lists = (self.L2, self.L1) if self.end_flush_order == "l2_first" else (self.L1, self.L2)
                for lst in lists:
                    for s in lst:
                        for o in sorted(self.dirty.get(s, ())):
                            self.io.append((ref, WRITE, END_FLUSH, s * self.k + o, 1))
                            self.c["device_write_requests"] += 1
            self.c["device_writes_end_flush"] = ndirty
        else:
            self.c["dirty_at_end"] = ndirty
        self.c["resident_at_end"] = self.used


def simulate(requests, policy: str, capacity_pages: int, **kw):
    """Run the reference; returns (outcome list, io rows, counters dict, the cache object)."""
    cache = SegmentCache(policy, capacity_pages, **kw)
    outcome, io, counters = cache.run(requests)
    return outcome, io, counters, cache
