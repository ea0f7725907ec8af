"""Regenerate the golden trace and golden numbers (tests/data/golden_trace.spc, tests/data/golden.json).

    .venv/bin/python tests/make_golden.py

Run it only when a change to a kernel or reader is meant to change results, and say so in the commit.
The trace is a seeded mixture written in UMass SPC format, so the golden test also exercises a reader.
"""

import json
from pathlib import Path

import numpy as np

from flashrepro._io import write_text_atomic
from flashrepro.cache import lru_mrc, policy_names, simulate
from flashrepro.traces import read_trace, synthetic

HERE = Path(__file__).parent / "data"
TRACE = HERE / "golden_trace.spc"
GOLDEN = HERE / "golden.json"
CAPACITIES = [16, 128, 1024]


def make_trace_text() -> str:
    spec = synthetic.Mixture(n_pages=40_000, hot_pages=2_000, p_hot=0.6, p_seq=0.2)
    tr = synthetic.mixture(spec, 6_000, seed=2024, name="golden")
    lba = tr.offset_bytes // 512
    op = np.where(tr.op == 1, "w", "r")
    return "".join(f"0,{a},{s},{o},{t:.6f}\n" for a, s, o, t in zip(lba, tr.size_bytes, op, tr.time_s, strict=True))


def golden_numbers(path: Path) -> dict:
    tr = read_trace(path, "spc")
    # "source" (a path) and "reading" (the reader's account of the file: its format, lines skipped) are about
    # where and how the file was read, not numbers of the trace
    out = {"stats": {k: v for k, v in tr.stats().items() if k not in ("source", "reading")}, "policies": {}}
    for pol in policy_names():
        out["policies"][pol] = {str(c): simulate(tr, pol, c, flush_at_end=True).counters for c in CAPACITIES}
    out["ftl"] = ftl_numbers(tr)
    out["lru_mrc_misses"] = dict(zip(map(str, CAPACITIES), lru_mrc(tr).misses(CAPACITIES).tolist(), strict=True))
    return out


def ftl_numbers(tr) -> dict:
    """Every FTL policy on the trace's writes (pages renumbered densely), looped 20 times over a small
    device that starts full, under the default GC trigger."""
    from flashrepro.ftl import FTL, POLICIES, Geometry

    refs = tr.to_pages()
    lpns = np.unique(refs.page[refs.is_write], return_inverse=True)[1].astype(np.int32)
    n = int(lpns.max()) + 1
    g = Geometry.for_logical(n, 8, spare=0.15)
    out = {"geometry": [g.pages_per_line, g.n_lines, g.logical_pages]}
    for name in POLICIES:
        f = FTL(g, name)
        f.write(np.arange(n, dtype=np.int32))
        f.reset_counters()
        f.write(np.tile(lpns, 20))
        out[name] = f.counters
    return out


if __name__ == "__main__":
    write_text_atomic(TRACE, make_trace_text())
    write_text_atomic(GOLDEN, json.dumps(golden_numbers(TRACE), indent=1, sort_keys=True) + "\n")
    print(f"wrote {TRACE} and {GOLDEN}")
