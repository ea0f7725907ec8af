"""Geometry, GC policies and the :class:`FTL` object that owns one simulated SSD's state.

>>> ftl = FTL(GEOMETRIES["8GB"], POLICIES["2r++"])
>>> ftl.write(np.arange(1000, dtype=np.int32))
>>> ftl.waf()
1.0
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import _kernel as K


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

VICTIMS = {"greedy": K.GREEDY, "fifo": K.FIFO}
STOP_RULES = {"valid": K.STOP_VALID, "invalid": K.STOP_INVALID, "one": K.STOP_ONE}


@dataclasses.dataclass(frozen=True)
class Policy:
    """A GC policy.

    ``copy_dest[k]`` is the frontier that receives pages copied out of a kind-``k`` line (0 = normal /
    bits 00, 1 = normal second chance / 01, 2 = cold / 10). ``threshold`` is the largest utilization a
    FIFO victim may have, ``recent_fraction`` of all lines (the most recently closed) are never FIFO
    victims, ``stop`` ends multi-victim selection: "valid" once the victims' valid pages exceed one line
    (2R's wording), "invalid" once their invalid pages reach one line (2R++'s), "one" after one victim.
    ``max_victims`` caps a GC (0 = no cap).
    """

    name: str
    victim: str = "greedy"
    copy_dest: tuple[int, int, int] = (0, 0, 0)
    threshold: float = 0.4
    recent_fraction: float = 0.2
    stop: str = "one"
    max_victims: int = 0

    def __post_init__(self):
        if self.victim not in VICTIMS:
            raise ValueError(f"victim must be one of {sorted(VICTIMS)}, got {self.victim!r}")
        if self.stop not in STOP_RULES:
            raise ValueError(f"stop must be one of {sorted(STOP_RULES)}, got {self.stop!r}")
        if len(self.copy_dest) != K.N_KINDS or not all(0 <= d < K.N_KINDS for d in self.copy_dest):
            raise ValueError(f"copy_dest needs {K.N_KINDS} kinds in 0..{K.N_KINDS - 1}, got {self.copy_dest}")
        if not (0 <= self.threshold <= 1 and 0 <= self.recent_fraction < 1):
            raise ValueError("threshold must be in [0, 1] and recent_fraction in [0, 1)")

    def with_(self, **changes) -> Policy:
        return dataclasses.replace(self, **changes)


POLICIES = {
    # FEMU's blackbox FTL: least valid pages first; GC copies share the host's write pointer.
    "greedy": Policy("greedy"),
    # 2R (Kang et al., VLDB 2020) as paper 4 describes it: host writes normal, every copy goes cold.
    "2r": Policy("2r", "fifo", (2, 2, 2), stop="valid"),
    # 2R++: copies from 00 go to 01 (a second chance), from 01 and cold to cold.
    "2r++": Policy("2r++", "fifo", (1, 2, 2), stop="invalid"),
}


def get_policy(policy: str | Policy) -> Policy:
    if isinstance(policy, Policy):
        return policy
    try:
        return POLICIES[policy]
    except KeyError:
        raise ValueError(f"unknown FTL policy {policy!r}; known: {', '.join(POLICIES)}") from None


class FTL:
    """One simulated SSD: feed it host writes with :meth:`write`, read its counters."""

    def __init__(self, geometry: Geometry, policy: str | Policy, reserve_lines: int = 1):
        self.geometry = geometry
        self.policy = get_policy(policy)
        g, p = geometry, self.policy
        if not 1 <= reserve_lines < g.n_lines // 2:
            raise ValueError("reserve_lines must be at least 1 and under half the lines")
        room = (g.n_lines - reserve_lines - K.N_KINDS - 1) * g.pages_per_line
        if g.logical_pages > room:
            raise ValueError(f"{g.logical_pages} logical pages do not fit: GC needs {reserve_lines} free line(s), "
                             f"{K.N_KINDS} open frontiers and one line of slack, which leaves {room} pages")
        self.state = K.new_state(g.pages_per_line, g.n_lines, g.logical_pages)
        prm = np.zeros(K.N_PRM, np.int64)
        prm[K.P_PAGES], prm[K.P_LINES] = g.pages_per_line, g.n_lines
        prm[K.VICTIM] = VICTIMS[p.victim]
        prm[K.LIMIT] = int(np.floor(p.threshold * g.pages_per_line + 1e-9))
        prm[K.RECENT] = int(np.floor(p.recent_fraction * g.n_lines + 1e-9))
        prm[K.STOP] = STOP_RULES[p.stop]
        prm[K.RESERVE] = reserve_lines
        prm[K.MAX_VICTIMS] = p.max_victims
        self.prm = prm
        self.copy_dest = np.asarray(p.copy_dest, np.int64)
        self._no_log = np.zeros(0, np.int32)

    def write(self, lpns: np.ndarray, log_copies: np.ndarray | None = None,
              log_victims: np.ndarray | None = None) -> None:
        """Apply host writes (logical page numbers). Optional logs: see :func:`_kernel.write_chunk`."""
        lpns = np.ascontiguousarray(lpns, dtype=np.int32)
        if lpns.size and (lpns.min() < 0 or lpns.max() >= self.geometry.logical_pages):
            bad = lpns[(lpns < 0) | (lpns >= self.geometry.logical_pages)][0]
            raise ValueError(f"logical page {bad} outside 0..{self.geometry.logical_pages - 1}")
        s = self.state
        K.write_chunk(lpns, s["l2p"], s["p2l"], s["valid"], s["kind"], s["status"], s["free_q"], s["fifo"],
                      s["close_seq"], s["buckets"], s["erase_count"], s["sc"],
                      s["counters"], self.prm, self.copy_dest,
                      self._no_log if log_copies is None else log_copies,
                      self._no_log if log_victims is None else log_victims)

    @property
    def counters(self) -> dict[str, int]:
        return dict(zip(K.COUNTER_NAMES, self.state["counters"].tolist(), strict=False))

    def copies(self) -> np.ndarray:
        """3x3 copy counts, source kind by destination kind."""
        return self.state["counters"][K.COPY:].reshape(K.N_KINDS, K.N_KINDS).copy()

    def reset_counters(self) -> None:
        """Zero the counters and erase counts (after a preconditioning fill, say); the state stays."""
        self.state["counters"][:] = 0
        self.state["erase_count"][:] = 0
        self.state["sc"][K.NLOG_V] = 0

    def waf(self) -> float:
        c = self.state["counters"]
        host = int(c[K.HOST])
        return (host + int(c[K.COPY:].sum())) / host if host else float("nan")

    def check(self) -> None:
        """Verify the state's invariants (tests; O(physical pages)): raises AssertionError."""
        s, g = self.state, self.geometry
        P = g.pages_per_line
        l2p = s["l2p"]
        mapped = np.flatnonzero(l2p >= 0)
        assert len(np.unique(l2p[mapped])) == len(mapped), "two logical pages share a physical page"
        assert np.array_equal(s["p2l"][l2p[mapped]], mapped), "p2l disagrees with l2p"
        per_line = np.bincount(l2p[mapped] // P, minlength=g.n_lines)
        assert np.array_equal(per_line, s["valid"]), "valid counts disagree with the mapping"
        st = s["status"]
        assert s["sc"][K.FREE_COUNT] == np.count_nonzero(st == K.FREE), "free count"
        assert s["sc"][K.N_CLOSED] == np.count_nonzero(st == K.CLOSED), "closed count"
        assert np.all(s["valid"][st == K.FREE] == 0), "a free line holds valid pages"
