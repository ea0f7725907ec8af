"""Geometry, GC policies, GC triggers and the :class:`FTL` object that owns one simulated SSD's state.

>>> ftl = FTL(GEOMETRIES["8GB"], POLICIES["2r++"])
>>> ftl.write(np.arange(1000, dtype=np.int32))
>>> ftl.waf()
1.0
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import jitkit as jk
from . import _kernel as K
from .victims import get_victim_rule
from .victims._registry import SETTINGS, get_setting


@dataclasses.dataclass(frozen=True)
class Geometry:
    """``n_lines`` erase units (FEMU lines) of ``pages_per_line`` 4 KiB pages over ``logical_pages``."""

    pages_per_line: int
    n_lines: int
    logical_pages: int
    page_bytes: int = 4096

    def __post_init__(self):
        if min(self.pages_per_line, self.n_lines, self.logical_pages) <= 0:
            raise ValueError(f"geometry sizes must be positive: {self}")
        if self.logical_pages >= self.physical_pages - 2 * self.pages_per_line:
            raise ValueError(f"logical space ({self.logical_pages} pages) leaves less than two lines spare "
                             f"of {self.physical_pages} physical pages")
        if self.physical_pages >= 2**31:
            raise ValueError("more than 2**31 physical pages; the mapping tables are int32")

    @property
    def physical_pages(self) -> int:
        return self.pages_per_line * self.n_lines

    @property
    def spare_fraction(self) -> float:
        """Over-provisioning: spare physical space over logical space."""
        return self.physical_pages / self.logical_pages - 1

    @classmethod
    def for_logical(cls, logical_pages: int, pages_per_line: int = 64, spare: float = 0.125) -> Geometry:
        """The smallest geometry with at least ``spare`` over-provisioning (and at least 8 lines)."""
        n_lines = max(8, -(-int(np.ceil(logical_pages * (1 + spare))) // pages_per_line))
        while n_lines * pages_per_line - 2 * pages_per_line <= logical_pages:
            n_lines += 1
        return cls(pages_per_line, n_lines, logical_pages)


# Paper 4, Table 1 (FEMU blackbox SSD); the logical space is the 8 GB / 10 GB the host sees.
GEOMETRIES = {
    "8GB": Geometry(1152, 2048, 8 * 2**30 // 4096),
    "10GB": Geometry(1024, 2816, 10 * 2**30 // 4096),
}

STOP_RULES = {"valid": K.STOP_VALID, "invalid": K.STOP_INVALID, "one": K.STOP_ONE}
SELECTIONS = ("upfront", "interleaved")  # a multi-victim pass: every victim chosen before the copies, or between
HOST_LINES = ("lazy", "eager")  # when the host frontier takes its next line


@dataclasses.dataclass(frozen=True, init=False)
class Policy:
    """A GC policy: a victim rule and its settings, plus where copies go and when a pass stops taking victims.

    ``victim`` names a rule registered in :mod:`flashrepro.ftl.victims` (``VICTIM_RULES``).
    ``copy_dest[k]`` is the frontier that receives pages copied out of a kind-``k`` line (0 = normal /
    bits 00, 1 = normal second chance / 01, 2 = cold / 10). ``stop`` ends multi-victim selection:
    "valid" once the victims' valid pages exceed one line (2R's wording), "invalid" once their invalid
    pages reach one line (2R++'s), "one" after one victim. ``max_victims`` caps a GC (0 = no cap).
    ``select``: a pass with several victims chooses them all before copying any ("upfront", paper 4's
    sections 2.3 and 3.1: "희생 블록을 여러 개 선정한 후 유효한 페이지들을 병합", "선택된 희생 블록들에 위치한
    유효 페이지들은 빈 블록으로 카피백된다"), or each after the previous one was copied and erased
    ("interleaved": lines those copies close can move the 20% boundary). ``seed`` starts the splitmix64
    stream the random rules draw from (FEMU's ``gc_seed``).

    Every other keyword is a victim rule's setting, declared in the rule's file (its ``PARAMS``, which give
    each one's default, check and meaning; e.g. ``fifo_threshold``'s ``threshold``, ``strict_threshold``,
    ``recent_fraction``, ``fallback``, ``cursor`` and ``d-choice``'s ``d``): any registered rule's setting
    may be given with any rule, and is read as ``policy.<setting>`` (its default when not given).
    ``params`` holds the settings that differ from their defaults, as sorted ``(name, value)`` pairs.
    """

    name: str
    victim: str
    copy_dest: tuple[int, int, int]
    stop: str
    max_victims: int
    seed: int
    select: str
    description: str
    params: tuple[tuple[str, object], ...]

    def __init__(self, name: str, victim: str = "greedy", copy_dest: tuple[int, int, int] = (0, 0, 0), *,
                 stop: str = "one", max_victims: int = 0, seed: int = 0, select: str = "upfront",
                 description: str = "", params=(), **settings):
        get_victim_rule(victim)  # raises, listing the registered rules
        if stop not in STOP_RULES:
            raise ValueError(f"stop must be one of {sorted(STOP_RULES)}, got {stop!r}")
        if select not in SELECTIONS:
            raise ValueError(f"select must be one of {list(SELECTIONS)}, got {select!r}")
        copy_dest = tuple(copy_dest)
        if len(copy_dest) != K.N_KINDS or not all(0 <= d < K.N_KINDS for d in copy_dest):
            raise ValueError(f"copy_dest needs {K.N_KINDS} kinds in 0..{K.N_KINDS - 1}, got {copy_dest}")
        if max_victims < 0:
            raise ValueError(f"max_victims must be >= 0, got {max_victims}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        given = {**dict(params), **settings}
        for key, value in given.items():
            _setting(key).validate(value)
        changed = tuple(sorted((k, v) for k, v in given.items() if v != _setting(k).default))
        for field, value in (("name", name), ("victim", victim), ("copy_dest", copy_dest), ("stop", stop),
                             ("max_victims", max_victims), ("seed", seed), ("select", select),
                             ("description", description), ("params", changed)):
            object.__setattr__(self, field, value)

    def __getattr__(self, key: str):
        """A victim rule's setting: its value if given, else its default."""
        param = get_setting(key)
        if param is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {key!r}")
        return dict(self.__dict__.get("params", ())).get(key, param.default)

    def with_(self, **changes) -> Policy:
        """This policy with some fields or rule settings changed."""
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        settings = dict(own.pop("params"))
        for key, value in changes.items():
            (own if key in own else settings)[key] = value
        return Policy(**own, **settings)

    def rule_params(self) -> dict:
        """Every setting of the policy's victim rule, by name (defaults filled in)."""
        return {p.name: getattr(self, p.name) for p in get_victim_rule(self.victim).params}

    def describe(self) -> dict:
        """What ``flashrepro ftl-policies`` prints."""
        rule = get_victim_rule(self.victim)
        return {"victim": self.victim, "victim_rule": rule.description, "copy_dest": list(self.copy_dest),
                "stop": self.stop, "max_victims": self.max_victims, "select": self.select,
                "description": self.description,
                **{k: getattr(self, k) for k in rule.setting_names}}


def _setting(key: str):
    """The victim rules' setting called ``key``; TypeError, as for an unknown keyword, if there is none."""
    param = get_setting(key)
    if param is None:
        raise TypeError(f"Policy got an unexpected keyword argument {key!r} (the victim rules' settings: "
                        f"{', '.join(sorted(SETTINGS))})")
    return param


POLICIES = {
    "greedy": Policy("greedy", description="FEMU's blackbox FTL: fewest valid pages first; GC copies share the "
                     "host's write pointer"),
    "2r": Policy("2r", "fifo_threshold", (2, 2, 2), stop="valid",
                 description="2R (Kang et al., VLDB 2020) as paper 4 describes it: host writes normal, every "
                 "copy goes cold"),
    "2r++": Policy("2r++", "fifo_threshold", (1, 2, 2), stop="invalid", strict_threshold=True,
                   description="2R++ (paper 4): copies from 00 go to 01 (a second chance), from 01 and cold "
                   "to cold; victims strictly under the threshold"),
    "cost-benefit": Policy("cost-benefit", "cost-benefit", description="FEMU's gc_policy=cost-benefit (LFS "
                           "cleaner, logical age); copies share the host's write pointer"),
    "fifo": Policy("fifo", "fifo", description="FEMU's gc_policy=fifo: oldest closed line first; copies share "
                   "the host's write pointer"),
    "random": Policy("random", "random", description="FEMU's gc_policy=random (splitmix64, seed 0); copies share "
                     "the host's write pointer"),
    "d-choice": Policy("d-choice", "d-choice", description="FEMU's gc_policy=d-choice: least valid of 4 random "
                       "lines (seed 0); copies share the host's write pointer"),
}


def get_policy(policy: str | Policy) -> Policy:
    if isinstance(policy, Policy):
        return policy
    try:
        return POLICIES[policy]
    except KeyError:
        raise ValueError(f"unknown FTL policy {policy!r}; known: {', '.join(POLICIES)}") from None


@dataclasses.dataclass(frozen=True)
class GCTrigger:
    """When garbage collection runs. Each rule can be turned off; any victim rule works under any trigger.

    * ``reserve_lines``: when the host frontier needs a new line and at most this many lines are free,
      GC passes run until more are free (paper 4's runs: 1; 0 = only when none is free).
    * ``forced_free``: before each host write, GC passes run while free lines <=
      ``int(forced_free * lines)`` (FEMU's foreground GC, ``gc_thres_pcent_high`` = 95:
      ``(int)((1 - 0.95) * tt_lines)``). None = off.
    * ``background_free``: after each host write, if free lines <= ``int(background_free * lines)``, one
      *background* pass, which takes its victim only if the victim has at least
      ``int(background_min_invalid * pages_per_line)`` invalid pages and otherwise does nothing (FEMU's
      ``gc_thres_pcent`` = 75 and ``ipc < pgs_per_line / 8``). None = off.

    * ``host_line``: when the host frontier takes its next line. "eager": as soon as a write fills its line
      (after the reserve rule's GC), and when GC copies that share it fill it (if a line is free then), as
      FEMU's write pointer does (``ssd_advance_write_pointer``; Fig. 7's "CurBlk이 가리키는 블록이 가득 차면
      GET_NEW_BLOCK()"), so FEMU's thresholds see that line as taken. "lazy": when the next host write
      needs it, the reserve rule's GC running before that write invalidates its old page. Under the reserve
      rule alone the two give 2R and 2R++ the same passes, one write apart; they differ for policies whose
      copies share the host's line (greedy) and under FEMU's thresholds.

    Counters: ``gc_passes`` (every pass that collected), ``forced_gc_passes``, ``background_gc_passes``
    and ``skipped_background_gc``.

    FEMU tests its thresholds once per NVMe request (``ssd_write`` and the FTL thread's poll loop); a host
    write here is one page, so ``"femu"`` is FEMU with one-page requests. FEMU's forced loop gives up
    when no line can be collected; here that cannot happen (the FTL refuses settings that would let it)
    and would raise.
    """

    name: str
    reserve_lines: int = 1
    forced_free: float | None = None
    background_free: float | None = None
    background_min_invalid: float = 0.125
    host_line: str = "lazy"
    description: str = ""

    def __post_init__(self):
        if self.reserve_lines < 0:
            raise ValueError(f"reserve_lines must be >= 0, got {self.reserve_lines}")
        if self.host_line not in HOST_LINES:
            raise ValueError(f"host_line must be one of {list(HOST_LINES)}, got {self.host_line!r}")
        for f in (self.forced_free, self.background_free):
            if f is not None and not 0 <= f < 1:
                raise ValueError(f"GC trigger thresholds are fractions of the lines in [0, 1), got {f}")
        if not 0 <= self.background_min_invalid <= 1:
            raise ValueError(f"background_min_invalid must be in [0, 1], got {self.background_min_invalid}")

    def with_(self, **changes) -> GCTrigger:
        return dataclasses.replace(self, **changes)

    def lines(self, geometry: Geometry) -> tuple[int, int, int, int]:
        """``(reserve, forced, background, min_invalid)`` in lines and pages; -1 = off."""
        L, P = geometry.n_lines, geometry.pages_per_line
        forced = -1 if self.forced_free is None else int(self.forced_free * L + 1e-9)
        background = -1 if self.background_free is None else int(self.background_free * L + 1e-9)
        return self.reserve_lines, forced, background, int(self.background_min_invalid * P + 1e-9)

    def describe(self) -> dict:
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "name"}


TRIGGERS = {
    "reserve": GCTrigger("reserve", description="when the host frontier needs a line and at most reserve_lines "
                         "are free, GC until more are free (paper 4's runs)"),
    "femu": GCTrigger("femu", reserve_lines=0, forced_free=0.05, background_free=0.25, host_line="eager",
                      description="FEMU bbssd: forced GC before a write while free lines <= 5%, one background "
                      "pass after a write while <= 25% that skips victims with < P/8 invalid pages; the host's "
                      "write pointer takes its next line as soon as one fills"),
}


def get_trigger(trigger: str | GCTrigger) -> GCTrigger:
    if isinstance(trigger, GCTrigger):
        return trigger
    try:
        return TRIGGERS[trigger]
    except KeyError:
        raise ValueError(f"unknown GC trigger {trigger!r}; known: {', '.join(TRIGGERS)}") from None


class FTL:
    """One simulated SSD: feed it host writes with :meth:`write`, read its counters."""

    def __init__(self, geometry: Geometry, policy: str | Policy, trigger: str | GCTrigger = "reserve"):
        self.geometry = geometry
        self.policy = get_policy(policy)
        self.trigger = get_trigger(trigger)
        g, p, t = geometry, self.policy, self.trigger
        reserve, forced, background, min_invalid = t.lines(g)
        keep = max(reserve, forced)  # free lines GC keeps before the host frontier takes one
        if keep < 1:
            raise ValueError(f"GC trigger {t.name!r} keeps no line free on {g.n_lines} lines (reserve_lines="
                             f"{reserve}, forced GC at <= {max(forced, 0)} free lines): the host and GC copies "
                             f"would run out of free lines; set reserve_lines >= 1 or a larger forced_free")
        if keep >= g.n_lines // 2 or background >= g.n_lines:
            raise ValueError(f"GC trigger {t.name!r} keeps {keep} of {g.n_lines} lines free (background at "
                             f"{background}): under half the lines, and background under all of them")
        room = (g.n_lines - keep - K.N_KINDS - 1) * g.pages_per_line
        if g.logical_pages > room:
            raise ValueError(f"{g.logical_pages} logical pages do not fit: GC keeps {keep} free line(s) "
                             f"(trigger {t.name!r}), and with {K.N_KINDS} open frontiers and one line of slack "
                             f"that leaves {room} pages")
        rule = get_victim_rule(p.victim)
        self._pick = rule.pick
        prm = jk.scalars(K.PRM_DTYPE)[0]
        prm.pages, prm.lines = g.pages_per_line, g.n_lines
        prm.stop = STOP_RULES[p.stop]
        prm.max_victims = p.max_victims
        prm.reserve, prm.forced, prm.background, prm.bg_min_invalid = reserve, forced, background, \
            min_invalid
        prm.select_upfront = p.select == "upfront"
        prm.host_eager = t.host_line == "eager"
        rule.fill_prm(prm, p.rule_params(), g)
        self.state = K.new_state(g.pages_per_line, g.n_lines, g.logical_pages, prm, p.copy_dest, p.seed)
        if t.host_line == "eager":  # FEMU's ssd_init_write_pointer: the host's line is taken from the start
            K._open_line(self.state, 0)
        self.prm = self.state.prm[0]
        self._no_log = np.zeros(0, np.int32)
        self._no_kinds = np.zeros(0, np.int8)

    def write(self, lpns: np.ndarray, log_copies: np.ndarray | None = None,
              log_victims: np.ndarray | None = None, kinds: np.ndarray | None = None) -> None:
        """Apply host writes (logical page numbers). Optional int32 logs: see :func:`_kernel.write_chunk`.
        ``kinds``: the frontier each write goes to (int8, one per write; 0 = the host frontier, the
        default): a placement oracle's tags (:mod:`flashrepro.ftl.oracle`)."""
        lpns = np.ascontiguousarray(lpns, dtype=np.int32)
        if not lpns.flags.writeable:  # the compiled signature takes writeable arrays (never written)
            lpns = lpns.copy()
        if kinds is None:
            kinds = self._no_kinds
        else:
            kinds = np.ascontiguousarray(kinds, dtype=np.int8)
            if kinds.shape != lpns.shape:
                raise ValueError(f"kinds needs one frontier per write ({lpns.shape}), got {kinds.shape}")
            if kinds.size and (kinds.min() < 0 or kinds.max() >= K.N_KINDS):
                raise ValueError(f"kinds must be frontiers 0..{K.N_KINDS - 1}")
            if not kinds.flags.writeable:
                kinds = kinds.copy()
        if lpns.size and (lpns.min() < 0 or lpns.max() >= self.geometry.logical_pages):
            bad = lpns[(lpns < 0) | (lpns >= self.geometry.logical_pages)][0]
            raise ValueError(f"logical page {bad} outside 0..{self.geometry.logical_pages - 1}")
        logs = [self._no_log if a is None else a for a in (log_copies, log_victims)]
        for a in logs:
            if a.dtype != np.int32 or a.ndim != 1 or not a.flags.c_contiguous or not a.flags.writeable:
                raise ValueError(f"logs must be writeable 1-D contiguous int32 arrays, got {a.dtype} {a.shape}")
        K.write_chunk(lpns, self.state, self._pick, *logs, kinds)

    @property
    def counters(self) -> dict[str, int]:
        return dict(zip(K.COUNTER_NAMES, self.state.counters.tolist(), strict=True))

    def copies(self) -> np.ndarray:
        """3x3 copy counts, source kind by destination kind."""
        return self.state.counters[K.COPY:].reshape(K.N_KINDS, K.N_KINDS).copy()

    def reset_counters(self) -> None:
        """Zero the counters and erase counts (after a preconditioning fill, say); the state stays."""
        self.state.counters[:] = 0
        self.state.erase_count[:] = 0
        self.state.sc[0].nlog_v = 0

    def waf(self) -> float:
        c = self.state.counters
        host = int(c[K.HOST])
        return (host + int(c[K.COPY:].sum())) / host if host else float("nan")

    def check(self) -> None:
        """Verify the state's invariants (tests; O(physical pages)): raises AssertionError."""
        s, g = self.state, self.geometry
        P, L = g.pages_per_line, g.n_lines
        l2p = s.l2p
        mapped = np.flatnonzero(l2p >= 0)
        assert len(np.unique(l2p[mapped])) == len(mapped), "two logical pages share a physical page"
        assert np.array_equal(s.p2l[l2p[mapped]], mapped), "p2l disagrees with l2p"
        W = (P + 63) // 64
        bits = np.unpackbits(K.unpack_order(s)["page_bits"].view(np.uint8), bitorder="little").reshape(L, W * 64)
        want = np.zeros((L, W * 64), np.uint8)
        want[l2p[mapped] // P, l2p[mapped] % P] = 1
        assert np.array_equal(bits, want), "the valid-page bitmap disagrees with the mapping"
        per_line = np.bincount(l2p[mapped] // P, minlength=L)
        assert np.array_equal(per_line, s.valid), "valid counts disagree with the mapping"
        st = s.status
        closed = np.flatnonzero(st == K.CLOSED)
        assert s.sc[0].free_count == np.count_nonzero(st == K.FREE), "free count"
        assert s.sc[0].n_closed == len(closed), "closed count"
        assert np.all(s.valid[st == K.FREE] == 0), "a free line holds valid pages"
        fifo = jk.list_back_to_front(s.fifo, L, len(closed))[::-1]
        assert np.array_equal(fifo, closed[np.argsort(s.close_seq[closed])]), "FIFO is not the close order"
        in_bucket = np.zeros(L, bool)
        for v in range(P + 1):  # each bucket: its closed lines in the order they took that count
            x, last = jk.list_front(s.buckets, L + v), -1
            while x != L + v:
                assert s.valid[x] == v and st[x] == K.CLOSED, f"line {x} in bucket {v}"
                assert s.entered[x] > last, f"bucket {v} out of order at line {x}"
                in_bucket[x], last = True, s.entered[x]
                x = jk.list_next(s.buckets, x)
        assert np.array_equal(np.flatnonzero(in_bucket), closed), "buckets hold other lines than the closed ones"
        n = int(s.sc[0].n_cands)
        cands = s.cands[:n]
        want = closed[s.valid[closed] < P]
        assert np.array_equal(np.sort(cands), want), "candidates are not the closed lines with an invalid page"
        assert np.array_equal(s.cand_pos[cands], np.arange(n)), "candidate positions"
        assert np.count_nonzero(s.cand_pos >= 0) == n, "stale candidate positions"
        assert s.sc[0].bmin <= (s.valid[want].min() if n else P), "BMIN above the least-valid candidate"
        if s.prm[0].heap:
            h = int(s.sc[0].heap_size)
            heap = s.heap[1:h + 1]
            assert np.array_equal(np.sort(heap), want), "the victim heap holds other lines than the candidates"
            assert np.array_equal(s.hpos[heap], np.arange(1, h + 1)), "heap positions"
            assert np.count_nonzero(s.hpos) == h, "stale heap positions"
            if s.prm[0].heap == K.HEAP_KEPT:
                assert np.all(s.valid[heap[1:]] >= s.valid[heap[np.arange(2, h + 1) // 2 - 1]]), "heap order"
        if s.prm[0].age_lists:
            self._check_age_lists(closed)
        if s.prm[0].slots:
            self._check_slots(closed)

    def _check_age_lists(self, closed) -> None:
        """Synced at rest (write_chunk syncs at its end): each closed line under its valid count, row v of
        ``age_slots`` holding exactly the slots of the closed lines with v < P valid pages, and the non-empty
        rows' bits."""
        s, P, L = self.state, self.geometry.pages_per_line, self.geometry.n_lines
        o = K.unpack_order(s)
        assert s.sc[0].n_age_log == 0, "age rows not synced at the end of a chunk"
        assert np.array_equal(o["age_v"][closed], s.valid[closed]), "a closed line under another count"
        assert np.count_nonzero(o["age_v"] >= 0) == len(closed), "age_v of a line not closed"
        n0 = (2 * L + 63) // 64
        w = n0 + (n0 + 63) // 64 + ((n0 + 63) // 64 + 63) // 64
        rows = o["age_slots"].reshape(P, w)[:, :n0]
        for v in range(P):
            members = np.flatnonzero(np.unpackbits(rows[v].view(np.uint8), bitorder="little"))
            want = np.sort(o["slot_of"][closed[s.valid[closed] == v]])
            assert np.array_equal(members, want), f"age row {v}"
            assert o["age_head"][v] == (want[0] if len(want) else -1), f"age row {v}: its first slot"
            assert ((int(o["age_bits"][v >> 6]) >> (v & 63)) & 1) == (len(want) > 0), f"age bit {v}"

    def _check_slots(self, closed) -> None:
        """Slots increase in close order; each bitset holds exactly the slots of its lines, and its upper
        levels mark exactly its non-empty words."""
        s, P, L = self.state, self.geometry.pages_per_line, self.geometry.n_lines
        o = K.unpack_order(s)
        n = int(s.sc[0].n_slots)
        by_close = closed[np.argsort(s.close_seq[closed])]
        slots = o["slot_of"][by_close]
        assert np.all(np.diff(slots) > 0) and (len(slots) == 0 or (slots[0] >= 0 and slots[-1] < n)), "slot order"
        assert np.array_equal(o["slot_line"][slots], by_close), "slot_line"
        assert np.count_nonzero(o["slot_line"] >= 0) == len(closed), "vacated slots"
        assert np.count_nonzero(o["slot_of"] >= 0) == len(closed), "slot_of of a line not closed"
        seq = o["slot_seq"]
        assert np.array_equal(seq[slots], s.close_seq[by_close]) and np.all(np.diff(seq[:n]) > 0), "slot_seq"
        v, cold = s.valid[by_close], s.kind[by_close] == K.COLD
        limit = s.prm[0].limit
        want = {K.SLOT_UNDER: slots[(v <= limit) & ~cold], K.SLOT_UNDER_COLD: slots[(v <= limit) & cold],
                K.SLOT_HAS_INVALID: slots[v < P]}
        n0 = (2 * L + 63) // 64
        n1 = (n0 + 63) // 64
        for which, members in want.items():
            words = K.slot_bitset(o["slot_bits"], L, which)
            level0 = np.unpackbits(words[:n0].view(np.uint8), bitorder="little")
            assert np.array_equal(np.flatnonzero(level0), members), f"slot bitset {which}"
            level1 = np.unpackbits(words[n0:n0 + n1].view(np.uint8), bitorder="little")[:n0]
            assert np.array_equal(level1 != 0, words[:n0] != 0), f"slot bitset {which}, level 1"
            level2 = np.unpackbits(words[n0 + n1:].view(np.uint8), bitorder="little")[:n1]
            assert np.array_equal(level2 != 0, words[n0:n0 + n1] != 0), f"slot bitset {which}, level 2"
