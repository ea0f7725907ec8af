"""Seeded stand-ins for PCMark05's four HDD traces (paper 2, Sec. 5: T1 general usage, T2 application
loading, T3 Windows XP startup, T4 virus scan), which are not reachable from here.

What the paper says of them is little: T2 and T3 are mostly sequential reads whose prefetch-hit rates are
low, and the blocks a segment prefetch wastes come before the start of a sequential read. Public PCMark05
descriptions give read shares: XP startup 90% reads, application loading 83%. Those two shares are the
only calibration targets (as shares of requests); everything else below is a declared assumption, the
same for every policy, and no parameter was chosen to move a result:

* A *file layout*: files with lognormal sizes in 4 KiB blocks, placed one after another on the disk with
  random gaps (so files start on 4 KiB boundaries but rarely on a segment boundary).
* T2 application loading: applications (clusters of files, next to each other on the disk) loaded one
  after another, each file read once, sequentially, from its first block, in requests of 4-64 KiB
  (``seq_request_kib``: the request size decides how much a segment prefetch can add; notebook 02 shows
  T2 and T3 with 64-128 KiB requests too); the other 17% of requests are small writes to a settings/log area.
* T3 XP startup: the same structure with more, smaller files (drivers, DLLs) and 10% writes.
* T4 virus scan: every file read once, in disk order, in requests of up to 64 KiB; no writes.
* T1 general usage (uncalibrated): short runs of small requests (4-16 KiB) in files chosen by a Zipf
  popularity, each run continuing where the previous request ended with probability ``p_continue`` or
  jumping within the file; 30% writes.

Every trace is one request at a time (time in ms steps; time plays no part in paper 2).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .trace import Op, Trace

BLOCK = 4096


@dataclasses.dataclass(frozen=True)
class PCMarkModel:
    """One workload model (see the module docstring for the structure of each kind)."""

    kind: str  # "general", "loading", "startup", "scan"
    n_files: int
    median_blocks: float
    sigma: float
    write_share: float = 0.0  # share of requests that are writes (the calibration input for T2, T3)
    files_per_group: int = 1  # files loaded together (an application)
    zipf_s: float = 0.9  # T1: popularity of files
    p_continue: float = 0.7  # T1: a request continues the previous one
    run_requests: int = 6  # T1: mean requests per run
    max_gap_blocks: int = 16
    log_blocks: int = 2048  # T2, T3: the settings/log area written to
    requests: int = 300_000  # T1: the trace's length (the others' follow from their file sets)
    seq_request_kib: tuple[int, ...] = (4, 8, 16, 32, 64)  # sizes of the requests of a sequential read


MODELS = {
    "T1-general-usage": PCMarkModel("general", 6000, 8, 1.5, write_share=0.30),
    "T2-application-loading": PCMarkModel("loading", 1200, 24, 1.2, write_share=0.17, files_per_group=40),
    "T3-xp-startup": PCMarkModel("startup", 2400, 12, 1.0, write_share=0.10, files_per_group=80),
    "T4-virus-scan": PCMarkModel("scan", 6000, 8, 1.5),
}


def _layout(m: PCMarkModel, rng) -> tuple[np.ndarray, np.ndarray]:
    size = np.maximum(1, np.round(rng.lognormal(np.log(m.median_blocks), m.sigma, m.n_files))).astype(np.int64)
    gap = rng.integers(0, m.max_gap_blocks + 1, m.n_files)
    start = 1024 + np.cumsum(size + gap) - size  # the first MiB is left for metadata
    return start, size


@njit(cache=True)
def _sequential(rng, order, start, size, sizes):
    """The files of ``order`` each read from its first block to its last, in requests whose sizes (blocks)
    are drawn from ``sizes`` (the last one cut at the file's end): the requests' first blocks and lengths.
    ``sizes[rng.integers(0, len(sizes))]`` is the draw ``rng.choice(sizes)`` makes, so the requests are those
    of the Python loop this replaces, one by one."""
    total = 0
    for f in order:
        total += size[f]  # at least a block per request
    first = np.empty(total, np.int64)
    length = np.empty(total, np.int64)
    c = 0
    for f in order:
        pos, end = start[f], start[f] + size[f]
        while pos < end:
            n = min(sizes[rng.integers(0, sizes.shape[0])], end - pos)
            first[c] = pos
            length[c] = n
            c += 1
            pos += n
    return first[:c].copy(), length[:c].copy()


@njit(cache=True)
def _general_runs(rng, cdf, rank_to_file, start, size, target, p_run, p_continue, write_share):
    """T1's runs until at least ``target`` requests: a file by Zipf popularity, a random block in it, then
    ``1 + geometric(p_run)`` requests of 1-4 blocks, each continuing the previous one with probability
    ``p_continue`` (and if it fits in the file) or jumping to a random block of the file; each a write with
    probability ``write_share``.

    The same draws from ``rng`` in the same order as the plain loop it replaces (``rng.choice(n, p=p)`` is
    ``cdf.searchsorted(rng.random(), "right")``; Numba's Generator methods are NumPy's algorithms), so the
    trace is the same, request for request (tests/test_traces.py); in Python the loop took 3.6 s of the 300k
    requests, called for every T1 variant notebook 02 runs."""
    cap = target + 64
    first = np.empty(cap, np.int64)
    length = np.empty(cap, np.int64)
    write = np.empty(cap, np.bool_)
    c = 0
    while c < target:
        f = rank_to_file[np.searchsorted(cdf, rng.random(), side="right")]
        lo, hi = start[f], start[f] + size[f]
        pos = lo + rng.integers(0, size[f])
        for _ in range(1 + rng.geometric(p_run)):
            n = rng.integers(1, 5)
            if pos + n > hi or rng.random() > p_continue:
                pos = lo + rng.integers(0, size[f])
                n = min(n, hi - pos)
            if c == cap:  # a long last run: more room
                cap *= 2
                first, length, write = _grown(first, cap), _grown(length, cap), _grown(write, cap)
            first[c] = pos
            length[c] = n
            write[c] = rng.random() < write_share
            c += 1
            pos += n
    return first[:c].copy(), length[:c].copy(), write[:c].copy()


@njit(cache=True)
def _grown(a, n):
    out = np.empty(n, a.dtype)
    out[:a.shape[0]] = a
    return out


def generate(m: PCMarkModel, seed: int = 0, n_requests: int | None = None, name: str = "pcmark") -> Trace:
    """The model's trace: its natural length (every file of the layout once, or T1's runs over them), cut to
    ``n_requests`` when given."""
    rng = np.random.default_rng([seed, 2011])
    start, size = _layout(m, rng)
    if m.kind in ("loading", "startup", "scan"):
        order = np.arange(m.n_files)
        if m.kind != "scan":  # applications load in random order, each one's files in disk order
            groups = np.array_split(order, max(1, m.n_files // m.files_per_group))
            order = np.concatenate([groups[g] for g in rng.permutation(len(groups))])
        sizes = np.array(m.seq_request_kib, dtype=np.int64) * 1024 // BLOCK
        read_first, read_length = _sequential(rng, order, start, size, sizes)
        n = len(read_first)
        # writes interleaved at random: a share write_share of all requests (small, to a log area)
        n_w = int(round(n * m.write_share / (1 - m.write_share))) if m.write_share else 0
        log_base = int(start[-1] + size[-1]) + 4096
        w_pos = log_base + (rng.zipf(1.5, n_w) - 1) % m.log_blocks
        w_len = rng.integers(1, 3, n_w)
        is_w = np.zeros(n + n_w, bool)
        is_w[rng.choice(n + n_w, n_w, replace=False)] = True
        first, length = np.empty(n + n_w, np.int64), np.empty(n + n_w, np.int64)
        first[~is_w] = read_first
        length[~is_w] = read_length
        first[is_w], length[is_w] = w_pos, w_len
        writes_at = is_w
    elif m.kind == "general":
        p = 1.0 / np.arange(1, m.n_files + 1) ** m.zipf_s
        p /= p.sum()
        rank_to_file = rng.permutation(m.n_files)
        target = m.requests if n_requests is None else min(n_requests, m.requests)
        cdf = p.cumsum()  # what rng.choice(n_files, p=p) searches: choice = cdf.searchsorted(rng.random(), "right")
        cdf /= cdf[-1]
        first, length, writes_at = _general_runs(rng, cdf, rank_to_file, start, size, target, 1 / m.run_requests,
                                                 float(m.p_continue), float(m.write_share))
    else:
        raise ValueError(f"unknown model kind {m.kind!r}")
    if n_requests is not None:
        first, length, writes_at = first[:n_requests], length[:n_requests], writes_at[:n_requests]
    op = np.where(writes_at, Op.WRITE, Op.READ).astype(np.int8)
    t = np.arange(len(first)) * 1e-3
    return Trace(t, op, first * BLOCK, length * BLOCK, name=name, source=f"pcmark.generate({m.kind}, seed={seed})",
                 meta={"model": dataclasses.asdict(m)})


def repeated(tr: Trace, times: int) -> Trace:
    """``tr`` played ``times`` times back to back (Fig. 8 runs T1 five times)."""
    n = len(tr)
    span = float(tr.time_s[-1]) + 1e-3
    return Trace(np.concatenate([tr.time_s + k * span for k in range(times)]), np.tile(tr.op, times),
                 np.tile(tr.offset_bytes, times), np.tile(tr.size_bytes, times),
                 name=f"{tr.name} x{times}", source=tr.source, meta={**tr.meta, "repeated": times, "length": n})
