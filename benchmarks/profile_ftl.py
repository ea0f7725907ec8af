"""Where each FTL victim rule's time goes: CPU samples (Linux ``perf``) per compiled function, on the stream of
``make bench``'s FTL rows.

    make profile-ftl                                   # every rule under both triggers -> results/ftl_profile.csv
    .venv/bin/python benchmarks/profile_ftl.py --policies cost-benefit --triggers femu --writes 5000000

``perf`` cannot name the functions Numba compiles (they have no symbols on disk), so the profiled process
compiles the FTL afresh, in a temporary Numba cache (code loaded from the cache keeps no object file), and
writes the symbol table of every compiled object (``nm``) with the address it was loaded at. Each policy runs
as in ``make bench`` (the device filled, a tenth of the stream to warm it, then the timed writes), and only
the samples taken during its timed writes count: ``perf`` records with ``CLOCK_MONOTONIC`` and the run notes
when each policy's timed writes start and end. A sample outside every compiled function (NumPy, the
interpreter, the operating system) counts as ``outside``.

Each function is put in one ``part`` (:data:`PARTS`): the host loop, copying and erasing a victim, the
victim rule itself, the structures the mechanism keeps for the rule (age rows, slot bitsets, bucket lists, heap),
and the rest of garbage collection's bookkeeping. Shares, like ``bench.csv``'s rates, depend on the
machine; ``make`` neither reads nor writes this file. docs/benchmarks.md renders it (``make docs``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# What each compiled function of the FTL is part of (the first prefix that matches its dotted name; a rule's own
# module is "rule", any other function of the mechanism "gc").
PARTS = (
    ("ftl._kernel._host_writes", "host"),
    ("ftl._kernel.write_chunk", "host"),
    ("ftl._kernel._copy_erase", "copy"),
    ("ftl.victims.", "rule"),
    ("ftl._kernel.sync_ages", "rule structures"),
    ("ftl._kernel._age_", "rule structures"),
    ("ftl._kernel._slot_", "rule structures"),
    ("ftl._kernel.slot_", "rule structures"),
    ("ftl._kernel.rebuild_buckets", "rule structures"),
    ("ftl._kernel._heap_", "rule structures"),
    ("ftl._kernel.", "gc"),
)
PART_ORDER = ("host", "copy", "rule", "rule structures", "gc", "other compiled", "outside")


def demangle(symbol: str) -> str | None:
    """The dotted name of a function Numba compiled (``_ZN10flashrepro3ftl7_kernel11_copy_eraseB4v158...`` ->
    ``ftl._kernel._copy_erase``, without the package's name), or None for anything else: Numba's wrappers
    (``_ZN7cpython...``, ``cfunc...``) and symbols not in its naming scheme."""
    if not symbol.startswith("_ZN"):
        return None
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    if not parts or parts[0] == "cpython":
        return None
    if parts[0] == "flashrepro":
        parts = parts[1:]
    return ".".join(parts) or None


def part_of(function: str) -> str:
    """The :data:`PARTS` entry of a compiled function's dotted name ("other compiled" if none matches)."""
    for prefix, part in PARTS:
        if function.startswith(prefix):
            return part
    return "other compiled"


def attribute(samples, windows, symbols) -> dict:
    """Samples per (window, function): ``samples`` are ``(time, address)``, ``windows`` ``(name, start, end)``
    (disjoint, by time) and ``symbols`` ``(address, size, function)``; a sample in a window but in no symbol
    counts as ``outside``, a sample in no window is dropped. Returns ``{(window name, function): count}``."""
    import bisect

    symbols = sorted(symbols)
    starts = [s[0] for s in symbols]
    wins = sorted(windows, key=lambda w: w[1])
    wstarts = [w[1] for w in wins]
    out: dict = {}
    for t, ip in samples:
        k = bisect.bisect_right(wstarts, t) - 1
        if k < 0 or t > wins[k][2]:
            continue
        i = bisect.bisect_right(starts, ip) - 1
        fn = symbols[i][2] if i >= 0 and ip < symbols[i][0] + symbols[i][1] else "outside"
        key = (wins[k][0], fn)
        out[key] = out.get(key, 0) + 1
    return out


def parse_perf_script(text: str):
    """``(time, address)`` of each line of ``perf script -F time,ip`` output."""
    out = []
    for line in text.splitlines():
        head, _, ip = line.partition(":")
        try:
            out.append((float(head), int(ip.strip(), 16)))
        except ValueError:
            continue
    return out


# --------------------------------------------------------------------------------------------- the profiled run

def _compiled_symbols() -> list[tuple[int, int, str]]:
    """``(address, size, function)`` of every function compiled so far in the FTL's modules (the mechanism, the
    victim rules, jitkit): each library's object file's symbols (``nm``), placed by its entry point."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import flashrepro.ftl._kernel as kernel
    import flashrepro.ftl.victims as victims
    import flashrepro.jitkit as jitkit

    mods = [kernel, jitkit] + [importlib.import_module(f"{victims.__name__}.{m.name}")
                               for m in pkgutil.iter_modules(victims.__path__)]
    out, tmp = [], Path(tempfile.mkdtemp(prefix="profile-ftl-"))
    try:
        for d in {id(d): d for m in mods for d in vars(m).values() if isinstance(d, CPUDispatcher)}.values():
            for cres in d.overloads.values():
                lib = cres.library
                try:
                    obj = lib.serialize_using_object_code()[2][0]
                except (ValueError, RuntimeError):  # loaded from a cache, or not compiled to an object
                    continue
                path = tmp / "lib.o"
                path.write_bytes(obj)
                nm = subprocess.run(["nm", "-S", "--defined-only", str(path)], capture_output=True, text=True,
                                    check=True).stdout
                syms = [(int(a, 16), int(s, 16), name) for a, s, kind, name in
                        (line.split() for line in nm.splitlines() if len(line.split()) == 4) if kind in "tT"]
                entry = cres.fndesc.llvm_func_name
                at = [a for a, _, name in syms if name == entry]
                base = lib.get_pointer_to_function(entry)
                if not at or not base:
                    continue
                out += [(base - at[0] + a, s, fn) for a, s, name in syms if (fn := demangle(name))]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def child(out: Path, policies: list[str], triggers: list[str], n_writes: int) -> None:
    """The profiled process: each policy under each trigger, timed as ``make bench`` times it; writes the
    windows, rates and symbols to ``out`` (JSON)."""
    import itertools

    import numpy as np
    from bench_kernels import ftl_policies  # (this script's folder is on the path, as bench_kernels' is)

    from flashrepro.ftl import FTL, GEOMETRIES
    from flashrepro.papers.twor import workloads as twor

    by_name = {p.name: p for p in ftl_policies()}
    g, stream = GEOMETRIES["8GB"], twor.fio_stream(0.9)
    w = np.concatenate(list(itertools.islice(stream.chunks(1 << 20), -(-n_writes // (1 << 20)))))[:n_writes]
    warm = len(w) // 10
    runs = []
    for trigger, name in itertools.product(triggers, policies):
        f = FTL(g, by_name[name], trigger)
        f.write(np.arange(stream.prefill, dtype=np.int32))
        f.write(w[:warm])  # compiles this rule (on the first run of each)
        f.reset_counters()
        t0, c0 = time.clock_gettime(time.CLOCK_MONOTONIC), time.process_time()
        f.write(w[warm:])
        cpu, t1 = time.process_time() - c0, time.clock_gettime(time.CLOCK_MONOTONIC)
        n = len(w) - warm
        runs.append({"policy": name, "victim": by_name[name].victim, "trigger": trigger, "start": t0, "end": t1,
                     "writes": n, "cpu_seconds": round(cpu, 4), "mreq_per_s": round(n / cpu / 1e6, 2),
                     "waf": round(f.waf(), 3)})
        print(f"  {name:<18s} {trigger:<8s} {n / cpu / 1e6:6.1f} M host writes/s", file=sys.stderr, flush=True)
    out.write_text(json.dumps({"runs": runs, "symbols": _compiled_symbols()}))


def rows(runs: list[dict], counts: dict) -> list[dict]:
    """One row per run and function with samples, its part and its share of the run's samples, biggest first."""
    out = []
    for r in runs:
        key = f"{r['policy']}@{r['trigger']}"
        fns = {fn: c for (k, fn), c in counts.items() if k == key}
        total = sum(fns.values())
        for fn, c in sorted(fns.items(), key=lambda x: (-x[1], x[0])):
            out.append({k: r[k] for k in ("policy", "victim", "trigger", "writes", "cpu_seconds", "mreq_per_s", "waf")}
                       | {"function": fn, "part": "outside" if fn == "outside" else part_of(fn), "samples": c,
                          "share": round(c / total, 4)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policies", default="", help="comma-separated (default: every policy make bench times)")
    ap.add_argument("--triggers", default="femu,reserve")
    ap.add_argument("--writes", type=int, default=20_000_000, help="writes of the stream (a tenth warms the device)")
    ap.add_argument("--frequency", type=int, default=999, help="perf's samples per second")
    ap.add_argument("--out", type=Path, default=None, help="default: results/ftl_profile.csv")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.policies:
        policies = a.policies.split(",")
    else:
        from bench_kernels import ftl_policies
        policies = [p.name for p in ftl_policies()]
    triggers = a.triggers.split(",")
    if a.child:
        child(a.child, policies, triggers, a.writes)
        return 0
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            print(f"profile_ftl: needs `{tool}` on PATH (Debian: apt-get install linux-perf binutils)", file=sys.stderr)
            return 2
    import polars as pl

    from flashrepro import paths
    from flashrepro.tempfiles import atomic_path

    out = a.out or paths.results / "ftl_profile.csv"
    with tempfile.TemporaryDirectory(prefix="profile-ftl-") as tmp:
        data, info, cache = Path(tmp) / "perf.data", Path(tmp) / "run.json", Path(tmp) / "numba"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), FLASHREPRO_JIT_CACHE=str(cache))
        cmd = ["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-F", str(a.frequency), "-o", str(data), "--",
               sys.executable, __file__, "--child", str(info), "--policies", ",".join(policies),
               "--triggers", ",".join(triggers), "--writes", str(a.writes)]
        print("compiling the FTL afresh, then profiling ...", file=sys.stderr, flush=True)
        subprocess.run(cmd, env=env, check=True)
        script = subprocess.run(["perf", "script", "-i", str(data), "-F", "time,ip"], capture_output=True,
                                text=True, check=True).stdout
        run = json.loads(info.read_text())
    windows = [(f"{r['policy']}@{r['trigger']}", r["start"], r["end"]) for r in run["runs"]]
    counts = attribute(parse_perf_script(script), windows, [tuple(s) for s in run["symbols"]])
    df = pl.DataFrame(rows(run["runs"], counts))
    with atomic_path(out) as tmp_out:
        df.write_csv(tmp_out)
    print(f"wrote {out} ({df.height} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
