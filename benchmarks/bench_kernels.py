"""Kernel throughput: every registered policy and libCacheSim's LRU and Clock on the same stream.

    make bench        # writes results/bench.csv

Workload: 10M one-page requests, Zipf(0.9) over 1M pages (30% writes; libCacheSim ignores the op),
capacities 1% and 10% of the pages. Each of our kernels is timed through the public ``simulate`` (best
of ``--repeat`` runs, after a warm-up that compiles it); libCacheSim runs its C reader over the same
page stream in oracleGeneral format (``hashpower=18``), also best of ``--repeat``; its time includes
its own reading of that binary file (the Python bindings offer no faster path). The ``end-to-end`` rows add the page
expansion and the order-preserving remap to one LRU run, as a user pays it on a fresh trace.
"""

from __future__ import annotations

import argparse
import shutil
import time

import bench_io
import numpy as np
import polars as pl

from flashrepro import paths
from flashrepro.cache import policy_names, simulate
from flashrepro.peer import libcachesim_cache, libcachesim_reader, write_oracle_general
from flashrepro.report import show, write_table
from flashrepro.traces import synthetic

PEERS = {"libcachesim-lru": "LRU", "libcachesim-clock": "Clock"}


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_ftl(n_writes):
    """Host writes per second, GC included, one FTL on one core, after the device is filled and warm, under
    each GC trigger (FEMU's thresholds raise the WAF, so the same stream costs more per host write)."""
    import itertools

    from flashrepro.ftl import FTL, GEOMETRIES, POLICIES, TRIGGERS
    from flashrepro.papers.twor import workloads as twor

    rows = []
    streams = {"fio-zipf0.9-8GB": (GEOMETRIES["8GB"], twor.fio_stream(0.9)),
               "tpcc-model-10GB": (GEOMETRIES["10GB"], twor.oltp_model("tpcc"))}
    for workload, (g, stream) in streams.items():
        print(f"generating {workload} ({n_writes / 1e6:.0f}M writes) ...", flush=True)
        w = np.concatenate(list(itertools.islice(stream.chunks(1 << 20), -(-n_writes // (1 << 20)))))[:n_writes]
        warm = len(w) // 10
        for trigger, name in itertools.product(TRIGGERS, POLICIES):
            f = FTL(g, name, trigger)
            f.write(np.arange(stream.prefill, dtype=np.int32))
            f.write(w[:warm])
            f.reset_counters()
            t0 = time.perf_counter()
            f.write(w[warm:])
            dt = time.perf_counter() - t0
            n = len(w) - warm
            rows.append({"kernel": f"ftl-{name}", "workload": workload, "trigger": trigger,
                         "capacity_pages": g.physical_pages,
                         "requests": n, "seconds": round(dt, 4), "mreq_per_s": round(n / dt / 1e6, 2),
                         "waf": round(f.waf(), 3)})
            print(f"ftl-{name:<18s} {workload:<18s} {trigger:<8s} {dt:8.3f} s {n / dt / 1e6:8.1f} M host writes/s "
                  f"WAF {f.waf():.3f}", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=10_000_000)
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--ftl-writes", type=int, default=20_000_000, help="host writes per FTL row (0 to skip)")
    ap.add_argument("--only-ftl", action="store_true", help="skip the cache kernels")
    ap.add_argument("--io", default="", help="arguments for bench_io.py (trace reading, memory per request); "
                    "'skip' to skip it")
    a = ap.parse_args(argv)
    ftl_rows = bench_ftl(a.ftl_writes) if a.ftl_writes else []
    if a.only_ftl:
        df = pl.DataFrame(ftl_rows)
        print(f"wrote {write_table(df, 'bench')}")
        show(df)
        return
    workload = f"zipf0.9-{a.requests // 1_000_000}M-over-{a.pages // 1000}k"
    print(f"generating {workload} ...", flush=True)
    tr = synthetic.zipf(a.pages, a.requests, 0.9, seed=1, write_fraction=0.3)
    caps = [a.pages // 100, a.pages // 10]
    rows = []

    def row(kernel, cap, seconds):
        rows.append({"kernel": kernel, "workload": workload, "capacity_pages": cap, "requests": a.requests,
                     "seconds": round(seconds, 4), "mreq_per_s": round(a.requests / seconds / 1e6, 2)})
        print(f"{kernel:<22s} cap={cap:>8d} {seconds:8.3f} s {a.requests / seconds / 1e6:8.1f} M req/s", flush=True)

    t0 = time.perf_counter()
    refs = tr.to_pages()
    _ = refs.dense
    prep = time.perf_counter() - t0
    row("to_pages+remap", 0, prep)
    small = synthetic.zipf(1000, 10_000, 0.9, seed=2, write_fraction=0.3)
    for pol in policy_names():
        simulate(small, pol, 100)  # compile outside the timing
        for cap in caps:
            row(pol, cap, best_of(lambda pol=pol, cap=cap: simulate(refs, pol, cap), a.repeat))
    for cap in caps:
        fresh = synthetic.zipf(a.pages, a.requests, 0.9, seed=1, write_fraction=0.3)
        t0 = time.perf_counter()
        simulate(fresh, "lru", cap)
        row("end-to-end-lru", cap, time.perf_counter() - t0)
    if not a.no_peer:
        workdir = paths.build / "bench"
        workdir.mkdir(parents=True, exist_ok=True)
        path = write_oracle_general(refs, workdir / "zipf.oracleGeneral")
        for name, cls in PEERS.items():
            for cap in caps:
                def peer(cls=cls, cap=cap):
                    libcachesim_cache(cls, cap, hashpower=18).process_trace(libcachesim_reader(path))

                row(name, cap, best_of(peer, a.repeat))
        shutil.rmtree(workdir)
    io_rows = [] if a.io == "skip" else [bench_io.main(a.io.split())]
    df = pl.concat([pl.DataFrame(rows), pl.DataFrame(ftl_rows), *io_rows], how="diagonal_relaxed")
    print(f"wrote {write_table(df, 'bench')}")
    show(df)
    rate = {(r["kernel"], r["capacity_pages"]): r["mreq_per_s"] for r in rows}
    for ours, peer in (("lru", "libcachesim-lru"), ("clock", "libcachesim-clock")):
        for cap in caps:
            if (peer, cap) in rate:
                print(f"{ours} / {peer} at {cap} pages: {rate[(ours, cap)] / rate[(peer, cap)]:.1f}x")


if __name__ == "__main__":
    main()
