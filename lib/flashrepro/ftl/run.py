"""Drive one or more FTLs with a write stream, chunk by chunk, and record counters at each tenth.

A *write stream* is any object with ``name``, ``logical_pages``, ``n_writes``, ``prefill`` (logical
pages ``0 .. prefill-1`` are written once, in order, before measurement starts: the fio file laid out
or the initial database loaded) and ``chunks(size)``, an iterator of int32 logical page arrays that
together hold ``n_writes`` writes. The stream is generated once and fed to every FTL, so policies are
compared on the same writes; the FTL kernels release the GIL, so FTLs run on ``threads`` cores.
"""

from __future__ import annotations

import dataclasses
import queue
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from . import _kernel as K
from .device import FTL, GCTrigger, Geometry, Policy, get_policy, get_trigger

QUEUE = 4  # chunks an FTL may fall behind the stream's generator (each chunk is 16 MiB at the default size)


@dataclasses.dataclass
class ArrayStream:
    """A write stream from an array of logical pages, repeated ``repeat`` times (for short real traces)."""

    name: str
    lpns: np.ndarray
    logical_pages: int
    prefill: int = 0
    repeat: int = 1

    @property
    def n_writes(self) -> int:
        return len(self.lpns) * self.repeat

    def chunks(self, size: int) -> Iterator[np.ndarray]:
        a = np.ascontiguousarray(self.lpns, dtype=np.int32)
        for _ in range(self.repeat):
            for i in range(0, len(a), size):
                yield a[i:i + size]


@dataclasses.dataclass
class FTLRun:
    """Counters of each policy at the end of each slice (cumulative), plus per-line erase counts."""

    workload: str
    geometry: Geometry
    slices: pl.DataFrame  # workload, policy, slice, progress, host_writes, ... (cumulative)
    erase_counts: dict[str, np.ndarray]  # by policy (``policy@trigger`` when the triggers differ by policy)
    seconds: float
    tap: object = None  # the ``tap`` the run fed every chunk to, if any
    shares: int = 1  # runs whose FTLs ran side by side on one stream in ``seconds`` (see :meth:`split`)

    def split(self, triggers: Sequence[str]) -> list[FTLRun]:
        """A run under one trigger per policy (``trigger`` a sequence) as one run per trigger in ``triggers``,
        each as if run alone: its rows without the ``trigger`` column, in the same order, and its erase counts
        by policy. The stream was generated once for all of them, so each keeps the shared wall time
        (``shares`` says by how many runs); the ``tap`` stays with the first."""
        if "trigger" not in self.slices.columns:
            raise ValueError("split needs a run with a trigger per policy")
        out = []
        for i, t in enumerate(triggers):
            name = get_trigger(t).name
            rows = self.slices.filter(pl.col("trigger") == name).drop("trigger")
            if rows.height == 0:
                raise ValueError(f"{self.workload}: no policy ran under trigger {name!r}")
            erase = {k[:-len(name) - 1]: v for k, v in self.erase_counts.items() if k.endswith("@" + name)}
            out.append(FTLRun(self.workload, self.geometry, rows, erase, self.seconds, self.tap if i == 0 else None,
                              len(triggers)))
        return out


def run(stream, policies: Sequence[str | Policy], geometry: Geometry, slices: int = 10,
        chunk: int = 1 << 22, threads: int = 2, trigger: str | GCTrigger | Sequence = "reserve",
        progress: bool = True, tap=None, kinds=None) -> FTLRun:
    """Feed ``stream`` to one FTL per policy, all under GC ``trigger``; return cumulative counters at each
    of ``slices`` equal parts.

    ``trigger`` may also be a sequence of one trigger per policy: the rows then carry a ``trigger`` column
    (the trigger's name), and two FTLs may share a policy name under different triggers. ``kinds``: a
    placement oracle's tagger (:class:`flashrepro.ftl.oracle.FinalWrites`): ``kinds.prefill(n)`` tags the
    prefill and ``kinds(chunk)`` each chunk, in order, on the generator's thread; every FTL of the run
    places its host writes by those tags.

    The stream is generated once, chunk by chunk, on its own thread. Each FTL has a thread of its own and
    a short queue of chunks, and at most ``threads`` FTL kernels run at once (they release the GIL). The
    FTLs do not wait for each other after each chunk: a fast policy runs ahead of a slow one by up to
    ``QUEUE`` chunks, so the cores stay busy when the policies' garbage collection costs differ.
    ``tap``: a callable given every chunk, in order, on the generator's thread (e.g. a
    :class:`flashrepro.traces.oltp.StatsTap`, to describe the stream without generating it again)."""
    if stream.logical_pages > geometry.logical_pages:
        raise ValueError(f"{stream.name}: stream spans {stream.logical_pages} logical pages, the geometry "
                         f"{geometry.logical_pages}")
    pols, triggers, per_policy = _setups(policies, trigger)
    ftls = [FTL(geometry, p, t) for p, t in zip(pols, triggers, strict=True)]
    t0 = time.perf_counter()
    tally = _Slices(stream, [p.name for p in pols], [{"trigger": t.name} if per_policy else {} for t in triggers],
                    slices, progress, t0)
    fan = _Fanout(len(ftls), threads)
    prefill_tags = kinds.prefill(stream.prefill) if kinds is not None and stream.prefill else None
    with ThreadPoolExecutor(len(ftls)) as pool:
        workers = [pool.submit(fan.guarded, _consume, fan, i, f, stream, tally, prefill_tags)
                   for i, f in enumerate(ftls)]
        fan.produce(stream.chunks(chunk), tap, kinds)
        done = [w.result() for w in workers]  # raises the first FTL's error
    if any(pos != stream.n_writes for pos in done):
        raise RuntimeError(f"{stream.name}: stream produced {max(done)} writes, announced {stream.n_writes}")
    erase_counts = {(f"{p.name}@{t.name}" if per_policy else p.name): f.state.erase_count.copy()
                    for p, t, f in zip(pols, triggers, ftls, strict=True)}
    return FTLRun(stream.name, geometry, tally.frame(), erase_counts, time.perf_counter() - t0, tap)


def _setups(policies, trigger) -> tuple[list[Policy], list[GCTrigger], bool]:
    """The run's policies and one trigger per policy (``trigger`` one for all, or a sequence of one per policy:
    then ``True``, and the rows carry the trigger's name); policy names must differ under one trigger."""
    pols = [get_policy(p) for p in policies]
    names = [p.name for p in pols]
    per_policy = not isinstance(trigger, (str, GCTrigger))
    triggers = [get_trigger(t) for t in trigger] if per_policy else [get_trigger(trigger)] * len(pols)
    if len(triggers) != len(pols):
        raise ValueError(f"{len(triggers)} triggers for {len(pols)} policies")
    keys = list(zip(names, [t.name for t in triggers], strict=True))
    if len(set(keys)) != len(keys):
        raise ValueError(f"policy names must differ within a run (under one trigger), got {names}")
    return pols, triggers, per_policy


class _Slices:
    """Each FTL's counters at the slice boundaries (``slices`` equal parts of the stream's writes), and the
    progress line printed when the last FTL passes a boundary."""

    def __init__(self, stream, names, extra, slices, progress, t0):
        self.stream, self.names, self.extra, self.slices, self.progress, self.t0 = (
            stream, names, extra, slices, progress, t0)
        n = stream.n_writes
        self.bounds = [(k * n) // slices for k in range(1, slices + 1)]
        self.rows: list[list[dict]] = [[] for _ in names]
        self.reached = [0] * (slices + 1)  # FTLs past each boundary
        self.lock = threading.Lock()

    def passed(self, i, k, pos, counters) -> None:
        """FTL ``i`` has written ``pos`` writes, boundary ``k`` (1 = the first tenth): record its counters."""
        self.rows[i].append({"workload": self.stream.name, "policy": self.names[i], **self.extra[i], "slice": k,
                             "progress": k / self.slices, **counters})
        with self.lock:
            self.reached[k] += 1
            if self.progress and self.reached[k] == len(self.names):
                dt = time.perf_counter() - self.t0
                print(f"  {self.stream.name}: {k}/{self.slices} ({pos / 1e6:.1f}M writes x {len(self.names)} "
                      f"FTLs, {pos * len(self.names) / dt / 1e6:.1f}M/s)", file=sys.stderr, flush=True)

    def frame(self) -> pl.DataFrame:
        """The rows, slice by slice, and within a slice in the policies' order."""
        return pl.DataFrame([r for k in range(self.slices) for per_ftl in self.rows for r in per_ftl[k:k + 1]])


class _Fanout:
    """The stream's chunks to every FTL's thread: one short queue per FTL (``QUEUE`` chunks), at most ``threads``
    kernels at once, and a flag that stops every thread once one has failed."""

    def __init__(self, n_ftls: int, threads: int):
        self.cores = threading.BoundedSemaphore(max(1, threads))
        self.queues = [queue.Queue(QUEUE) for _ in range(n_ftls)]
        self.failed = threading.Event()

    def write(self, f, arr, tags=None) -> None:
        """``f.write`` holding one of the cores."""
        with self.cores:
            f.write(arr, kinds=tags)

    def take(self, i):
        """FTL ``i``'s next chunk, or None at the end or once another thread has failed."""
        while not self.failed.is_set():
            try:
                return self.queues[i].get(timeout=0.2)
            except queue.Empty:
                continue
        return None

    def feed(self, item) -> None:
        """``item`` to every FTL's queue; gives up if an FTL has failed (its queue would never drain)."""
        for q in self.queues:
            while not self.failed.is_set():
                try:
                    q.put(item, timeout=0.2)
                    break
                except queue.Full:
                    continue

    def produce(self, chunks, tap, kinds) -> None:
        """Every chunk (with ``tap`` told of it and ``kinds``' tags) to every FTL, then the end (None)."""
        try:
            for arr in chunks:
                if self.failed.is_set():
                    break
                if tap is not None:
                    tap(arr)
                self.feed((arr, None if kinds is None else kinds(arr)))
        finally:
            self.feed(None)

    def guarded(self, fn, *args):
        """``fn(*args)`` on an FTL's thread; its failure stops the others."""
        try:
            return fn(*args)
        except BaseException:
            self.failed.set()
            raise


def _consume(fan: _Fanout, i: int, f: FTL, stream, tally: _Slices, prefill_tags) -> int:
    """FTL ``i`` (``f``): the prefill (then counters reset), then its chunks from its queue, split at the slice
    boundaries, where ``tally`` records its counters. Returns the writes it took."""
    pos, k, bounds, slices = 0, 0, tally.bounds, tally.slices
    if stream.prefill:
        fan.write(f, np.arange(stream.prefill, dtype=np.int32), prefill_tags)
        f.reset_counters()
    while (item := fan.take(i)) is not None:
        arr, tags = item
        while len(arr):
            take = min(len(arr), bounds[k] - pos) if k < slices else len(arr)
            fan.write(f, arr[:take], None if tags is None else tags[:take])
            arr, pos = arr[take:], pos + take
            tags = None if tags is None else tags[take:]
            while k < slices and pos == bounds[k]:
                k += 1
                tally.passed(i, k, pos, f.counters)
    return pos


def _run_keys(slices: pl.DataFrame) -> list[str]:
    """The columns naming a run: workload, any tag columns a caller added (settings), and policy."""
    counters = set(K.COUNTER_NAMES) | {"slice", "progress", "workload", "policy"}
    return ["workload", *[c for c in slices.columns if c not in counters], "policy"]


def summarize(slices: pl.DataFrame) -> pl.DataFrame:
    """WAF, copyback totals and shares by transition, returned share, from cumulative slice rows (one row
    per workload, tag columns a caller added, and policy)."""
    copy_cols = [c for c in slices.columns if c.startswith("copy_")]
    last = slices.sort("slice").group_by(_run_keys(slices), maintain_order=True).last()
    norm = [f"copy_{s}_{d}" for s in range(2) for d in range(K.N_KINDS)]  # out of normal lines
    return last.with_columns(
        copybacks=pl.sum_horizontal(copy_cols),
    ).with_columns(
        waf=(pl.col("host_writes") + pl.col("copybacks")) / pl.col("host_writes"),
        into_cold=pl.sum_horizontal([f"copy_{s}_2" for s in range(2)]),
        cold_to_cold_share=pl.col("copy_2_2") / pl.col("copybacks"),
        normal_share=pl.sum_horizontal(norm) / pl.col("copybacks"),
    ).with_columns(
        returned_share=pl.col("returned_from_cold") / pl.col("into_cold"),
    )


def running_waf(slices: pl.DataFrame) -> pl.DataFrame:
    """WAF within each slice: (host + copybacks) / host over that slice's writes only."""
    copy_cols = [c for c in slices.columns if c.startswith("copy_")]
    keys = _run_keys(slices)
    df = slices.sort([*keys, "slice"]).with_columns(total=pl.col("host_writes") + pl.sum_horizontal(copy_cols))
    d = df.with_columns(
        dh=pl.col("host_writes").diff().over(keys).fill_null(pl.col("host_writes")),
        dt=pl.col("total").diff().over(keys).fill_null(pl.col("total")),
    )
    return d.select(*keys, "slice", "progress", running_waf=pl.col("dt") / pl.col("dh"),
                    cumulative_waf=pl.col("total") / pl.col("host_writes"))
