"""Write-stream models of a growing OLTP database (paper 4's TPC-C and LinkBench), and the trace statistics
the paper shows for them: Fig. 1 (share of writes on the most-written pages) and Fig. 2 (frozen pages).

The model, :class:`GrowingDB`:

* The database starts at ``initial_pages`` (loaded before measurement: the stream's ``prefill``) and
  grows linearly to ``final_pages``: the write that makes it grow is the first write of the next logical
  page, so pages are numbered in creation order.
* A new page is *insert-only* with probability ``insert_only`` (rows are appended, never updated: it is
  written once and then frozen, like TPC-C's history and order-line pages). Otherwise it gets a fixed
  popularity ``u ** -skew`` with ``u`` uniform in (0, 1], a Zipf-like law where the page at popularity
  quantile ``u`` is updated ``u ** -skew`` times as often as the least popular one.
* Every other write updates an existing non-insert-only page, chosen in proportion to popularity.
  Popularity is held in ``classes_per_halving`` classes per halving of ``u`` (64 classes), so a draw is
  a binary search over 64 class weights and a uniform pick inside a class: O(1) per write.

Two parameters, ``skew`` and ``insert_only``, are fitted to the two statistics the paper gives (Fig. 1:
the 20% most-written pages take 90% (TPC-C) / 80% (LinkBench) of the writes; Fig. 2: 40% of the space
is frozen at 60% progress) by :func:`calibrate`, and to nothing else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
from numba import njit

from ..jitkit import PREFETCH_DISTANCE as PREFETCH
from ..jitkit import prefetch

N_CLASSES = 64


_STEPS = (32, 16, 8, 4, 2, 1)  # binary lifting over N_CLASSES - 1 = 63 cumulative weights
assert N_CLASSES == 64


@njit(cache=True, inline="always")
def _draw(u0, u1, start, cnt, cum):
    """The index in ``members`` of an update drawn by the uniforms ``u0`` (class) and ``u1`` (page in it).

    The class is the first whose cumulative weight exceeds ``u0`` times the total (the last if none): ``cum`` is
    non-decreasing, so that is the count of ``cum[:N_CLASSES - 1]`` at or under the draw, found by binary lifting
    (six steps, no data-dependent branch)."""
    x = u0 * cum[N_CLASSES - 1]
    k = 0
    for step in _STEPS:
        k += step * np.int64(cum[k + step - 1] <= x)
    while cnt[k] == 0:  # guard against rounding at the top of the cumulative sum
        k -= 1
    return start[k] + int(u1 * cnt[k])


@njit(cache=True, nogil=True)
def _db_writes(pos, n_writes, initial, final, u, klass, members, start, cnt, weight, cum, out):
    """Writes ``pos .. pos + len(out) - 1`` of the stream; two uniforms per write in ``u``.

    Each update's page is drawn ``PREFETCH`` writes ahead (:data:`flashrepro.jitkit.PREFETCH_DISTANCE`) and
    prefetched (a random read in megabytes). The draw is kept with the number of
    weight changes so far (``ver``: a created page that is not insert-only changes them); an update whose draw
    was made under other weights draws again, so every write is drawn with the weights of its own moment."""
    n = out.shape[0]
    ring = np.empty(2 * PREFETCH, np.int64)  # the draw of write a at a % (2 PREFETCH), and its ver
    ring_ver = np.full(2 * PREFETCH, -1, np.int64)
    ver = 0
    grow = final - initial  # at most n_writes: the size grows by 0 or 1 page per write
    q = (grow * pos) // n_writes  # pages created before write i: (grow * i) // n_writes, kept with its remainder
    r = grow * pos - q * n_writes
    for j in range(n):
        a = j + PREFETCH
        if a < n:
            d = _draw(u[2 * a], u[2 * a + 1], start, cnt, cum)
            ring[a % (2 * PREFETCH)] = d
            ring_ver[a % (2 * PREFETCH)] = ver
            prefetch(members, d)
        r += grow
        if r >= n_writes:  # (grow * (i + 1)) // n_writes passed q: the next page is created
            r -= n_writes
            size_before = initial + q
            q += 1
            out[j] = size_before
            k = klass[size_before]  # its class (-1: insert-only)
            if k >= 0:
                cnt[k] += 1
                acc = 0.0
                for c in range(N_CLASSES):
                    acc += cnt[c] * weight[c]
                    cum[c] = acc
                ver += 1
            continue
        at = j % (2 * PREFETCH)
        d = ring[at] if ring_ver[at] == ver else _draw(u[2 * j], u[2 * j + 1], start, cnt, cum)
        out[j] = members[d]


@dataclasses.dataclass
class Growth:
    """What every growing-database write model shares: loaded at ``initial_pages`` (the prefill), grown to
    ``final_pages`` within ``logical_pages`` over ``n_writes`` writes, with a popularity ``skew``."""

    name: str
    logical_pages: int
    initial_pages: int
    final_pages: int
    n_writes: int
    skew: float

    def __post_init__(self):
        if not 0 < self.initial_pages <= self.final_pages <= self.logical_pages:
            raise ValueError("need 0 < initial_pages <= final_pages <= logical_pages")
        if self.final_pages - self.initial_pages > self.n_writes:
            raise ValueError("the database cannot grow by more pages than there are writes")

    @property
    def prefill(self) -> int:
        return self.initial_pages


@dataclasses.dataclass
class GrowingDB(Growth):
    """A seeded write stream of ``n_writes`` page writes; see the module docstring."""

    insert_only: float
    seed: int = 0
    classes_per_halving: int = 4

    def __post_init__(self):
        super().__post_init__()
        if not (0 <= self.insert_only < 1 and self.skew >= 0):
            raise ValueError("need 0 <= insert_only < 1 and skew >= 0")

    def classes(self) -> np.ndarray:
        """Class of every page in creation order (-1 = insert-only); the initial pages are never all
        insert-only (one is made updatable) so there is always something to update."""
        rng = np.random.default_rng([self.seed, 1])
        n = self.final_pages
        ins = rng.random(n) < self.insert_only
        u = 1.0 - rng.random(n)  # (0, 1]
        k = np.minimum(np.floor(-np.log2(u) * self.classes_per_halving), N_CLASSES - 1).astype(np.int64)
        k[ins] = -1
        if np.all(k[: self.initial_pages] < 0):
            k[0] = 0
        return k

    def class_weights(self) -> np.ndarray:
        mid = (np.arange(N_CLASSES) + 0.5) / self.classes_per_halving  # -log2(u) at the class middle
        return np.exp2(self.skew * mid)

    def chunks(self, size: int = 1 << 22) -> Iterator[np.ndarray]:
        k = self.classes()
        order = np.argsort(np.where(k < 0, N_CLASSES, k), kind="stable")  # by class, then creation order
        counts = np.bincount(k[k >= 0], minlength=N_CLASSES)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        members = order.astype(np.int32)  # pages grouped by class, each in creation order (int32: fewer cache misses)
        weight = self.class_weights()
        cnt = np.bincount(k[: self.initial_pages][k[: self.initial_pages] >= 0], minlength=N_CLASSES).astype(np.int64)
        cum = np.cumsum(cnt * weight)
        rng = np.random.default_rng([self.seed, 2])
        u = np.empty(2 * min(size, self.n_writes))  # the uniforms: one buffer (a new one per chunk faults its pages in)
        pos = 0
        while pos < self.n_writes:
            m = min(size, self.n_writes - pos)
            out = np.empty(m, np.int32)
            _db_writes(pos, self.n_writes, self.initial_pages, self.final_pages, rng.random(out=u[:2 * m]), k, members,
                       start, cnt, weight, cum, out)
            pos += m
            yield out


# ---------------------------------------------------------------------------------------------------
# statistics of a write stream (Figs. 1 and 2)

@njit(cache=True, nogil=True)
def _count(lpns, pos, pairs):
    """Page ``p``'s write count in ``pairs[2p]`` and its last write's index in ``pairs[2p + 1]``: one cache line
    per write instead of two, fetched ``PREFETCH`` writes ahead (the pages are spread over megabytes)."""
    n = lpns.shape[0]
    for j in range(n):
        if j + PREFETCH < n:
            prefetch(pairs, 2 * np.int64(lpns[j + PREFETCH]))
        p = 2 * np.int64(lpns[j])
        pairs[p] += 1
        pairs[p + 1] = pos + j


@dataclasses.dataclass
class StreamStats:
    """Per-page write counts and the index of each page's last write (-1: only the prefill wrote it,
    -2: never written) over the measured writes of a stream."""

    counts: np.ndarray
    last: np.ndarray
    n_writes: int

    def top_share(self, page_fraction: float = 0.2) -> float:
        """Share of writes taken by the ``page_fraction`` most-written pages of the logical space."""
        c = np.sort(self.counts)[::-1]
        return float(c[: int(round(page_fraction * len(c)))].sum() / c.sum())

    def cdf(self, points: int = 101) -> tuple[np.ndarray, np.ndarray]:
        """Fig. 1: pages sorted by writes (x: share of pages), cumulative share of writes (y)."""
        c = np.sort(self.counts)[::-1]
        y = np.concatenate([[0.0], np.cumsum(c) / c.sum()])
        x = np.linspace(0, 1, points)
        return x, y[np.round(x * len(c)).astype(np.int64)]

    def frozen(self, progress) -> np.ndarray:
        """Fig. 2: share of the logical space written (or loaded) by ``progress`` and never again."""
        progress = np.atleast_1d(np.asarray(progress, float))
        written = np.sort(self.last[self.last >= -1])
        cut = progress * self.n_writes
        return np.searchsorted(written, cut, side="left") / len(self.last)


class StatsTap:
    """Accumulates :class:`StreamStats` chunk by chunk (call it with each chunk, in order): a stream's
    statistics gathered while the stream feeds a simulation, without generating it again."""

    def __init__(self, stream):
        self.pairs = np.zeros(2 * stream.logical_pages, np.int64)  # count, last write of each page (_count)
        self.pairs[1::2] = -2
        self.pairs[1:2 * stream.prefill:2] = -1
        self.pos = 0

    def __call__(self, arr: np.ndarray) -> None:
        _count(np.ascontiguousarray(arr, np.int32), self.pos, self.pairs)
        self.pos += len(arr)

    @property
    def last(self) -> np.ndarray:
        """Each page's last write so far (as :class:`StreamStats`' ``last``; a copy)."""
        return self.pairs[1::2].copy()

    def stats(self) -> StreamStats:
        return StreamStats(self.pairs[0::2].copy(), self.last, self.pos)


def stream_stats(stream, chunk: int = 1 << 22) -> StreamStats:
    tap = StatsTap(stream)
    for arr in stream.chunks(chunk):
        tap(arr)
    return tap.stats()


def calibrate(base, top20: float, frozen60: float, rounds: int = 2, steps: int = 8, progress=None, *,
              frozen_field: str = "insert_only", frozen_hi: float = 0.95, skew_hi: float = 4.0):
    """Fit ``skew`` (in [0, ``skew_hi``]) to the top-20% write share and ``frozen_field`` (in [0,
    ``frozen_hi``]; ``insert_only`` of a :class:`GrowingDB`) to the frozen share at 60% progress by
    alternating bisections (each statistic moves mostly with its own parameter). Returns the fitted model
    and every evaluation."""
    history = []

    def measure(m):
        s = stream_stats(m)
        row = {"skew": m.skew, frozen_field: getattr(m, frozen_field), "top20": s.top_share(0.2),
               "frozen60": float(s.frozen(0.6)[0])}
        history.append(row)
        if progress:
            progress(row)
        return row

    def bisect(model, field, hi, stat, target):
        """The value of ``field`` in [0, hi] where ``stat`` (increasing in it) crosses ``target``."""
        lo = 0.0
        for _ in range(steps):
            mid = (lo + hi) / 2
            if measure(dataclasses.replace(model, **{field: mid}))[stat] < target:
                lo = mid
            else:
                hi = mid
        return dataclasses.replace(model, **{field: round((lo + hi) / 2, 5)})

    model = base
    for _ in range(rounds):
        model = bisect(model, frozen_field, frozen_hi, "frozen60", frozen60)
        model = bisect(model, "skew", skew_hi, "top20", top20)
    measure(model)
    return model, history
