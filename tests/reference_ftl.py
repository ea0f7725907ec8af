"""A slow, obviously correct page-mapped FTL with line-based GC (paper 4 and FEMU's victim policies).

Every structure is a plain list or dict, and every valid count and candidate set is recomputed from the
mapping, so the rules of lib/flashrepro/ftl/_kernel.py and lib/flashrepro/ftl/victims/ are stated here
once more in the most direct form. Random draws use the same splitmix64 stream, written out with
Python integers.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

M64 = 2**64 - 1
RULES = ("greedy", "greedy-heap", "greedy-heap-stale", "fifo_threshold", "fifo", "random", "d-choice",
         "cost-benefit", "random-all")  # the victim rules stated here
PENDING = "the next line to close"  # the cursor after the newest closed line was a victim (cursor="resume")


def splitmix64(state):
    """``(new_state, value)``: FEMU's ``ftl_gc_rand``."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def kernel_takes_full_first_victims():
    """Whether the kernel under test lets reserve and forced passes take a first victim with no invalid page
    (copied whole; ``_kernel.FULL_FIRST_VICTIMS``, which ``random-all`` relies on)."""
    from flashrepro.ftl import _kernel

    return bool(getattr(_kernel, "FULL_FIRST_VICTIMS", False))


class FTLReference:
    """``victim``: "greedy", "fifo_threshold", "fifo", "random", "d-choice" or "cost-benefit". ``limit``
    the most valid pages a fifo_threshold victim may hold; ``recent`` the number of most recently closed
    lines that are never its victims; ``stop`` "valid" | "invalid" | "one"; ``copy_dest[kind]`` where
    copies out of a kind-``kind`` line go. Trigger: ``reserve`` lines (GC when the host frontier needs a
    line), ``forced`` lines (GC before each write while free <= forced; None = off), ``background``
    lines (one pass after each write when free <= background, taking a first victim only with at least
    ``bg_min_invalid`` invalid pages; None = off). ``select``: "upfront" (a pass's victims are all chosen
    before any is copied) or "interleaved". ``cursor``: after a victim that was the newest closed line, the
    scan starts at the head ("wrap") or at the next line to close ("resume"). ``host_eager``: the host
    frontier takes its next line as soon as its line fills (FEMU's write pointer), else when the next
    host write needs it. ``full_first``: reserve and forced passes take a first victim with no invalid page (it is
    copied whole) instead of refusing it; None = as the kernel under test does."""

    def __init__(self, P, L, N, victim, copy_dest, limit=0, recent=0, stop="one", reserve=1, max_victims=0,
                 d=4, seed=0, forced=None, background=None, bg_min_invalid=0, fallback="least-valid",
                 select="upfront", cursor="wrap", host_eager=False, full_first=None):
        self.P, self.L, self.N = P, L, N
        self.victim, self.copy_dest, self.limit, self.recent = victim, copy_dest, limit, recent
        self.stop, self.reserve, self.max_victims, self.d = stop, reserve, max_victims, d
        self.forced, self.background, self.bg_min_invalid = forced, background, bg_min_invalid
        self.fallback, self.select, self.cursor_mode, self.host_eager = fallback, select, cursor, host_eager
        self.full_first = kernel_takes_full_first_victims() if full_first is None else full_first
        # FEMU's victim_line_pq (hw/femu/lib/pqueue.c): a 1-based binary heap of lines on their valid counts;
        # "greedy-heap-stale": FEMU before 2021-10-04, which did not move a line that lost a page
        self.heap_mode = {"greedy-heap": "kept", "greedy-heap-stale": "stale"}.get(victim)
        self.pq = [None]
        self.pos = {}
        self.note = None  # the counter of the fallback that chose the last first victim
        self.rng = seed
        self.l2p = {}  # lpn -> (line, offset)
        self._valid_memo = {}  # line -> valid(line), forgotten by _changed
        self.pages = [[] for _ in range(L)]  # lpns in the order they were written into the line
        self.kind = [None] * L
        self.closed_seq = {}  # closed line -> its close number
        self.closed_at = {}  # closed line -> host writes done when it closed
        self.free = deque(range(L))
        self.front = {}  # kind -> open line
        self.seq = 0
        self.host_clock = 0  # host writes done
        self.cursor = None  # a closed line, or None for "the head of the FIFO"
        self.region = None
        self.entered = {}  # closed line -> when it took its current valid count (greedy ties)
        self.tick = 0
        self.cands = []  # closed lines with an invalid page, in the kernel's array-set order
        self.erases = [0] * L
        self.victims = []
        self.copies_before = []
        self.c = {"host_writes": 0, "first_writes": 0, "erases": 0, "gc_passes": 0, "victims": 0,
                  "returned_from_cold": 0, "fallbacks": 0, "global_fallbacks": 0, "forced_gc_passes": 0,
                  "background_gc_passes": 0, "skipped_background_gc": 0}
        self.copy = [[0] * 3 for _ in range(3)]
        if host_eager:  # FEMU's write pointer holds a line from the start
            self.open_line(0)

    # --- state, recomputed ---------------------------------------------------------------------------
    CHECK_MEMO = False  # recompute every memoised count and compare (tests/test_ftl.py turns it on for a few cases)

    def valid(self, ln):
        """The pages of ``ln`` the mapping still points at. Memoised per line: only :meth:`_changed` (called
        wherever ``l2p`` or ``pages`` change a line's pages) forgets a line's count."""
        memo = self._valid_memo.get(ln)
        if memo is None or self.CHECK_MEMO:
            count = sum(1 for off, lpn in enumerate(self.pages[ln]) if self.l2p.get(lpn) == (ln, off))
            assert memo is None or memo == count, f"memoised valid count of line {ln}: {memo}, recounted {count}"
            self._valid_memo[ln] = memo = count
        return memo

    def _changed(self, ln):
        self._valid_memo.pop(ln, None)

    def fifo(self):
        return sorted(self.closed_seq, key=self.closed_seq.get)

    def candidates(self):
        """Closed lines with an invalid page, in close order."""
        return [ln for ln in self.fifo() if self.valid(ln) < self.P]

    def draw(self, n):
        self.rng, r = splitmix64(self.rng)
        return r % n

    # --- the array set of candidates (only its order needs stating: membership is checked) -------------
    def _cand_add(self, ln):
        self.cands.append(ln)

    def _cand_remove(self, ln):
        if ln in self.cands:
            i = self.cands.index(ln)
            self.cands[i] = self.cands[-1]
            self.cands.pop()

    def _checked_cands(self):
        assert sorted(self.cands) == sorted(self.candidates()), "candidate set"
        return self.cands

    # --- FEMU's pqueue, as pqueue.c writes it (cmppri(next, curr) = next > curr, on valid counts) ------------
    def _pq_set(self, i, ln):
        self.pq[i] = ln
        self.pos[ln] = i

    def _bubble_up(self, i):
        moving = self.pq[i]
        while i > 1 and self.valid(self.pq[i // 2]) > self.valid(moving):
            self._pq_set(i, self.pq[i // 2])
            i //= 2
        self._pq_set(i, moving)

    def _percolate_down(self, i):
        moving = self.pq[i]
        size = len(self.pq)  # pqueue's q->size: one more than the lines held
        while True:
            child = 2 * i
            if child >= size:
                break
            if child + 1 < size and self.valid(self.pq[child]) > self.valid(self.pq[child + 1]):
                child += 1
            if not self.valid(moving) > self.valid(self.pq[child]):
                break
            self._pq_set(i, self.pq[child])
            i = child
        self._pq_set(i, moving)

    def _pq_insert(self, ln):
        self.pq.append(ln)
        self._bubble_up(len(self.pq) - 1)

    def _pq_pop(self, ln):
        """pqueue_pop: the victim is the root; the last line moves there and percolates down."""
        assert self.pq[1] == ln, "a heap rule's victim is the heap's root"
        last = self.pq.pop()
        del self.pos[ln]
        if len(self.pq) > 1:
            self._pq_set(1, last)
            self._percolate_down(1)

    # --- writing and erasing -----------------------------------------------------------------------------
    def _tick(self, ln):
        self.tick += 1
        self.entered[ln] = self.tick

    def open_line(self, k):
        if not self.free:
            raise RuntimeError("no free line")
        ln = self.free.popleft()
        self.front[k], self.kind[ln], self.pages[ln] = ln, k, []
        self._changed(ln)

    def place(self, k, lpn, copy=False):
        """Program one page into frontier ``k`` (``copy``: a GC copy)."""
        if k not in self.front:
            self.open_line(k)
        ln = self.front[k]
        if lpn in self.l2p:
            self._changed(self.l2p[lpn][0])  # the copy that stops being valid
        self.pages[ln].append(lpn)
        self.l2p[lpn] = (ln, len(self.pages[ln]) - 1)
        self._changed(ln)
        if len(self.pages[ln]) == self.P:
            del self.front[k]
            self.seq += 1
            self.closed_seq[ln] = self.seq
            self.closed_at[ln] = self.host_clock
            self._tick(ln)
            if self.valid(ln) < self.P:
                self._cand_add(ln)
                if self.heap_mode:
                    self._pq_insert(ln)
            if self.cursor is PENDING:
                self.cursor = ln
            if copy and k == 0 and self.host_eager and self.free:  # FEMU's write pointer, filled by GC copies
                self.open_line(0)

    def detach(self, ln):
        """A chosen victim leaves the FIFO, the candidates and the heap; the scan's cursor moves past it."""
        order = self.fifo()
        i = order.index(ln)
        self.cursor = order[i + 1] if i + 1 < len(order) else (PENDING if self.cursor_mode == "resume" else None)
        self._cand_remove(ln)
        if ln in self.pos:
            self._pq_pop(ln)
        del self.closed_seq[ln]
        self.entered.pop(ln, None)

    def collect(self, ln):
        """Copy a detached victim's valid pages, erase it."""
        moved = 0
        src = self.kind[ln]
        for off, lpn in enumerate(list(self.pages[ln])):
            if self.l2p.get(lpn) == (ln, off):
                self.place(self.copy_dest[src], lpn, copy=True)
                moved += 1
        self.copy[src][self.copy_dest[src]] += moved
        self.kind[ln], self.pages[ln] = None, []
        self._changed(ln)
        self.erases[ln] += 1
        self.c["erases"] += 1
        self.free.append(ln)
        return moved

    # --- victim rules --------------------------------------------------------------------------------------
    def scan(self, region, first):
        order = self.fifo()
        eligible = [ln for ln in order if self.closed_seq[ln] <= self.seq - self.recent]
        if not eligible:
            return None, None
        start = eligible.index(self.cursor) if self.cursor in eligible else 0
        visit = eligible[start:] + eligible[:start]
        if not first:
            visit = [ln for ln in visit if (self.kind[ln] == 2) == (region == 1)]
        for ln in visit:
            if self.valid(ln) <= self.limit:
                return ln, None
        if first and visit:
            if self.fallback == "fifo":
                return None, next((ln for ln in visit if self.valid(ln) < self.P), visit[0])
            return None, min(visit, key=lambda ln: (self.valid(ln), visit.index(ln)))
        return None, None

    def fifo_threshold(self, first):
        if not first:
            return self.scan(self.region, False)[0]
        v, fallback = self.scan(0, True)
        if v is None and fallback is not None and self.fallback != "global":
            v = fallback
            self.note = "fallbacks"
        if v is None or self.valid(v) == self.P:
            order = self.fifo()
            v = min(order, key=lambda ln: self.valid(ln)) if order else None  # first in FIFO order among ties
            self.note = "global_fallbacks"
            if v is None or self.valid(v) == self.P:
                return None
        self.region = 1 if self.kind[v] == 2 else 0
        return v

    def random_all(self, first):
        """Any closed line this pass has not taken, uniformly: line numbers drawn until one is closed. A first
        victim with no invalid page is drawn again unless reserve and forced passes take one (``full_first``)."""
        if not self.closed_seq:
            return None
        need_invalid = first and not self.full_first
        if need_invalid and not self.candidates():
            return None
        while True:
            ln = self.draw(self.L)
            if ln in self.closed_seq and not (need_invalid and self.valid(ln) == self.P):
                return ln

    def pick(self, first):
        if self.victim == "random-all":
            return self.random_all(first)
        if self.victim == "fifo_threshold":
            return self.fifo_threshold(first)
        cands = self.candidates()  # in close order
        if self.heap_mode:
            assert sorted(self.pq[1:]) == sorted(cands), "the heap holds the candidates"
        if not cands:
            return None
        if self.victim == "greedy":
            return min(cands, key=lambda ln: (self.valid(ln), self.entered[ln]))
        if self.heap_mode:
            return self.pq[1]  # the root, a least-valid line when the heap is kept
        if self.victim == "fifo":
            return cands[0]
        if self.victim == "cost-benefit":
            def ratio(ln):  # age * (1 - u) / (2u), u = valid / P; infinite for an empty line
                v = self.valid(ln)
                return float("inf") if v == 0 else Fraction((self.host_clock - self.closed_at[ln]) * (self.P - v),
                                                             2 * v)
            best = max(ratio(ln) for ln in cands)
            return next(ln for ln in cands if ratio(ln) == best)  # the earliest-closed of the best
        arr = self._checked_cands()
        if self.victim == "random":
            return arr[self.draw(len(arr))]
        if self.victim == "d-choice":
            drawn = [arr[self.draw(len(arr))] for _ in range(self.d)]
            return min(drawn, key=lambda ln: (self.valid(ln), drawn.index(ln)))
        raise ValueError(self.victim)

    # --- garbage collection --------------------------------------------------------------------------------
    def gc(self, min_invalid=0, background=False):
        """One pass; the pages moved, or None if it took no victim. A background pass with no closed line
        holding ``max(1, min_invalid)`` invalid pages does not ask the rule."""
        need = max(1, min_invalid)
        first_need = min_invalid if self.full_first and not background else need  # a full first victim, copied whole
        if background and not any(self.P - self.valid(ln) >= need for ln in self.closed_seq):
            return None
        self.note = None
        v = self.pick(True)
        if v is None or self.P - self.valid(v) < first_need:
            return None
        self.c["gc_passes"] += 1
        if self.note:
            self.c[self.note] += 1
        got_valid = got_invalid = n = moved = 0
        chosen = []
        while v is not None:
            nv = self.valid(v)
            got_valid, got_invalid, n = got_valid + nv, got_invalid + self.P - nv, n + 1
            self.victims.append(v)
            self.c["victims"] += 1
            self.detach(v)
            if self.select == "upfront":
                chosen.append(v)  # copied once every victim is chosen
            else:
                moved += self.collect(v)
            done = {"one": True, "valid": got_valid > self.P, "invalid": got_invalid >= self.P}[self.stop]
            if done or (self.max_victims and n >= self.max_victims):
                break
            v = self.pick(False)
        for v in chosen:
            moved += self.collect(v)
        return moved

    def gc_while(self, limit, counter=None):
        moved = 0
        while len(self.free) <= limit:
            m = self.gc()
            if m is None:
                raise RuntimeError("no victim")
            if counter:
                self.c[counter] += 1
            moved += m
        return moved

    def write(self, lpn, kind=0):
        """A host write of ``lpn`` into frontier ``kind`` (0, the host frontier, unless a placement oracle
        tags it otherwise); the reserve rule applies when that frontier needs a line."""
        moved = 0
        eager = self.host_eager and kind == 0
        if self.forced is not None:
            moved += self.gc_while(self.forced, "forced_gc_passes")
        if kind not in self.front and not eager:  # the next line, GC first: before the old copy is invalidated
            moved += self.gc_while(self.reserve)
        self.c["host_writes"] += 1
        if lpn in self.l2p:
            ln = self.l2p[lpn][0]
            if self.kind[ln] == 2:
                self.c["returned_from_cold"] += 1
            was_full = False
            if ln in self.closed_seq:
                self._tick(ln)
                was_full = self.valid(ln) == self.P
                if was_full:  # about to lose its first page
                    self._cand_add(ln)
            self.l2p.pop(lpn)
            self._changed(ln)
            if ln in self.pos and self.heap_mode == "kept":  # FEMU's mark_page_invalid
                self._bubble_up(self.pos[ln])
            elif was_full and self.heap_mode:
                self._pq_insert(ln)
        else:
            self.c["first_writes"] += 1
        if eager and kind not in self.front:  # FEMU's write pointer found none (GC copies filled it, none free)
            moved += self.gc_while(self.reserve)
        self.host_clock += 1
        self.place(kind, lpn)
        if eager and kind not in self.front:  # FEMU's write pointer: the next line now, GC first
            moved += self.gc_while(self.reserve)
            if kind not in self.front:
                self.open_line(kind)
        if self.background is not None and len(self.free) <= self.background:
            m = self.gc(self.bg_min_invalid, background=True)
            if m is None:
                self.c["skipped_background_gc"] += 1
            else:
                self.c["background_gc_passes"] += 1
                moved += m
        self.copies_before.append(moved)

    def counters(self):
        out = dict(self.c)
        for s in range(3):
            for d in range(3):
                out[f"copy_{s}_{d}"] = self.copy[s][d]
        return out
