"""One-pass LRU miss-ratio curve from Mattson stack distances (Fenwick tree, O(N log N))."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .. import jitkit as jk
from ..traces.trace import PageRefs, Trace


@njit(cache=True)
def _stack_distances(pages, n_unique):
    """For each reference, the number of distinct pages referenced since the previous reference to the
    same page (its LRU stack depth minus one), or -1 for a first reference.

    A Fenwick tree over reference times holds a 1 at the latest reference time of every page, so the
    distinct pages since time ``t`` are the marks after ``t``.
    """
    n = pages.shape[0]
    tree = jk.fenwick_new(n)
    last = np.full(n_unique, -1, np.int64)
    dist = np.empty(n, np.int64)
    total = 0  # marks in the tree
    for i in range(n):
        p = pages[i]
        t = last[p]
        if t < 0:
            dist[i] = -1
        else:
            dist[i] = total - jk.fenwick_before(tree, t + 1)
            jk.fenwick_add(tree, t, -1)
            total -= 1
        jk.fenwick_add(tree, i, 1)
        total += 1
        last[p] = i
    return dist


@dataclasses.dataclass(frozen=True)
class MissRatioCurve:
    """LRU misses for every cache size: ``misses(c)`` for c pages, from one pass."""

    hits_at_distance: np.ndarray  # hits_at_distance[d]: references with stack distance d
    cold_misses: int
    references: int

    def misses(self, capacity_pages) -> np.ndarray:
        """LRU misses at each capacity (pages); a reference at distance d hits iff d < capacity."""
        cum = np.concatenate([[0], np.cumsum(self.hits_at_distance)])
        c = np.minimum(np.asarray(capacity_pages, dtype=np.int64), len(self.hits_at_distance))
        return self.references - cum[c]

    def miss_ratio(self, capacity_pages) -> np.ndarray:
        return self.misses(capacity_pages) / self.references


def lru_mrc(trace: Trace | PageRefs, page_bytes: int = 4096) -> MissRatioCurve:
    """The LRU miss-ratio curve of a trace (all capacities from one pass)."""
    refs = trace.to_pages(page_bytes) if isinstance(trace, Trace) else trace
    d = _stack_distances(refs.dense, refs.n_unique)
    hist = np.bincount(d[d >= 0], minlength=refs.n_unique)
    return MissRatioCurve(hist, int((d < 0).sum()), len(d))
