"""The request-level :class:`Trace` (a struct of arrays) and its page-level expansion :class:`PageRefs`."""

from __future__ import annotations

import dataclasses
from enum import IntEnum
from functools import cached_property

import numpy as np
from numba import njit


class Op(IntEnum):
    """Request operation codes stored in ``Trace.op`` (int8)."""

    READ = 0
    WRITE = 1
    FLUSH = 2  # no data; carried through, expands to no page reference
    TRIM = 3  # discard; carried through, expands to no page reference


@dataclasses.dataclass(frozen=True, eq=False)
class Trace:
    """A block I/O trace: one row per request.

    Parameters
    ----------
    time_s : float64 array, seconds from the first request (all zeros for formats without time)
    op : int8 array of :class:`Op` codes
    offset_bytes, size_bytes : int64 arrays
    name : short label used in tables and figures
    source : where the requests came from (a file path or a generator call)
    meta : free-form facts about the reading, e.g. how many records were dropped and why
    """

    time_s: np.ndarray
    op: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    name: str = "trace"
    source: str = ""
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        cols = {}
        for field, dtype in (("time_s", np.float64), ("op", np.int8),
                             ("offset_bytes", np.int64), ("size_bytes", np.int64)):
            a = np.ascontiguousarray(getattr(self, field), dtype=dtype)
            if a.ndim != 1:
                raise ValueError(f"Trace {self.name!r}: {field} must be one-dimensional")
            cols[field] = a
            object.__setattr__(self, field, a)
        n = {len(a) for a in cols.values()}
        if len(n) != 1:
            raise ValueError(f"Trace {self.name!r}: columns have different lengths {sorted(n)}")
        if len(self.op) == 0:
            raise ValueError(f"Trace {self.name!r} from {self.source or 'memory'} is empty")
        bad = np.flatnonzero((self.op < 0) | (self.op > max(Op)))
        if bad.size:
            raise ValueError(f"Trace {self.name!r}: unknown op code {int(self.op[bad[0]])} at request {bad[0]}")
        for field in ("offset_bytes", "size_bytes"):
            bad = np.flatnonzero(cols[field] < 0)
            if bad.size:
                raise ValueError(f"Trace {self.name!r}: negative {field} {int(cols[field][bad[0]])} "
                                 f"at request {bad[0]}")
        if not np.all(np.isfinite(self.time_s)):
            raise ValueError(f"Trace {self.name!r}: time_s has NaN or infinite values")

    def __len__(self) -> int:
        return len(self.op)

    def __repr__(self) -> str:
        return (f"Trace({self.name!r}, {len(self)} requests, {self.n_reads} reads, {self.n_writes} writes, "
                f"source={self.source!r})")

    @property
    def n_reads(self) -> int:
        return int(np.count_nonzero(self.op == Op.READ))

    @property
    def n_writes(self) -> int:
        return int(np.count_nonzero(self.op == Op.WRITE))

    def head(self, n: int) -> Trace:
        """The first ``n`` requests (the whole trace if it is shorter)."""
        if n >= len(self):
            return self
        return Trace(self.time_s[:n], self.op[:n], self.offset_bytes[:n], self.size_bytes[:n],
                     name=self.name, source=self.source, meta={**self.meta, "head": n})

    def to_pages(self, page_bytes: int = 4096) -> PageRefs:
        """Expand requests into page references; a request straddling page boundaries touches every page
        it overlaps. FLUSH, TRIM and zero-size requests produce no reference. Cached per page size."""
        cache = self.__dict__.setdefault("_pages", {})
        if page_bytes not in cache:
            cache[page_bytes] = _expand(self, int(page_bytes))
        return cache[page_bytes]

    def stats(self, page_bytes: int = 4096) -> dict:
        """Summary statistics (counts, bytes, footprint, duration) as a JSON-ready dict."""
        rw = (self.op == Op.READ) | (self.op == Op.WRITE)
        sizes = self.size_bytes[rw]
        pages = self.to_pages(page_bytes)
        return {
            "name": self.name,
            "source": self.source,
            "requests": len(self),
            "reads": self.n_reads,
            "writes": self.n_writes,
            "other_ops": int(len(self) - rw.sum()),
            "read_bytes": int(self.size_bytes[self.op == Op.READ].sum()),
            "write_bytes": int(self.size_bytes[self.op == Op.WRITE].sum()),
            "mean_request_bytes": float(sizes.mean()) if sizes.size else 0.0,
            "page_bytes": page_bytes,
            "page_references": len(pages),
            "write_page_references": int(pages.is_write.sum()),
            "footprint_pages": pages.n_unique,
            "footprint_bytes": pages.n_unique * page_bytes,
            "duration_s": float(self.time_s[-1] - self.time_s[0]),
        }


def _expand(trace: Trace, page_bytes: int) -> PageRefs:
    if page_bytes <= 0:
        raise ValueError(f"page_bytes must be positive, got {page_bytes}")
    page, is_write, req = _expand_kernel(trace.op, trace.offset_bytes, trace.size_bytes, page_bytes)
    return PageRefs(page=page, is_write=is_write, req=req, page_bytes=page_bytes, name=trace.name)


@njit(cache=True)
def _expand_kernel(op, offset, size, page_bytes):
    n = op.shape[0]
    total = 0
    for i in range(n):
        if (op[i] == 0 or op[i] == 1) and size[i] > 0:
            total += (offset[i] + size[i] - 1) // page_bytes - offset[i] // page_bytes + 1
    page = np.empty(total, np.int64)
    is_write = np.empty(total, np.bool_)
    req = np.empty(total, np.int64)
    k = 0
    for i in range(n):
        if (op[i] == 0 or op[i] == 1) and size[i] > 0:
            first = offset[i] // page_bytes
            last = (offset[i] + size[i] - 1) // page_bytes
            for q in range(first, last + 1):
                page[k] = q
                is_write[k] = op[i] == 1
                req[k] = i
                k += 1
    return page, is_write, req


@dataclasses.dataclass(frozen=True, eq=False)
class PageRefs:
    """Page references: ``page[i]`` (page number = byte offset // page_bytes), ``is_write[i]``, and
    ``req[i]``, the index of the request it came from."""

    page: np.ndarray
    is_write: np.ndarray
    req: np.ndarray
    page_bytes: int = 4096
    name: str = "trace"

    def __len__(self) -> int:
        return len(self.page)

    @cached_property
    def _remap(self) -> tuple[np.ndarray, np.ndarray]:
        return dense_remap(self.page)

    @property
    def dense(self) -> np.ndarray:
        """Page ranks 0..U-1 that preserve order: ``dense[i] < dense[j]`` iff ``page[i] < page[j]``.

        Computed once per PageRefs. Kernels index arrays of size U with these instead of hashing, and
        ordered policies can walk LSN neighbours as rank +- 1 among resident pages.
        """
        return self._remap[0]

    @property
    def unique_pages(self) -> np.ndarray:
        """Sorted distinct page numbers; ``unique_pages[dense[i]] == page[i]``."""
        return self._remap[1]

    @property
    def n_unique(self) -> int:
        return len(self.unique_pages)


def dense_remap(page: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order-preserving ranks of ``page`` and the sorted distinct values.

    When the page numbers span a range not much larger than the number of references, a
    bitmap + prefix sum gives the ranks in O(N + span) instead of np.unique's O(N log N) sort.
    Both paths give identical results (tests/test_trace.py checks it).
    """
    page = np.asarray(page, dtype=np.int64)
    if page.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo, hi = int(page.min()), int(page.max())
    span = hi - lo + 1
    if span <= 8 * page.size + 1024:
        present = np.zeros(span, dtype=np.bool_)
        present[page - lo] = True
        rank = np.cumsum(present, dtype=np.int64) - 1
        uniq = np.flatnonzero(present).astype(np.int64) + lo
        return rank[page - lo], uniq
    uniq, inverse = np.unique(page, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), uniq
