"""Compile the package's kernels ahead of a run, several at a time, into the kernel cache.

    python -m flashrepro.warm [--jobs N] [--if-needed] [--only KIND | --skip KIND]

Numba compiles a kernel the first time it runs, one after another in each process that needs it: a fresh
``make test`` spent about four of its minutes there, and its two test workers compiled many kernels twice.
This runs one small job per cache policy, one for the FTL (every victim rule), one for the trace readers and
one for the trace generators in a pool of ``--jobs`` processes (default: one per core), so each kernel compiles
once, on every core at once, into the cache of this version of the source (:mod:`flashrepro.jitcache`), where
every later process finds it. It changes no result; a kernel it does not reach compiles when first used, as
before.

The FTL is one job, the longest: importing :mod:`flashrepro.ftl` compiles its host loop (one function for every
victim rule) and every rule, in whichever process imports it first, so two processes
importing it at once would both compile it. This process itself never imports it. ``--only ftl`` and ``--skip
ftl`` split the work for ``make``, which starts notebook 04 (the FTL only, the slowest) once the FTL job is
done, beside the rest of the warm-up.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

KINDS = ("ftl", "policy", "readers", "generators")


def tasks(only=(), skip=()) -> list[tuple[str, str]]:
    """(kind, name) of every job, the slowest to compile first so that the pool ends together; with ``only``
    just the jobs of those kinds, without those of the kinds ``skip`` (:data:`KINDS`; an unknown one is an
    error)."""
    unknown = [k for k in (*only, *skip) if k not in KINDS]
    if unknown:
        raise ValueError(f"no warm-up job kind {', '.join(map(repr, unknown))}; the kinds are {', '.join(KINDS)}")
    from .cache import POLICIES

    slow = ["seg_prefetch", "write_once", "bs_clock", "clock_dnv", "clock_hbm"]
    rest = sorted(set(POLICIES) - set(slow))
    jobs = ([("ftl", "")] + [("policy", p) for p in slow if p in POLICIES] + [("readers", "")]
            + [("policy", p) for p in rest] + [("generators", "")])
    return [t for t in jobs if (not only or t[0] in only) and t[0] not in skip]


def run_task(task: tuple[str, str]) -> tuple[tuple[str, str], float]:
    """Run one small job of ``task``; returns it with its wall time."""
    t0 = time.perf_counter()
    kind, name = task
    if kind == "policy":
        from .cache import simulate
        from .traces import synthetic

        tr = synthetic.zipf(512, 4000, 0.9, seed=1, write_fraction=0.3)
        simulate(tr, name, 64, log_io=True)
    elif kind == "ftl":  # every victim rule (or the one named) under both triggers
        import numpy as np

        from .ftl import FTL, POLICIES, VICTIM_RULES, Geometry, Policy

        for rule in [name] if name else sorted(VICTIM_RULES):
            pol = next((p for p in POLICIES.values() if p.victim == rule), None) or Policy(rule, rule)
            for trigger in ("reserve", "femu"):
                ftl = FTL(Geometry(16, 64, 800), pol, trigger)
                ftl.write(np.random.default_rng(1).integers(0, 800, 20_000).astype(np.int32))
    elif kind == "readers":
        from pathlib import Path

        from .traces import load_trace

        formats = Path(__file__).resolve().parents[2] / "tests" / "data" / "formats"
        for f in sorted(formats.glob("sample.*")) if formats.is_dir() else []:
            try:
                load_trace(f, cache=False).to_pages(4096)
            except (ValueError, OSError):
                pass  # a sample made for an error: its kernels ran up to it
    elif kind == "generators":
        from .traces import pcmark, synthetic

        synthetic.zipf(1000, 1000, 0.9, seed=1).to_pages(4096)
        for model in pcmark.MODELS.values():
            pcmark.generate(model, 1, n_requests=2000)
    return task, time.perf_counter() - t0


def stamp(only=(), skip=()) -> Path | None:
    """The file that says every job (of the kinds ``only``, without ``skip``) has run against this version of the
    source, with this Numba on this kind of machine: in the kernel cache's folder of this source version
    (:mod:`flashrepro.jitcache`), so it goes when that folder is pruned. None when the package's kernel cache
    is switched off."""
    # Numba's version from its metadata, not its module: a file that imports Numba is one the kernels' source hash
    # covers (flashrepro.jitcache), and an edit to this one would compile every kernel again
    from importlib.metadata import version

    from .jitcache import PackageLocator

    folder = PackageLocator.folder
    part = "".join([f"-only-{k}" for k in sorted(only)] + [f"-skip-{k}" for k in sorted(skip)])
    return None if folder is None else folder / f"warmed-numba{version('numba')}-{platform.machine()}{part}"


def warm(jobs: int | None = None, log=print, if_needed: bool = False, only=(), skip=()) -> float:
    """Run every :func:`tasks` job (of the kinds ``only``, without ``skip``) in ``jobs`` processes; returns the
    wall time. A job that fails is reported and skipped (the tests will say what is wrong). With ``if_needed``,
    nothing runs when :func:`stamp` exists for these kinds or for all (a run where every job succeeded leaves
    it): checking every job against a warm cache costs seconds of both cores, which ``make`` and ``make test``
    would spend on every run."""
    done = stamp(only, skip)
    if if_needed and done is not None:
        there = next((f for f in (done, stamp()) if f.is_file()), None)
        if there is not None:
            log(f"warm: the kernels of this source are compiled ({there.name} in {there.parent})")
            return 0.0
    todo = tasks(only, skip)
    jobs = jobs or os.cpu_count() or 1
    t0 = time.perf_counter()
    failed = 0
    # spawn, not fork: a caller with threads running (polars', Numba's, a test runner's) cannot be copied safely;
    # a forked child can wait forever on a lock one of those threads held at the fork
    with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(run_task, t): t for t in todo}
        for f in as_completed(futures):
            try:
                f.result()
            except Exception as e:  # noqa: BLE001  (reported; the run goes on)
                failed += 1
                log(f"warm: {futures[f]} failed: {type(e).__name__}: {e}")
    wall = time.perf_counter() - t0
    log(f"warm: {len(futures)} jobs in {wall:.0f} s on {jobs} processes")
    if not failed and done is not None:
        with contextlib.suppress(OSError):  # a read-only cache: the next run checks again
            done.touch()
            if _parts_cover_all():  # make's two parts: make test's whole run then has nothing to do
                stamp().touch()
    return wall


def _parts_cover_all() -> bool:
    """Whether the parts whose stamps exist (one kind only, or all but one) cover every kind of job."""
    covered = set()
    for k in KINDS:
        if stamp(only=[k]).is_file():
            covered.add(k)
        if stamp(skip=[k]).is_file():
            covered |= set(KINDS) - {k}
    return covered == set(KINDS)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashrepro.warm", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None, help="processes (default: one per core)")
    ap.add_argument("--if-needed", action="store_true",
                    help="do nothing if a run has already compiled every job for this version of the source")
    ap.add_argument("--only", action="append", default=[], choices=KINDS,
                    help="only the jobs of this kind (repeatable)")
    ap.add_argument("--skip", action="append", default=[], choices=KINDS,
                    help="not the jobs of this kind (repeatable)")
    a = ap.parse_args(argv)
    warm(a.jobs, log=lambda m: print(m, file=sys.stderr), if_needed=a.if_needed, only=a.only, skip=a.skip)
    return 0


if __name__ == "__main__":
    sys.exit(main())
