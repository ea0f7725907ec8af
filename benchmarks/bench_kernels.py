"""Kernel throughput: every registered policy and libCacheSim's LRU and Clock on the same stream.

    make bench        # writes results/bench.csv

Workload: 10M one-page requests, Zipf(0.9) over 1M pages (30% writes; libCacheSim ignores the op),
capacities 1% and 10% of the pages. Each of our kernels is timed through the public ``simulate`` (``--repeat``
runs after a warm-up that compiles it); libCacheSim runs its C reader over the same page stream in
oracleGeneral format (``hashpower=18``); its time includes its own reading of that binary file (the Python
bindings offer no faster path). ``lru``, ``clock`` and libCacheSim's LRU and Clock run in turn, round after
round, so that a change in the machine's load falls on both sides of their ratio; the other kernels, and the FTL
rows (``bench_ftl``), run in rounds too, each kernel once a round. A row holds the median wall
and CPU time (``seconds``, ``cpu_seconds``) and the fastest and slowest run's rate; rates and ratios are
judged on CPU time (``bench_targets.py``, which also renders docs/benchmarks.md's table). The ``end-to-end`` rows add
the page expansion and the order-preserving remap to one LRU run, as a user pays it on a fresh trace.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from pathlib import Path

import bench_io
import bench_targets
import numpy as np
import polars as pl

from flashrepro import paths
from flashrepro.cache import policy_names, simulate
from flashrepro.cache.registry import get_policy, make_params
from flashrepro.peer import libcachesim_cache, libcachesim_reader, write_oracle_general
from flashrepro.report import show, write_table
from flashrepro.traces import synthetic

PEERS = {"libcachesim-lru": "LRU", "libcachesim-clock": "Clock"}


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def timing_row(kernel, workload, cap, requests, walls, cpus) -> dict:
    """A bench row from the wall and CPU seconds of its runs: the medians, and the slowest and fastest run's rate
    (``_min``, ``_max``) by wall and by CPU time."""
    wall, cpu = float(np.median(walls)), float(np.median(cpus))
    return {"kernel": kernel, "workload": workload, "capacity_pages": cap, "requests": requests,
            "seconds": round(wall, 4), "cpu_seconds": round(cpu, 4), "mreq_per_s": round(requests / wall / 1e6, 2),
            "mreq_per_s_cpu": round(requests / cpu / 1e6, 2), "mreq_per_s_min": round(requests / max(walls) / 1e6, 2),
            "mreq_per_s_max": round(requests / min(walls) / 1e6, 2),
            "mreq_per_s_cpu_min": round(requests / max(cpus) / 1e6, 2),
            "mreq_per_s_cpu_max": round(requests / min(cpus) / 1e6, 2), "runs": len(walls)}


def run_facts() -> dict:
    """The commit measured and the load when the run began (the machine is shared)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {"commit": commit, "bench_load_avg_1min": round(os.getloadavg()[0], 2), "cpu": cpu_name()}


def cpu_name() -> str:
    """The processor's model name and its widest vector extension (``/proc/cpuinfo``; "unknown" elsewhere). The
    project's machines differ from run to run, by up to half of a kernel's rate, and some kernels vectorize
    differently with AVX-512 (a double to int64 conversion is one instruction there, a loop of scalars under AVX2)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    model = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "unknown")
    flags = next((ln.split(":", 1)[1].split() for ln in info.splitlines() if ln.startswith("flags")), [])
    vec = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{model}, {vec}, {os.cpu_count()} cores"


def ftl_policies():
    """Every policy of ``flashrepro.ftl.POLICIES``, then every registered victim rule no policy uses, as a
    policy of its own (greedy with FEMU's heap, ...), so each rule has a row."""
    from flashrepro.ftl import POLICIES, VICTIM_RULES, Policy

    used = {p.victim for p in POLICIES.values()}
    return [*POLICIES.values(), *(Policy(v, v) for v in VICTIM_RULES if v not in used)]


def bench_ftl(n_writes, repeat=5):
    """Host writes per second, GC included, one FTL on one core, after the device is filled and warm, under
    each GC trigger (FEMU's thresholds raise the WAF, so the same stream costs more per host write).

    Rates are per CPU second of the timed writes (``time.process_time``; the machine is shared, so wall time,
    ``seconds``, is noisier), the median of ``repeat`` runs taken in rounds: each round runs every rule under
    every trigger once, so that a slow spell of the machine falls on every row alike instead of on the rows
    that happen to run in it (``runs``, and ``cpu_spread``: the largest minus the smallest CPU time).
    ``mreq_per_s``: host writes; ``mpages_per_s``: page writes (host writes plus GC copies);
    ``benchmarks/bench_targets.py`` judges them against the targets."""
    import itertools

    from flashrepro.ftl import FTL, GEOMETRIES, TRIGGERS
    from flashrepro.papers.twor import workloads as twor

    rows = []
    streams = {"fio-zipf0.9-8GB": (GEOMETRIES["8GB"], twor.fio_stream(0.9)),
               "tpcc-model-10GB": (GEOMETRIES["10GB"], twor.oltp_model("tpcc"))}
    for workload, (g, stream) in streams.items():
        print(f"generating {workload} ({n_writes / 1e6:.0f}M writes) ...", flush=True)
        w = np.concatenate(list(itertools.islice(stream.chunks(1 << 20), -(-n_writes // (1 << 20)))))[:n_writes]
        warm = len(w) // 10
        setups = list(itertools.product(TRIGGERS, ftl_policies()))
        walls, cpus, ends = {s: [] for s in setups}, {s: [] for s in setups}, {}
        for k in range(repeat):
            print(f"  round {k + 1} of {repeat}", flush=True)
            for trigger, policy in setups:
                f = FTL(g, policy, trigger)
                f.write(np.arange(stream.prefill, dtype=np.int32))
                f.write(w[:warm])
                f.reset_counters()
                t0, c0 = time.perf_counter(), time.process_time()
                f.write(w[warm:])
                cpus[trigger, policy].append(time.process_time() - c0)
                walls[trigger, policy].append(time.perf_counter() - t0)
                ends[trigger, policy] = f.waf(), int(f.copies().sum())  # (the same in every round: same writes)
        for trigger, policy in setups:
            (waf, copies), c = ends[trigger, policy], cpus[trigger, policy]
            dt, cpu = float(np.median(walls[trigger, policy])), float(np.median(c))
            n = len(w) - warm
            pages = n + copies
            rows.append({"kernel": f"ftl-{policy.name}", "workload": workload, "trigger": trigger,
                         "capacity_pages": g.physical_pages, "requests": n, "seconds": round(dt, 4),
                         "cpu_seconds": round(cpu, 4), "cpu_spread": round(max(c) - min(c), 4), "runs": len(c),
                         "mreq_per_s": round(n / cpu / 1e6, 2), "mpages_per_s": round(pages / cpu / 1e6, 2),
                         "waf": round(waf, 3)})
            print(f"ftl-{policy.name:<18s} {workload:<18s} {trigger:<8s} {cpu:8.3f} s CPU {n / cpu / 1e6:8.1f} M host "
                  f"writes/s {pages / cpu / 1e6:8.1f} M page writes/s WAF {waf:.3f} (median of {len(c)})",
                  flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=10_000_000)
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--ftl-writes", type=int, default=20_000_000, help="host writes per FTL row (0 to skip)")
    ap.add_argument("--ftl-repeat", type=int, default=5, help="runs per FTL row, in rounds over the rules (the median "
                    "CPU time is kept)")
    ap.add_argument("--only-ftl", action="store_true", help="skip the cache kernels")
    ap.add_argument("--io", default="", help="arguments for bench_io.py (trace reading, memory per request); "
                    "'skip' to skip it")
    ap.add_argument("--no-doc", "--no-readme", dest="no_doc", action="store_true",
                    help="do not render docs/benchmarks.md's table")
    a = ap.parse_args(argv)
    facts = run_facts()
    ftl_rows = bench_ftl(a.ftl_writes, a.ftl_repeat) if a.ftl_writes else []
    if a.only_ftl:
        finish([pl.DataFrame(ftl_rows)], facts, not a.no_doc)
        return
    workload = f"zipf0.9-{a.requests // 1_000_000}M-over-{a.pages // 1000}k"
    print(f"generating {workload} ...", flush=True)
    tr = synthetic.zipf(a.pages, a.requests, 0.9, seed=1, write_fraction=0.3)
    caps = [a.pages // 100, a.pages // 10]
    rows = []

    def row(kernel, cap, requests, walls, cpus):
        r = timing_row(kernel, workload, cap, requests, walls, cpus)
        rows.append(r)
        print(f"{kernel:<22s} cap={cap:>8d} {r['seconds']:8.3f} s {r['mreq_per_s']:8.1f} M req/s "
              f"({r['mreq_per_s_cpu']:.1f} from CPU time)", flush=True)

    t0, c0 = time.perf_counter(), time.process_time()
    refs = tr.to_pages()
    _ = refs.dense
    row("to_pages+remap", 0, a.requests, [time.perf_counter() - t0], [time.process_time() - c0])
    small = synthetic.zipf(1000, 10_000, 0.9, seed=2, write_fraction=0.3)
    peers = {}
    path = None
    if not a.no_peer:
        workdir = paths.build / "bench" / "peer"  # (removed after; bench_io's files under build/bench/io stay)
        workdir.mkdir(parents=True, exist_ok=True)
        path = write_oracle_general(refs, workdir / "zipf.oracleGeneral")
        for name, cls in PEERS.items():
            peers[name] = lambda cap, cls=cls: libcachesim_cache(cls, cap, hashpower=18).process_trace(
                libcachesim_reader(path))
    for pol in policy_names():
        simulate(small, pol, 100)  # compile outside the timing
        k, p = get_policy(pol).kernel, make_params(pol)
        refs.units(k.unit_pages(p, refs.page_bytes), k.unit_halo(p, refs.page_bytes))  # (cached on refs) likewise
    for cap in caps:
        # lru, clock and libCacheSim in turn, round after round: their ratios are taken within one run
        turn = {pol: (lambda cap, pol=pol: simulate(refs, pol, cap)) for pol in ("lru", "clock")} | peers
        times = {k: ([], []) for k in turn}
        for _ in range(a.repeat):
            for k, fn in turn.items():
                w, c = timed(lambda fn=fn, cap=cap: fn(cap))
                times[k][0].append(w)
                times[k][1].append(c)
        for k, (walls, cpus) in times.items():
            row(k, cap, a.requests, walls, cpus)
        # the other kernels in rounds too (each round runs each once), so that a slow spell of the machine falls
        # on every kernel alike rather than on the one that runs in it
        others = [pol for pol in policy_names() if pol not in turn]
        runs = {pol: [] for pol in others}
        for k in range(a.repeat):
            print(f"  the other kernels at {cap} pages: round {k + 1} of {a.repeat}", flush=True)
            for pol in others:
                runs[pol].append(timed(lambda pol=pol, cap=cap: simulate(refs, pol, cap)))
        for pol in others:
            row(pol, cap, a.requests, [w for w, _ in runs[pol]], [c for _, c in runs[pol]])
    for cap in caps:
        fresh = synthetic.zipf(a.pages, a.requests, 0.9, seed=1, write_fraction=0.3)
        w, c = timed(lambda fresh=fresh, cap=cap: simulate(fresh, "lru", cap))
        row("end-to-end-lru", cap, a.requests, [w], [c])
    if path is not None:
        shutil.rmtree(path.parent)
    io_rows = [] if a.io == "skip" else [bench_io.main(a.io.split())]
    finish([pl.DataFrame(rows), pl.DataFrame(ftl_rows), *io_rows], facts, not a.no_doc)


def finish(frames, facts: dict, doc: bool) -> None:
    """Targets on every row (``bench_targets.annotate``), results/bench.csv, and docs/benchmarks.md's table."""
    df = pl.concat([f for f in frames if f.height], how="diagonal_relaxed").with_columns(
        **{k: pl.lit(v) for k, v in facts.items()})
    df = bench_targets.annotate(df)
    print(f"wrote {write_table(df, 'bench')}")
    show(df)
    table = bench_targets.render(df)
    print(table)
    if doc:
        path = paths.root / bench_targets.DOC
        print(f"{'rendered the table into' if bench_targets.update_doc(table, path) else 'no bench markers in'} "
              f"{path}")


if __name__ == "__main__":
    main()
