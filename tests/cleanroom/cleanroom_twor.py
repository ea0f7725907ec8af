"""Clean-room reference of paper 4's FTL garbage collectors: greedy, 2R and 2R++ (plain Python, slow).

Written from the paper's text alone (/work/shared/papers/003_94369164feaa94a7.txt, "2R++: separating warm
pages in OLTP-aware FTL GC, a FEMU study") and, where the paper defers to its platform, from FEMU's
blackbox SSD ("실험은 FEMU 환경에서 제공하는 Blackbox SSD의 FTL을 수정하여 진행되었으며" (§4.1) = "the
experiments were run by modifying the FTL of the Blackbox SSD FEMU provides"; FEMU hw/femu/bbssd/ftl.c).
No code of flashrepro.ftl was read.

The device: ``n_lines`` erase units ("lines", §4.1: "FEMU는 ... 라인 단위로 지우기가 발생한다" = FEMU
erases by line) of ``pages_per_line`` pages, page-mapped over ``logical_pages`` logical pages. Each line
has a kind (the paper's 2 bits, §3.1): 0 = normal 00, 1 = normal second chance 01, 2 = cold 10. There is
one open line ("frontier") per kind; host writes always go to the kind-0 frontier, and a page copied by GC
out of a kind-``s`` line goes to the frontier ``copy_dest[s]``.

Every point the paper leaves open is a keyword of :class:`RefFTL` (the list is ``OPEN_POINTS`` at the
bottom, with the quotes). Defaults are the reading the text supports best.
"""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict, deque

N_KINDS = 3
COUNTER_NAMES = ('host_writes', 'first_writes', 'erases', 'gc_passes', 'victims', 'returned_from_cold', 'fallbacks',
                 'global_fallbacks', 'forced_gc_passes', 'background_gc_passes', 'skipped_background_gc',
                 'copy_0_0', 'copy_0_1', 'copy_0_2', 'copy_1_0', 'copy_1_1', 'copy_1_2', 'copy_2_0', 'copy_2_1',
                 'copy_2_2')


@dataclasses.dataclass(frozen=True)
class RefPolicy:
    """A GC policy as the paper describes the three it runs (§2.2, §2.3, §3.1)."""

    name: str
    victim: str  # "greedy" (fewest valid pages) or "fifo_threshold" (2R / 2R++'s FIFO scan)
    copy_dest: tuple[int, int, int]  # frontier kind receiving pages copied out of a kind-k line
    stop: str  # "one", "valid" (2R), "invalid" (2R++)
    threshold: float = 0.4
    recent_fraction: float = 0.2
    # 2R: "FIFO로 선택한 블록의 utilization이 특정 임계값보다 높을 경우, 희생 블록으로 선택하지 않고
    # 지나간다" (§2.3) = "a block whose utilization is higher than the threshold is passed over" -> a
    # victim may have utilization == threshold. 2R++: "블록의 utilization이 특정 임계값보다 낮을 경우,
    # 희생 블록으로 선택한다" (§3.1) = "a block whose utilization is lower than the threshold is selected"
    # -> strictly below. (Only matters when threshold * pages_per_line is an integer.)
    strict_threshold: bool = False
    max_victims: int = 0


POLICIES = {
    # §2.2: "그리디 FTL은 유효한 페이지의 수가 가장 적은 블록을 희생 블록으로 선택하는 FTL" = greedy takes
    # the block with the fewest valid pages. FEMU's blackbox FTL has one write pointer shared by host writes
    # and GC copies (ftl.c gc_write_page -> get_new_page / ssd_advance_write_pointer).
    "greedy": RefPolicy("greedy", "greedy", (0, 0, 0), "one"),
    # §2.3: "2R에서는 normal region에 쓰기를 진행하고 cold region에 카피백을 진행" = 2R writes into the
    # normal region and copies back into the cold region (from either region).
    # "선택한 블록들에 위치한 유효한 페이지들이 블록 하나의 크기보다 커질 때까지 추가 블록을 선택한다" =
    # more blocks are chosen until the valid pages of the chosen blocks exceed one block.
    "2r": RefPolicy("2r", "fifo_threshold", (2, 2, 2), "valid", strict_threshold=False),
    # §3.1: "00 블록에서 카피백되는 페이지는 01의 값을 가진 normal 블록에, 01의 normal 블록에서 카피백되는
    # 페이지는 10의 cold 블록에 배치된다 ... Cold region에서 카피백된 페이지는 다시 cold region에 배치된다"
    # = copies from 00 go to 01, from 01 to cold 10, from cold back to cold.
    # "희생 블록은 블록들에 위치한 유효하지 않은 페이지들의 합이 블록 하나의 크기에 도달할 때까지
    # 선택된다" = victims are chosen until their invalid pages reach one block.
    "2r++": RefPolicy("2r++", "fifo_threshold", (1, 2, 2), "invalid", strict_threshold=True),
}

# GC triggers: "reserve" (the paper's Fig. 7 text, with one line kept for the copies) and FEMU's.
TRIGGERS = {
    # §3.1 (Fig. 7): "쓰기로 인해 CurBlk이 가리키는 블록이 가득 차면 GET_NEW_BLOCK() 함수를 호출해 Curblk이
    # 가리킬 빈 블록을 가져온다 ... 빈 블록이 없을 경우, 빈 블록을 만들기 위해 GARBAGE_COLLECT() 함수를
    # 호출한다" = when CurBlk fills, GET_NEW_BLOCK() fetches an empty block; if there is none,
    # GARBAGE_COLLECT() is called to make one. Literally "no empty block" is reserve_lines=0; but the
    # collector then needs an empty block for its own copies (NorBlk/ColBlk may be full), so a runnable
    # reading keeps one: reserve_lines=1.
    "reserve": dict(reserve_lines=1, forced_free=None, background_free=None, background_min_invalid=0.125),
    # FEMU bbssd: ssd_write runs do_gc(force) while free_line_cnt <= (int)((1-0.95)*tt_lines) before a
    # request; the FTL thread runs one do_gc(!force) after a request when free_line_cnt <=
    # (int)((1-0.75)*tt_lines), which gives up if the victim has ipc < pgs_per_line/8.
    "femu": dict(reserve_lines=0, forced_free=0.05, background_free=0.25, background_min_invalid=0.125),
}


class NoVictim(RuntimeError):
    pass


class RefFTL:
    """One simulated SSD. ``write(lpns)`` applies host writes; read ``counters``, ``victim_log``,
    ``pass_log`` (one entry per GC pass: list of (line, valid, kind) victims) and ``copy_log``.

    Switches (OPEN_POINTS at the bottom gives each one's quote and verdict). Defaults are the paper's reading;
    ``PACKAGE_READING`` is the set that reproduces flashrepro.ftl exactly.

    * ``host_alloc``: "eager" (default) the host frontier takes its next line as soon as a host write fills
      it, GC first when at most ``reserve_lines`` are free (Fig. 7's text; FEMU's ssd_advance_write_pointer,
      which also takes it when GC copies fill the shared line); "lazy": when the next host write needs it.
    * ``invalidate_first``: (lazy only) that write invalidates the page's old copy before the GC it triggers
      (FEMU ssd_write's order), else after.
    * ``gc_alloc``: "lazy" (default) GC frontiers take a line when a copy needs one; "eager" as soon as
      they fill (if a free line exists then).
    * ``select``: "upfront" (default) all of a pass's victims are chosen before any copy; "interleaved":
      each additional victim is chosen after the previous one was copied and erased (so lines closed by
      those copies move the 20% boundary during the pass).
    * ``recent_count``: "floor" (default) / "ceil" / "round" of ``recent_fraction * n``, ``n`` = all lines
      (``recent_base="all"``, default) or the closed ones ("closed"): the newest closed lines excluded.
    * ``fifo_key``: the FIFO order is by the time a line was "close"d (default) or "open"ed.
    * ``cursor``: "resume" (default) the scan after the last victim of the previous pass; "resume-wrap" the
      same, but a victim that was the newest closed line when taken sends the scan to the oldest line;
      "resume-end" after every line closed by the end of the pass; "restart" from the oldest every time.
    * ``fallback``: the first victim when no eligible line is under the threshold: "least-valid" eligible
      line (default), "fifo" (first eligible line from the cursor that has an invalid page), "global"
      (least-valid closed line, recent ones included, oldest first), "none" (raise). ``fallback_tie``:
      "scan" (first in scan order from the cursor, default) or "oldest". ``fallback_cursor``: "move" (the
      cursor goes past the fallback victim, default) or "keep".
    * ``extra_threshold``: additional victims must be under the threshold too (default True);
      ``extra_wrap``: their scan wraps past the newest eligible line to the oldest and stops where the pass's
      scan began (default True), does not wrap (False), or goes once round from the last victim ("full").
    * ``threshold_strict``: None = per policy (2R: utilization <= threshold, 2R++: <), else forced.
    * ``greedy_tie``: among lines with the fewest valid pages: "heap" (default: FEMU's pqueue order),
      "lrc" (the line whose valid count changed least recently), "lowest" line, "oldest"/"newest" closed.
    * ``erase``: "each" victim right after its copies (default, FEMU's do_gc) or all at the "end".
    * ``bg_check``: the background pass checks its "first" victim's invalid pages (default) or "all"
      victims' total.
    """

    def __init__(self, pages_per_line: int, n_lines: int, logical_pages: int, policy: str | RefPolicy = "greedy",
                 trigger: str | dict = "reserve", *, host_alloc: str = "eager", gc_alloc: str = "lazy",
                 invalidate_first: bool = True, recent_count: str = "floor", recent_base: str = "all",
                 cursor: str = "resume", fallback: str = "least-valid", fallback_tie: str = "scan",
                 fallback_cursor: str = "move", extra_threshold: bool = True, extra_wrap: bool | str = True,
                 greedy_tie: str = "heap", erase: str = "each", threshold_strict: bool | None = None,
                 bg_check: str = "first", select: str = "upfront", fifo_key: str = "close", **policy_changes):
        self.P, self.L, self.N = pages_per_line, n_lines, logical_pages
        pol = POLICIES[policy] if isinstance(policy, str) else policy
        if policy_changes:
            pol = dataclasses.replace(pol, **policy_changes)
        self.pol = pol
        trig = dict(TRIGGERS[trigger]) if isinstance(trigger, str) else dict(trigger)
        self.reserve = trig["reserve_lines"]
        # FEMU: gc_thres_lines = (int)((1 - gc_thres_pcent) * tt_lines)
        self.forced = -1 if trig["forced_free"] is None else int(trig["forced_free"] * n_lines + 1e-9)
        self.background = -1 if trig["background_free"] is None else int(trig["background_free"] * n_lines + 1e-9)
        # FEMU: victim_line->ipc < pgs_per_line / 8 -> no background GC
        self.min_invalid = int(trig["background_min_invalid"] * pages_per_line + 1e-9)
        self.host_alloc, self.gc_alloc, self.invalidate_first = host_alloc, gc_alloc, invalidate_first
        self.recent_count, self.recent_base, self.cursor_mode = recent_count, recent_base, cursor
        self.fallback, self.fallback_tie, self.fallback_cursor = fallback, fallback_tie, fallback_cursor
        self.extra_threshold, self.extra_wrap, self.greedy_tie = extra_threshold, extra_wrap, greedy_tie
        self.erase_mode, self.bg_check, self.select, self.fifo_key = erase, bg_check, select, fifo_key
        self.strict = pol.strict_threshold if threshold_strict is None else threshold_strict

        P, L = pages_per_line, n_lines
        self.page = [[-1] * P for _ in range(L)]  # lpn stored at each physical page (-1 = none)
        self.valid = [0] * L
        self.fill = [0] * L  # pages written into the line since its erase
        self.kind = [0] * L
        self.map: dict[int, tuple[int, int]] = {}  # lpn -> (line, offset)
        self.free = deque(range(L))  # FEMU: free_line_list, head taken, erased lines appended at the tail
        self.front: list[int | None] = [None] * N_KINDS
        self.closed: OrderedDict[int, int] = OrderedDict()  # line -> close sequence, oldest first
        self.seq = 0
        self.opened = [0] * L  # allocation sequence of each line (fifo_key="open")
        self.n_opened = 0
        self.cursor = -1  # close sequence of the line the last GC stopped at
        self.in_gc = False
        self.counters = dict.fromkeys(COUNTER_NAMES, 0)
        # greedy_tie="heap": FEMU's victim_line_pq (hw/femu/lib/pqueue.c, a 1-based binary min-heap on vpc;
        # ftl.c inserts a line when it closes with an invalid page or when a page of a fully valid closed
        # line is invalidated, bubbles it up on every further invalidation, peeks and pops the top)
        self.heap: list[int] = [-1]
        # greedy_tie="lrc": the line whose valid count last changed (closed, or lost a page since) earliest
        self.changed = [0] * L
        self.events = 0
        self.hpos = [0] * L
        self.victim_log: list[int] = []
        self.pass_log: list[list[tuple[int, int, int]]] = []
        self.copy_log: list[int] = []
        self._copies_now = 0
        if host_alloc == "eager":  # FEMU ssd_init_write_pointer: the first free line is the host's at start
            self._alloc(0)

    # ---- lines ------------------------------------------------------------------------------------------
    def _alloc(self, k: int) -> None:
        if not self.free:
            raise NoVictim("no free line left")
        line = self.free.popleft()
        self.opened[line] = self.n_opened
        self.n_opened += 1
        self.kind[line] = k  # §3.2: "새로운 빈 블록을 할당하는 경우, 그 용도에 맞게 bit를 설정"
        self.front[k] = line

    def _put(self, k: int, lpn: int) -> None:
        """Program one page into the kind-k frontier."""
        if self.front[k] is None:
            self._alloc(k)
        line = self.front[k]
        off = self.fill[line]
        self.page[line][off] = lpn
        self.fill[line] += 1
        self.valid[line] += 1
        self.map[lpn] = (line, off)
        if self.fill[line] == self.P:  # closed: joins the write-completion order (§2.3, §3.1)
            self.closed[line] = self.seq if self.fifo_key == "close" else self.opened[line]
            self.seq += 1
            self.events += 1
            self.changed[line] = self.events
            if self.greedy_tie == "heap" and self.valid[line] < self.P:
                self._heap_insert(line)
            self.front[k] = None
            if self.in_gc and self.free and (self.gc_alloc == "eager" or (k == 0 and self.host_alloc == "eager")):
                # FEMU's ssd_advance_write_pointer takes the next line as soon as one fills, GC copies included
                self._alloc(k)

    def _invalidate(self, lpn: int) -> None:
        old = self.map.pop(lpn, None)
        if old is None:
            self.counters["first_writes"] += 1
            return
        line, off = old
        if self.kind[line] == 2:
            self.counters["returned_from_cold"] += 1
        self.page[line][off] = -1
        was_full = self.valid[line] == self.P
        self.valid[line] -= 1
        self.events += 1
        self.changed[line] = self.events
        if self.greedy_tie == "heap" and line in self.closed:
            if self.hpos[line]:
                self._bubble_up(self.hpos[line])
            elif was_full:
                self._heap_insert(line)

    # ---- FEMU's pqueue (min-heap on valid pages; cmppri(next, curr) = next > curr) ----------------------
    def _set(self, i: int, line: int) -> None:
        self.heap[i] = line
        self.hpos[line] = i

    def _bubble_up(self, i: int) -> None:
        h, v = self.heap, self.valid
        moving = h[i]
        while i > 1 and v[h[i >> 1]] > v[moving]:
            self._set(i, h[i >> 1])
            i >>= 1
        self._set(i, moving)

    def _maxchild(self, i: int) -> int:
        h, v = self.heap, self.valid
        c = i << 1
        if c >= len(h):
            return 0
        if c + 1 < len(h) and v[h[c]] > v[h[c + 1]]:
            c += 1
        return c

    def _percolate_down(self, i: int) -> None:
        h, v = self.heap, self.valid
        moving = h[i]
        while (c := self._maxchild(i)) and v[moving] > v[h[c]]:
            self._set(i, h[c])
            i = c
        self._set(i, moving)

    def _heap_insert(self, line: int) -> None:
        self.heap.append(line)
        self._bubble_up(len(self.heap) - 1)

    def _heap_pop(self) -> int:
        h = self.heap
        head = h[1]
        last = h.pop()
        if len(h) > 1:
            h[1] = last
            self._percolate_down(1)
        self.hpos[head] = 0
        return head

    def _erase(self, line: int) -> None:
        assert self.valid[line] == 0
        del self.closed[line]
        self.page[line] = [-1] * self.P
        self.fill[line] = 0
        self.free.append(line)
        self.counters["erases"] += 1

    # ---- victim selection -------------------------------------------------------------------------------
    def _n_recent(self) -> int:
        base = self.L if self.recent_base == "all" else len(self.closed)
        x = self.pol.recent_fraction * base
        if self.recent_count == "floor":
            return int(x + 1e-9)
        if self.recent_count == "ceil":
            return math.ceil(x - 1e-9)
        return int(round(x))

    def _under(self, line: int) -> bool:
        u = self.valid[line] / self.P
        t = self.pol.threshold
        return u < t - 1e-12 if self.strict else u <= t + 1e-12

    @staticmethod
    def _region(kind: int) -> int:
        # §3.1: "00과 01 값을 가진 블록들은 모두 normal region에 위치한 normal 블록들로 ... 함께 선택될 수
        # 있다" = 00 and 01 blocks are both in the normal region and can be chosen together.
        return 1 if kind == 2 else 0

    def _stop(self, victims: list[int]) -> bool:
        P, pol = self.P, self.pol
        if pol.max_victims and len(victims) >= pol.max_victims:
            return True
        if pol.stop == "one":
            return True
        if pol.stop == "valid":
            return sum(self.valid[v] for v in victims) > P
        return sum(P - self.valid[v] for v in victims) >= P

    def _greedy(self) -> int:
        order = self._order()
        if self.greedy_tie == "heap":
            if len(self.heap) == 1:
                raise NoVictim("FEMU's victim queue is empty")
            return self.heap[1]  # popped in _gc_pass once taken
        if not order:
            raise NoVictim("no closed line")
        if self.greedy_tie == "lrc":
            key = lambda it: (self.valid[it[0]], self.changed[it[0]])  # noqa: E731
        elif self.greedy_tie == "lowest":
            key = lambda it: (self.valid[it[0]], it[0])  # noqa: E731
        elif self.greedy_tie == "oldest":
            key = lambda it: (self.valid[it[0]], it[1])  # noqa: E731
        else:
            key = lambda it: (self.valid[it[0]], -it[1])  # noqa: E731
        return min(order, key=key)[0]

    def _order(self) -> list[tuple[int, int]]:
        """Closed lines in FIFO order: by the time they were closed (fifo_key="close") or opened ("open")."""
        order = list(self.closed.items())
        return order if self.fifo_key == "close" else sorted(order, key=lambda it: it[1])

    def _eligible(self) -> list[tuple[int, int]]:
        """Closed lines, oldest first, without the newest ``_n_recent()`` (never victims)."""
        order = self._order()
        return order[: max(len(order) - self._n_recent(), 0)]

    def _rot(self, seq: int, cur: int) -> tuple[int, int]:
        """Scan order of the circular FIFO that starts after the cursor: newer than it first, then from the
        oldest line on."""
        return (0, seq) if seq > cur else (1, seq)

    def _first_victim(self, cur: int) -> tuple[int, bool, bool]:
        """(line, fallback used, global fallback used)."""
        if not self.closed:
            raise NoVictim("no closed line")
        scan = sorted(self._eligible(), key=lambda it: self._rot(it[1], cur))
        for ln, _ in scan:
            if self._under(ln):
                return ln, False, False
        if self.fallback == "none":
            raise NoVictim("no eligible line under the threshold")
        if self.fallback == "global" or not scan:
            order = self._order()
            return min(order, key=lambda it: self.valid[it[0]])[0], True, True  # ties: the oldest
        if self.fallback == "fifo":  # the first eligible line from the cursor that has an invalid page
            ln = next((ln for ln, _ in scan if self.valid[ln] < self.P), None)
            if ln is not None:
                return ln, True, False
            raise NoVictim("no eligible line has an invalid page")
        pool = scan if self.fallback_tie == "scan" else sorted(scan, key=lambda it: it[1])
        return min(pool, key=lambda it: self.valid[it[0]])[0], True, False

    def _extras(self, last_seq: int, region: int, cur: int) -> list[int]:
        """Additional victim candidates after the line closed at ``last_seq``, in scan order (§2.3: "추가 희생
        블록은 처음 선택한 희생 블록이 위치한 region에서만 선택한다")."""
        if self.extra_wrap == "full":  # once round the circle from the last victim, origin ignored
            cands = sorted((it for it in self._eligible() if it[1] != last_seq),
                           key=lambda it: self._rot(it[1], last_seq))
        else:
            lk = self._rot(last_seq, cur)
            cands = sorted((it for it in self._eligible() if self._rot(it[1], cur) > lk),
                           key=lambda it: self._rot(it[1], cur))
            if not self.extra_wrap:
                cands = [it for it in cands if self._rot(it[1], cur)[0] == lk[0]]
        return [ln for ln, _ in cands if self._region(self.kind[ln]) == region
                and (not self.extra_threshold or self._under(ln))]

    # ---- garbage collection -----------------------------------------------------------------------------
    def _collect(self, v: int) -> None:
        """Copy a victim's valid pages to their frontiers, then (erase="each") erase it."""
        c = self.counters
        src = self.kind[v]
        dest = self.pol.copy_dest[src]
        for off in range(self.P):
            lpn = self.page[v][off]
            if lpn >= 0:
                self.page[v][off] = -1
                self.valid[v] -= 1
                del self.map[lpn]
                self._put(dest, lpn)
                c[f"copy_{src}_{dest}"] += 1
                self._copies_now += 1
        if self.erase_mode == "each":
            self._erase(v)

    def _gc_pass(self, kind_of_pass: str) -> bool:
        """One GC pass; kind_of_pass is "reserve", "forced" or "background". False if it took nothing.

        §2.2: "가비지 컬렉션은 지우기를 진행할 블록을 선정하고, 선택한 블록에 위치한 유효 페이지들을 다른
        블록으로 옮긴다 ... 마지막으로 블록을 빈 블록으로 바꾸는 지우기 작업을 완료하면 가비지 컬렉션 과정이
        종료된다" = choose the blocks, move their valid pages, erase. §2.3: "2R에서는 희생 블록을 여러 개 선정한
        후 유효한 페이지들을 병합하는 다중 희생 블록 선택 방식을 채택하였다" = 2R selects several victims and
        then merges their valid pages; §3.1: "희생 블록은 ... 도달할 때까지 선택된다. 선택된 희생 블록들에 위치한
        유효 페이지들은 빈 블록으로 카피백된다" = victims are chosen until ...; the chosen victims' valid pages
        are copied. Hence select="upfront" (default): all victims, then the copies; "interleaved" picks each
        additional victim after the previous one was copied and erased.
        """
        c = self.counters
        cur = -1 if self.cursor_mode == "restart" else self.cursor
        try:
            if self.pol.victim == "greedy":
                first, fb, gfb = self._greedy(), False, False
            else:
                first, fb, gfb = self._first_victim(cur)
        except NoVictim:
            if kind_of_pass != "background":
                raise
            c["skipped_background_gc"] += 1  # FEMU: select_victim_line() returns NULL, do_gc() gives up
            return False
        if kind_of_pass == "background" and self.P - self.valid[first] < self.min_invalid \
                and self.bg_check == "first":
            c["skipped_background_gc"] += 1
            return False
        if self.valid[first] == self.P:
            raise NoVictim(f"victim {first} has no invalid page")
        victims = [first]
        region = self._region(self.kind[first])
        if self.pol.victim != "greedy" and self.select == "upfront":
            for ln in self._extras(self.closed[first], region, cur):
                if self._stop(victims):
                    break
                victims.append(ln)
        if kind_of_pass == "background" and self.bg_check == "all" \
                and sum(self.P - self.valid[v] for v in victims) < self.min_invalid:
            c["skipped_background_gc"] += 1
            return False
        if self.pol.victim == "greedy" and self.greedy_tie == "heap":
            assert self._heap_pop() == first
        c["gc_passes"] += 1
        c["fallbacks"] += fb and not gfb
        c["global_fallbacks"] += gfb
        if kind_of_pass == "forced":
            c["forced_gc_passes"] += 1
        elif kind_of_pass == "background":
            c["background_gc_passes"] += 1
        log = []
        self.in_gc = True
        i = 0
        last_seq = self.closed[first]
        while i < len(victims):
            v = victims[i]
            log.append((v, self.valid[v], self.kind[v]))
            last_seq = self.closed[v]
            # cursor="resume-wrap": a victim that is the newest closed line when taken leaves the cursor at the
            # head of the FIFO (the scan wraps), not before lines that close later
            last_was_newest = last_seq == max(self.closed.values())
            self._collect(v)
            i += 1
            if i == len(victims) and self.select == "interleaved" and self.pol.victim != "greedy" \
                    and not self._stop_vals(log):
                nxt = self._extras(last_seq, region, cur)
                if nxt:
                    victims.append(nxt[0])
        if self.erase_mode == "end":
            for v in victims:
                self._erase(v)
        self.in_gc = False
        c["victims"] += len(victims)
        self.pass_log.append(log)
        self.victim_log.extend(victims)
        if not (fb and self.fallback_cursor == "keep") and self.pol.victim != "greedy":
            # cursor="resume": after the last victim; "resume-end": after every line closed by the pass's end
            if self.cursor_mode == "resume-end":
                self.cursor = self.seq - 1
            elif self.cursor_mode == "resume-wrap" and last_was_newest:
                self.cursor = -1
            else:
                self.cursor = last_seq
        return True

    def _stop_vals(self, log: list[tuple[int, int, int]]) -> bool:
        """The stop rule on the victims' valid counts at selection (interleaved selection)."""
        P, pol = self.P, self.pol
        if pol.max_victims and len(log) >= pol.max_victims:
            return True
        if pol.stop == "one":
            return True
        if pol.stop == "valid":
            return sum(v for _, v, _ in log) > P
        return sum(P - v for _, v, _ in log) >= P

    def _gc_until(self, limit: int, kind_of_pass: str) -> None:
        guard = 0
        while len(self.free) <= limit:
            self._gc_pass(kind_of_pass)
            guard += 1
            if guard > 4 * self.L:
                raise NoVictim("GC makes no progress")

    def _host_needs_line(self) -> None:
        """The host frontier needs a line: GC while at most ``reserve`` lines are free, then take one."""
        if self.reserve >= 0:
            self._gc_until(self.reserve, "reserve")
        if self.front[0] is None:  # GC copies may have opened a kind-0 frontier (greedy shares it)
            self._alloc(0)

    # ---- host -------------------------------------------------------------------------------------------
    def write(self, lpns) -> None:
        for lpn in lpns:
            self.write_one(int(lpn))

    def write_one(self, lpn: int) -> None:
        if not 0 <= lpn < self.N:
            raise ValueError(f"logical page {lpn} out of range")
        self._copies_now = 0
        if self.forced >= 0:
            self._gc_until(self.forced, "forced")
        c = self.counters
        c["host_writes"] += 1
        if self.invalidate_first:
            self._invalidate(lpn)
        if self.front[0] is None:
            self._host_needs_line()
        if not self.invalidate_first:
            self._invalidate(lpn)
        self._put(0, lpn)
        if self.front[0] is None and self.host_alloc == "eager":
            self._host_needs_line()
        if self.background >= 0 and len(self.free) <= self.background:
            self._gc_pass("background")
        self.copy_log.append(self._copies_now)

    # ---- results ----------------------------------------------------------------------------------------
    def copies(self) -> list[list[int]]:
        return [[self.counters[f"copy_{s}_{d}"] for d in range(N_KINDS)] for s in range(N_KINDS)]

    def total_copies(self) -> int:
        return sum(map(sum, self.copies()))

    def waf(self) -> float:
        h = self.counters["host_writes"]
        return (h + self.total_copies()) / h if h else float("nan")

    def reset_counters(self) -> None:
        self.counters = dict.fromkeys(COUNTER_NAMES, 0)
        self.victim_log, self.pass_log, self.copy_log = [], [], []

    def check(self) -> None:
        """Invariants: the map, the valid counts and the free list agree."""
        for line in range(self.L):
            assert self.valid[line] == sum(1 for x in self.page[line] if x >= 0)
        for lpn, (line, off) in self.map.items():
            assert self.page[line][off] == lpn
        assert sum(self.valid) == len(self.map)
        opened = [f for f in self.front if f is not None]
        assert len(set(self.free)) + len(self.closed) + len(opened) == self.L


def run_ref(lpns, pages_per_line, n_lines, logical_pages, policy="greedy", trigger="reserve", *, prefill: int = 0,
            count_prefill: bool = False, **kw) -> RefFTL:
    """Feed a stream; ``prefill`` pages 0..prefill-1 are first written in order (a file laid out before the
    measured writes, §5.1: "fio는 공간이 모두 사용 중인 상태로 실험이 진행되기 때문에" = fio runs with the
    whole space in use), and the counters restart after it unless ``count_prefill``."""
    ftl = RefFTL(pages_per_line, n_lines, logical_pages, policy, trigger, **kw)
    if prefill:
        ftl.write(range(prefill))
        if not count_prefill:
            ftl.reset_counters()
    ftl.write(lpns)
    return ftl


# The switches under which this reference reproduces flashrepro.ftl exactly (every counter, every
# per-write copy count, every victim line number), found by comparison; see OPEN_POINTS for the verdicts.
PACKAGE_READING = dict(host_alloc="lazy", invalidate_first=False, select="interleaved", extra_wrap="full",
                       greedy_tie="lrc", threshold_strict=False, cursor="resume-wrap")

# point: (this reference's default, the package's reading, the paper's words, verdict)
OPEN_POINTS = {
    "GC trigger": (
        "reserve_lines=1 ('reserve'), and FEMU's 5%/25% ('femu') as a second trigger",
        "the same two triggers",
        "Fig. 7 text: '빈 블록이 없을 경우, 빈 블록을 만들기 위해 GARBAGE_COLLECT() 함수를 호출한다' = if there is no "
        "empty block, GARBAGE_COLLECT() is called to make one; §4.1 the FTL is FEMU's blackbox FTL, modified",
        "open: the literal reading (reserve 0) cannot run (the collector needs an empty line for its copies; both "
        "sides refuse it); reserve 1 is the least change that runs. Whether the modified FEMU FTL kept FEMU's "
        "thresholds is not said"),
    "moment the host frontier takes its next line": (
        "eager (host_alloc='eager')", "lazy, GC before the next write's invalidation",
        "'쓰기로 인해 CurBlk이 가리키는 블록이 가득 차면 GET_NEW_BLOCK() 함수를 호출해 Curblk이 가리킬 빈 블록을 "
        "가져온다' = when a write fills CurBlk's block, GET_NEW_BLOCK() fetches an empty block for it",
        "'reserve': same GC passes, one write later (only the per-write log and a stream that ends on a full "
        "line differ): both allowed. 'femu': FEMU's write pointer holds the next line (free_line_cnt one lower), "
        "the package counts it free until the next write: the package departs from FEMU and the Fig. 7 text"),
    "multi-victim selection before or between copies": (
        "upfront", "interleaved (extra scan once round from the last victim)",
        "§2.3 '2R에서는 희생 블록을 여러 개 선정한 후 유효한 페이지들을 병합하는 다중 희생 블록 선택 방식' = 2R "
        "selects several victims and then merges their valid pages; §3.1 '희생 블록은 ... 도달할 때까지 선택된다. "
        "선택된 희생 블록들에 위치한 유효 페이지들은 빈 블록으로 카피백된다' = victims are selected until ...; the "
        "selected victims' valid pages are copied",
        "the paper settles it for 'upfront': package departs (a line among the newest 20% when the pass began "
        "can become a victim once the pass's own copies close a line)"),
    "2R++ threshold at equality": (
        "2R: u <= 40%; 2R++: u < 40%", "u <= 40% for both",
        "2R §2.3 '임계값보다 높을 경우 ... 지나간다' (higher: "
        "passed over); 2R++ §3.1 '임계값보다 낮을 경우, 희생 블록으로 "
        "선택한다' (lower: selected)",
        "the text settles '<' for 2R++: package departs; only when 0.4 * pages_per_line is an integer (never for "
        "Table 1's 1,152 and 1,024)"),
    "the 20% most recent lines": (
        "floor(0.2 * n_lines) newest closed lines, by close order", "the same",
        "'최근에 접근이 발생한 20%의 블록은 희생 블록으로 선택하지 않음' = the 20% most recently accessed blocks are "
        "never victims; '쓰기가 완료된 순서대로 블록들을 관리하고' = blocks are kept in write-completion order",
        "agree"),
    "cursor": (
        "resume after the last victim", "the same, but wraps to the oldest line when that victim was the newest "
        "closed line",
        "'희생 블록 선택은 이전 가비지 컬렉션이 완료된 시점에서 다시 재개된다' = victim selection resumes where the "
        "previous GC ended",
        "both allowed; differs only when a victim is the newest closed line (recent_fraction 0, or the "
        "package's 'global' fallback)"),
    "fallback (no eligible line under the threshold)": (
        "least-valid eligible line, ties in scan order from the cursor; cursor moves past it",
        "the same ('least-valid'); 'fifo' and 'global' also match this reference's switches",
        "'임계값이 낮으면 희생 블록을 선택할 수 없는 문제가 발생할 수 "
        "있기 때문에 ... 40%로 설정하였다' = a low threshold "
        "can leave no victim, hence 40%; what happens then is not said", "open; agree"),
    "additional victims": (
        "same region, under the threshold, FIFO order; after a fallback victim too", "the same",
        "'추가 희생 블록은 처음 선택한 희생 블록이 위치한 region에서만 "
        "선택한다' = additional victims only from the first "
        "victim's region; '00과 01 값을 가진 블록들은 모두 "
        "normal region에 위치한 normal 블록들로 ... 함께 선택될 수 있다'",
        "agree"),
    "stop rules": (
        "2R: until valid pages > one line; 2R++: until invalid pages >= one line", "the same",
        "2R '유효한 페이지들이 블록 하나의 크기보다 커질 "
        "때까지'; 2R++ '유효하지 않은 페이지들의 합이 블록 하나의 크기에 "
        "도달할 때까지'", "settled; agree"),
    "copy destinations": (
        "greedy: the host's line (0,0,0); 2R: cold (2,2,2); 2R++: (1,2,2)", "the same",
        "§2.3 'normal region에 쓰기를 진행하고 cold region에 "
        "카피백을 진행'; §3.1 '00 블록에서 카피백되는 페이지는 01 ..., "
        "01의 normal 블록에서 카피백되는 페이지는 10의 cold 블록에 ... Cold region에서 카피백된 페이지는 다시 cold "
        "region에'; FEMU gc_write_page uses the host's write pointer", "settled; agree"),
    "greedy ties": (
        "FEMU's pqueue order (heap)", "the line whose valid count changed least recently",
        "§2.2 '그리디 FTL은 유효한 페이지의 수가 가장 적은 블록을 희생 블록으로 선택' = the fewest valid pages; ties "
        "not mentioned", "both allowed"),
    "prefill": (
        "pages 0..prefill-1 written in order, counters restarted (run_ref)", "run(): the same",
        "§5.1 'fio는 공간이 모두 사용 중인 상태로 실험이 진행되기 때문에' = fio runs with the whole space in use; §4.3 "
        "the databases grow 1 GB -> 10 GB", "agree"),
    "spare": (
        "an input (Geometry)", "GEOMETRIES: 8GB = 2,097,152 logical pages on 2,359,296 (12.5% spare), 10GB = "
        "2,621,440 on 2,883,584 (10%)",
        "Table 1 total pages 2,359,296 / 2,883,584; Table 2 and §4.2 'OP size 10%', '8GB이며, 10%의 추가 OP 영역'",
        "the paper contradicts itself for 8 GB (9 GiB physical is 12.5% over 8 GiB); the package follows Table 1"),
}
