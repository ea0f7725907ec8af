"""Reading traces: a user's first run on their own file against libCacheSim, and memory per request.

    make bench        # appends these rows to results/bench.csv (after bench_kernels.py)

1. ``first-run`` / ``cached-run``: ``flashrepro simulate --policy lru --capacity-pages 10000`` on an MSR-format CSV
   of ``--msr-lines`` one-page requests (Zipf 0.9 over 1M pages, 30% writes, seed 1), in a fresh process with an
   empty parse cache, then again with the cache filled; ``libcachesim-csv`` is libCacheSim's CSV reader with its LRU
   on the same file in the same run (object = offset, sizes ignored). The reader and the kernel are compiled first,
   on a 10,000-line file (a first run is a trace's first parse, not the package's first run after an edit), the file
   is read once before the rounds (the page cache warm for both), and the first run and libCacheSim swap places every
   round, so neither always runs first. Wall time, CPU time (user + system: the fairer figure on a busy machine) and
   peak resident memory (``VmHWM``; not ``ru_maxrss``, which a process inherits from the parent that started it, e.g.
   ``make bench``'s kernel benchmark) of each process, interpreter start and imports included for both; the median of
   ``--repeat`` rounds (5), with the fastest and slowest wall time and the load average.
2. ``bytes-per-request``: peak memory above an idle interpreter, per request, of parsing an SPC file
   (``open_trace``), generating a synthetic trace (``synthetic.zipf``) and simulating LRU over a stored trace
   (``simulate_stream``), each in its own process.
3. ``big-spc``: ``flashrepro simulate`` on an SPC file of ``--big-lines`` lines (200M by default, about
   6 GB on disk, written once under build/bench) and its peak memory; skip with ``--big-lines 0``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from flashrepro import paths

PROBE = """
import json, resource, sys, time
t0 = time.perf_counter()
{body}
ru = resource.getrusage(resource.RUSAGE_SELF)
try:  # the process's own high-water mark: ru_maxrss survives exec, so it would report a big parent's
    peak = next(int(x.split()[1]) * 1024 for x in open("/proc/self/status") if x.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = ru.ru_maxrss * 1024
print(json.dumps({{"seconds": time.perf_counter() - t0, "cpu_seconds": ru.ru_utime + ru.ru_stime,
                  "maxrss": peak, **out}}))
"""


def run(body: str, home: Path | None = None) -> dict:
    """``body`` (which sets ``out``) in a fresh interpreter; its wall time and peak resident bytes."""
    env = dict(os.environ)
    if home is not None:
        env["FLASHREPRO_HOME"] = str(home)
    res = subprocess.run([sys.executable, "-c", PROBE.format(body=body)], env=env, capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def write_lines(path: Path, n: int, make_chunk, chunk: int = 2_000_000) -> Path:
    """Write ``n`` lines chunk by chunk (``make_chunk(rng, m) -> str``), once; later runs reuse the file."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as f:
        for start in range(0, n, chunk):
            f.write(make_chunk(rng, min(chunk, n - start)))
    tmp.rename(path)
    return path


def zipf_pages(rng, m, n_pages=1_000_000, alpha=0.9):
    ranks = np.arange(1, n_pages + 1, dtype=np.float64)
    cdf = np.cumsum(ranks ** -alpha)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, rng.random(m))


def msr_chunk(rng, m):
    page = zipf_pages(rng, m)
    t = 128166372000000000 + np.cumsum(rng.integers(1, 40000, m))
    op = np.where(rng.random(m) < 0.3, "Write", "Read")
    df = pl.DataFrame({"t": t, "h": "hm", "d": 0, "op": op, "off": page * 4096, "size": 4096,
                       "r": rng.integers(100, 9000, m)})
    return df.write_csv(include_header=False)


def spc_chunk(rng, m):
    page = zipf_pages(rng, m, n_pages=4_000_000)
    df = pl.DataFrame({"asu": 0, "lba": page * 8, "size": 4096, "op": np.where(rng.random(m) < 0.3, "w", "r"),
                       "t": np.round(np.arange(m) * 1e-4, 6)})
    return df.write_csv(include_header=False)


CLI = """
from flashrepro.cli import main
import contextlib, io
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = main(["simulate", "--policy", "lru", "--trace", {path!r}, "--format", {fmt!r}, "--capacity-pages", "{cap}",
               "--json"])
r = json.loads(buf.getvalue())
out = {{"miss_ratio": r["miss_ratio"], "rc": rc}}
"""

LIBCACHESIM = """
import libcachesim as l
p = l.ReaderInitParam(ignore_obj_size=True, has_header=False, delimiter=",")
p.time_field, p.obj_id_field, p.op_field = 1, 5, 4
reader = l.TraceReader({path!r}, l.TraceType.CSV_TRACE, p)
miss, _ = l.LRU({cap}).process_trace(reader)
out = {{"miss_ratio": miss}}
"""


def warm(path: Path) -> None:
    """Read the file once, so that its pages are in the page cache for every run."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def first_run_rows(lines: int, workdir: Path, repeat: int = 5) -> list[dict]:
    """``repeat`` rounds, each with an empty parse cache: the first run and libCacheSim, in turn first, then the
    cached run; each row holds the median of its wall and CPU times and peak memory, the fastest and slowest wall
    time, and the 1-minute load average when the rounds began (the machine is shared; the ratios are of the
    medians)."""
    path = write_lines(workdir / f"msr-{lines}.csv", lines, msr_chunk)
    mb = path.stat().st_size / 1e6
    warm(path)
    # the reader and the kernel compiled outside the timing (as the kernel rows compile on a small trace first): a
    # first run is a trace's first parse, not the package's first run after an edit to a kernel's source
    home = Path(tempfile.mkdtemp(prefix="home.", dir=workdir))
    run(CLI.format(path=str(write_lines(workdir / "msr-compile.csv", 10_000, msr_chunk)), fmt="msr", cap=10000), home)
    subprocess.run(["rm", "-rf", str(home)], check=False)
    load = os.getloadavg()[0]
    runs: dict[str, list[dict]] = {}
    for k in range(repeat):
        home = Path(tempfile.mkdtemp(prefix="home.", dir=workdir))  # an empty parse cache
        pair = [("flashrepro-first-run", CLI, home), ("libcachesim-csv", LIBCACHESIM, None)]
        for kernel, body, h in pair[::-1 if k % 2 else 1] + [("flashrepro-cached-run", CLI, home)]:
            r = run(body.format(path=str(path), fmt="msr", cap=10000), h)
            runs.setdefault(kernel, []).append(r)
            print(f"{kernel:<24s} {r['seconds']:7.2f} s ({r['cpu_seconds']:.2f} s CPU)  "
                  f"{r['maxrss'] / 2**20:7.0f} MiB  miss ratio {r['miss_ratio']:.4f}  ({mb:.0f} MB file)", flush=True)
        subprocess.run(["rm", "-rf", str(home)], check=False)
    rows = []
    for kernel, rs in runs.items():
        med = {k: float(np.median([r[k] for r in rs])) for k in ("seconds", "cpu_seconds", "maxrss")}
        assert len({r["miss_ratio"] for r in rs}) == 1
        rows.append({"kernel": kernel, "workload": f"msr-csv-{lines / 1e6:g}M-zipf0.9", "capacity_pages": 10000,
                     "requests": lines, "seconds": round(med["seconds"], 3),
                     "cpu_seconds": round(med["cpu_seconds"], 3), "mreq_per_s": round(lines / med["seconds"] / 1e6, 2),
                     "peak_mib": round(med["maxrss"] / 2**20), "miss_ratio": round(rs[0]["miss_ratio"], 4),
                     "runs": len(rs), "seconds_min": round(min(r["seconds"] for r in rs), 3),
                     "seconds_max": round(max(r["seconds"] for r in rs), 3), "load_avg_1min": round(load, 2)})
    peer = next(r for r in rows if r["kernel"] == "libcachesim-csv")
    print(f"medians of {repeat} (load average {load:.2f} at the start):", flush=True)
    for r in rows:
        print(f"  {r['kernel']:<24s} {r['seconds']:6.2f} s wall ({r['seconds_min']:.2f}-{r['seconds_max']:.2f}), "
              f"{r['cpu_seconds']:.2f} s CPU, {r['peak_mib']} MiB", flush=True)
    for r in rows:
        if r is peer:
            continue
        print(f"{r['kernel']}: {peer['seconds'] / r['seconds']:.2f}x libCacheSim's speed "
              f"({peer['cpu_seconds'] / r['cpu_seconds']:.2f}x in CPU time)", flush=True)
    return rows


def per_request_rows(n: int, workdir: Path) -> list[dict]:
    path = write_lines(workdir / f"spc-{n}.spc", n, spc_chunk)
    home = Path(tempfile.mkdtemp(prefix="home.", dir=workdir))
    idle = run("import flashrepro.traces, flashrepro.cache\nout = {}")["maxrss"]
    bodies = {
        "parse": f"from flashrepro.traces import open_trace\nout = {{'n': len(open_trace({str(path)!r}, 'spc'))}}",
        "generate": f"from flashrepro.traces import synthetic\nout = {{'n': len(synthetic.zipf(1_000_000, {n}, 0.9, "
                    f"seed=1, write_fraction=0.3))}}",
        "simulate": f"from flashrepro.traces import open_trace\nfrom flashrepro.cache import simulate_stream\n"
                    f"res = simulate_stream(open_trace({str(path)!r}, 'spc'), 'lru', 10000)\n"
                    f"out = {{'n': res.counters['references']}}",
    }
    rows = []
    for what, body in bodies.items():
        r = run(body, home)
        per = (r["maxrss"] - idle) / n
        rows.append({"kernel": f"bytes-per-request-{what}", "workload": f"spc-{n // 1_000_000}M", "requests": n,
                     "seconds": round(r["seconds"], 3), "peak_mib": round(r["maxrss"] / 2**20),
                     "bytes_per_request": round(per, 1)})
        print(f"{what:<10s} {per:7.1f} bytes/request above an idle interpreter ({r['maxrss'] / 2**20:.0f} MiB peak)",
              flush=True)
    return rows


def big_rows(lines: int, workdir: Path) -> list[dict]:
    print(f"writing a {lines:,}-line SPC file (once) ...", flush=True)
    path = write_lines(workdir / f"spc-{lines}.spc", lines, spc_chunk)
    home = Path(tempfile.mkdtemp(prefix="home.", dir=workdir))
    r = run(CLI.format(path=str(path), fmt="spc", cap=100000), home)
    print(f"big SPC: {r['seconds']:.0f} s, peak {r['maxrss'] / 2**30:.2f} GiB", flush=True)
    return [{"kernel": "big-spc-simulate", "workload": f"spc-{lines // 1_000_000}M", "capacity_pages": 100000,
             "requests": lines, "seconds": round(r["seconds"], 1), "peak_mib": round(r["maxrss"] / 2**20),
             "miss_ratio": round(r["miss_ratio"], 4)}]


def main(argv=None) -> pl.DataFrame:
    ap = argparse.ArgumentParser()
    ap.add_argument("--msr-lines", type=int, default=5_000_000, help="0 skips the first-run / cached-run rows")
    ap.add_argument("--repeat", type=int, default=5, help="rounds of the first-run / cached-run / libCacheSim rows")
    ap.add_argument("--per-request", type=int, default=5_000_000, help="0 skips the bytes-per-request rows")
    ap.add_argument("--big-lines", type=int, default=200_000_000, help="0 skips the big-trace row")
    a = ap.parse_args(argv)
    workdir = paths.build / "bench" / "io"
    workdir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rows = []
    if a.msr_lines:
        rows += first_run_rows(a.msr_lines, workdir, a.repeat)
    if a.per_request:
        rows += per_request_rows(a.per_request, workdir)
    if a.big_lines:
        rows += big_rows(a.big_lines, workdir)
    for h in workdir.glob("home.*"):
        subprocess.run(["rm", "-rf", str(h)], check=False)
    print(f"bench_io: {time.perf_counter() - t0:.0f} s", flush=True)
    return pl.DataFrame(rows)


if __name__ == "__main__":
    main()
