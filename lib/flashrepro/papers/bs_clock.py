"""Paper 1, BS-CLOCK (Lee, Lee, Park 2016): workloads, experiment grids and the claims table.

Every function returns polars DataFrames; notebooks/01_bs_clock.ipynb only calls these and plots.
Buffer 4 MB = 1024 pages of 4 KiB, maximum bulk 16 pages unless swept (paper Sec. 4).
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from .. import paths
from .._io import write_text_atomic
from ..cache import simulate
from ..devices import CARDS, io_time
from ..traces import Trace, catalog
from ..traces.sclock import TABLE2, SClockModel, generate

CACHE_PAGES = 1024
MAX_BULK = 16
BULK_SWEEP = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
POLICIES = ["lru", "clock", "cflru", "spatial_clock", "bs_clock"]
MODEL_FILE = "bs_clock_models.json"
REAL_STANDINS = ["real/android/most", "real/personal_pc/mayun", "real/personal_pc/mayun2", "real/personal_pc/mayun4",
                 "real/personal_pc/systemdisk1", "real/cloudphysics/io"]


def paper_numbers() -> pl.DataFrame:
    return pl.read_csv(paths.paper / "bs_clock.csv")


def paper_value(key: str, workload: str) -> float:
    df = paper_numbers().filter((pl.col("key") == key) & (pl.col("workload") == workload))
    return float(df["value"][0])


# --- workload models ----------------------------------------------------------------------------------
def _sc_stats(model: SClockModel, seed: int = 0) -> tuple[float, int]:
    r = simulate(generate(model, seed), "spatial_clock", CACHE_PAGES).to_dict()
    return r["hit_ratio"], r["device_writes"]


def calibrate(workload: str, seed: int = 0, progress: bool = True) -> dict:
    """Fit ``write_stream_share`` and ``hot_pages`` so that Spatial Clock at 4 MB gives the paper's hit ratio
    (Table 5) and pages written (Table 4) on ``workload``: a grid, then a pattern search on the summed
    squared relative errors. Nothing about BS-CLOCK enters."""
    n_reads, n_writes = TABLE2[workload]
    hit_t = paper_value("hit_ratio_spatial_clock", workload)
    written_t = paper_value("pages_written_spatial_clock", workload)

    def loss(s, log_h):
        h, w = _sc_stats(SClockModel(n_reads, n_writes, float(np.clip(s, 0, 1)), int(round(2**log_h))), seed)
        return ((h - hit_t) / hit_t) ** 2 + ((w - written_t) / written_t) ** 2

    grid = [(s, lh) for s in np.linspace(0, 0.9, 19) for lh in np.arange(6, 16.01, 0.5)]
    scores = [loss(s, lh) for s, lh in tqdm(grid, desc=f"calibrate {workload}", disable=not progress, leave=False)]
    s, lh = grid[int(np.argmin(scores))]
    best, step_s, step_h = min(scores), 0.025, 0.25
    while step_s > 1e-4:
        improved = False
        for ds, dh in ((step_s, 0), (-step_s, 0), (0, step_h), (0, -step_h)):
            cand = loss(s + ds, lh + dh)
            if cand < best:
                best, s, lh, improved = cand, float(np.clip(s + ds, 0, 1)), lh + dh, True
        if not improved:
            step_s, step_h = step_s / 2, step_h / 2
    model = SClockModel(n_reads, n_writes, round(float(s), 5), int(round(2**lh)))
    hit, written = _sc_stats(model, seed)
    return {"workload": workload, **dataclasses.asdict(model), "seed": seed,
            "sc_hit_ratio": hit, "sc_hit_ratio_target": hit_t, "sc_pages_written": written,
            "sc_pages_written_target": written_t}


def load_models() -> dict[str, SClockModel]:
    """The calibrated models committed in data/paper (written by ``python -m flashrepro.papers.bs_clock``)."""
    rows = json.loads((paths.paper / MODEL_FILE).read_text())
    fields = {f.name for f in dataclasses.fields(SClockModel)}
    return {r["workload"]: SClockModel(**{k: v for k, v in r.items() if k in fields}) for r in rows}


def calibration_table() -> pl.DataFrame:
    return pl.DataFrame(json.loads((paths.paper / MODEL_FILE).read_text()))


def _model_trace(workload: str, n: int, seed: int) -> Trace:
    m = load_models()[workload]
    return generate(m, seed, name=f"bsclock/{workload}", n_requests=None if n >= m.n_reads + m.n_writes else n)


for _w in TABLE2:
    catalog.add(catalog.Workload(
        f"bsclock/{_w}", f"S-Clock {_w} (BS-CLOCK Table 2), calibrated synthetic model",
        model=lambda n, seed, _w=_w: _model_trace(_w, n, seed), papers=(1,)))


def workloads(scale: str, seed: int, real: bool = True) -> dict[str, Trace]:
    """The three paper workloads (their models, cut to the catalog's cap at ``ci`` and ``quick`` scale)
    and, when ``real`` and present, the real stand-ins."""
    names = [f"bsclock/{w}" for w in TABLE2]
    if real and scale != "ci":
        names += [n for n in REAL_STANDINS if catalog.available(n)]
    return {n: catalog.get(n, scale=scale, seed=seed) for n in names}


# --- experiments ---------------------------------------------------------------------------------------
def run(trace: Trace, policy: str, capacity: int = CACHE_PAGES, **params) -> dict:
    """One simulation, timed on both cards: a flat row."""
    res = simulate(trace, policy, capacity, log_io=True, **params)
    row = {"workload": trace.name, "policy": policy, "capacity_pages": capacity, **params}
    d = res.to_dict()
    row.update({k: d[k] for k in ("hit_ratio", "device_writes", "device_write_requests", "device_reads")})
    row["bulk_cleaned"] = d.get("bulk_cleaned", 0)  # only BS-CLOCK cleans pages in bulk
    row["mean_pages_per_write"] = d["device_writes"] / max(d["device_write_requests"], 1)
    for card_name, card in CARDS.items():
        t = io_time(res.io_log, card)
        row[f"{card_name}_write_s"] = t["write_s"]
        row[f"{card_name}_io_s"] = t["io_s"]
    return row


def table2(traces: dict[str, Trace]) -> pl.DataFrame:
    rows = []
    for name, tr in traces.items():
        w = name.split("/", 1)[1] if name.startswith("bsclock/") else None
        rows.append({"workload": name, "reads": tr.n_reads, "writes": tr.n_writes,
                     "paper_reads": TABLE2[w][0] if w else None, "paper_writes": TABLE2[w][1] if w else None})
    return pl.DataFrame(rows)


def fig2_model(total_bytes: int = 64 * 2**20) -> pl.DataFrame:
    sizes = [2**k for k in range(12, 23)]  # 4 KiB .. 4 MiB
    rows = []
    for name, card in CARDS.items():
        t = card.bulk_write_time(total_bytes, sizes)
        rows += [{"card": name, "request_bytes": s, "seconds": float(x), "source": "model"}
                 for s, x in zip(sizes, t, strict=True)]
    return pl.DataFrame(rows)


def fig2_replay(target, total_bytes: int, sizes=None) -> pl.DataFrame:
    """Fig. 2's experiment measured on this machine's storage (not a microSD card)."""
    from ..replay import write_sweep

    sizes = sizes or [2**k for k in range(12, 21, 2)] + [2**20]
    res = write_sweep(target, total_bytes, sizes)
    return pl.DataFrame([{"card": f"this machine ({r.mode})", "request_bytes": s,
                          "seconds": r.seconds * (64 * 2**20 / total_bytes), "source": "replay"}
                         for s, r in zip(sizes, res, strict=True)])


def bulk_sweep(traces: dict[str, Trace], sizes=BULK_SWEEP) -> pl.DataFrame:
    """Figs. 6-7: BS-CLOCK at 4 MB while the maximum bulk size grows, with Spatial Clock as reference."""
    rows = []
    for tr in tqdm(traces.values(), desc="bulk sweep", leave=False):
        rows.append({**run(tr, "spatial_clock"), "max_bulk_pages": 1})
        rows += [run(tr, "bs_clock", max_bulk_pages=m) for m in sizes]
    return pl.DataFrame(rows)


def compare(traces: dict[str, Trace], policies=POLICIES) -> pl.DataFrame:
    """Tables 4-5, Figs. 8-9: every policy at 4 MB, BS-CLOCK with 16 pages per bulk write."""
    return pl.DataFrame([run(tr, p) for tr in tqdm(traces.values(), desc="policies", leave=False) for p in policies])


def buffer_sweep(traces: dict[str, Trace], sizes_pages=(256, 512, 1024, 2048, 4096, 8192, 16384),
                 policies=POLICIES) -> pl.DataFrame:
    rows = [run(tr, p, c) for tr in tqdm(traces.values(), desc="buffer sweep", leave=False)
            for c in sizes_pages for p in policies]
    return pl.DataFrame(rows)


def ambiguities(traces: dict[str, Trace]) -> pl.DataFrame:
    """How much the two readings the paper leaves open change the results."""
    rows = []
    for tr in traces.values():
        for ins in (True, False):
            rows.append({**run(tr, "spatial_clock", insert_referenced=ins), "variant": f"SC insert_referenced={ins}"})
            rows.append({**run(tr, "bs_clock", insert_referenced=ins), "variant": f"BS insert_referenced={ins}"})
        rows.append({**run(tr, "bs_clock", max_counts_victim=False), "variant": "BS max excludes victim (17 pages)"})
    return pl.DataFrame(rows, strict=False).select(["workload", "variant", "hit_ratio", "device_writes",
                                                    "mean_pages_per_write", "samsung_io_s", "sandisk_io_s"])


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers.bs_clock",
                                 description="calibrate the S-Clock workload models (writes data/paper)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    rows = [calibrate(w, a.seed) for w in TABLE2]
    for r in rows:
        print(json.dumps(r))
    write_text_atomic(paths.paper / MODEL_FILE, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()


# --- claims --------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _row(claim, workload, paper, ours, tolerance, verdict):
    return {"claim": claim, "workload": workload, "paper_value": paper, "our_value": ours, "tolerance": tolerance,
            "verdict": verdict}


def _reduction_verdict(paper: float, ours: float, tol: float = 0.10) -> str:
    if abs(ours - paper) <= tol:
        return "holds"
    return "partly" if ours > 0 else "does not hold"


def claims(cmp: pl.DataFrame, sweep: pl.DataFrame, fig2: pl.DataFrame | None = None,
           traces: dict[str, Trace] | None = None) -> pl.DataFrame:
    """The claims table for every paper-1 number in the papers' index, on the three workload models.

    ``fig2`` (from :func:`fig2_model` / :func:`fig2_replay`) adds the reduction measured on this machine;
    ``traces`` adds the Table 2 counts of the models."""
    rows = []
    for card in CARDS:
        r = CARDS[card].fig2_reduction
        rows.append(_row(f"Fig 2: 1 MB vs 4 KB requests cut time ({card})", "64 MB sequential", _pct(r), _pct(r),
                         "calibration input", "not comparable"))
    if fig2 is not None:
        for card, d in fig2.filter(pl.col("source") == "replay").group_by("card", maintain_order=True):
            t = dict(zip(d["request_bytes"].to_list(), d["seconds"].to_list(), strict=True))
            if 4096 in t and 2**20 in t:
                rows.append(_row("Fig 2: 1 MB vs 4 KB requests cut time (measured here)", card[0],
                                 "35% / 77.5% (microSD)", _pct(1 - t[2**20] / t[4096]), "other device",
                                 "not comparable"))
    for w, (nr, nw) in TABLE2.items():
        tr = (traces or {}).get(f"bsclock/{w}")
        if tr is not None and len(tr) == nr + nw:
            rows.append(_row("Table 2: read and write counts", w, f"{nr} R / {nw} W",
                             f"{tr.n_reads} R / {tr.n_writes} W", "model input", "not comparable"))
    for w in TABLE2:
        d = cmp.filter((pl.col("workload") == f"bsclock/{w}") & (pl.col("policy") == "spatial_clock"))
        if d.height == 0:
            continue
        sc = d.row(0, named=True)
        bs = cmp.filter((pl.col("workload") == f"bsclock/{w}") & (pl.col("policy") == "bs_clock")).row(0, named=True)
        sw = sweep.filter(pl.col("workload") == f"bsclock/{w}")
        h = dict(zip(sw["max_bulk_pages"].to_list(), sw["hit_ratio"].to_list(), strict=True))
        drop = (h[2] - h[1024]) / h[2] if h.get(2) else float("nan")
        rows.append(_row("Fig 6: hit ratio at most 0.3% lower at 4 MB bulk than at 8 KB", w, "<= 0.3%", _pct(drop),
                         "<= 0.5%", "holds" if drop <= 0.005 else "does not hold"))
        for card in CARDS:
            t = dict(zip(sw["max_bulk_pages"].to_list(), sw[f"{card}_io_s"].to_list(), strict=True))
            falls = t[1024] < t[2]
            rows.append(_row(f"Fig 7: I/O time falls as max bulk grows 8 KB -> 4 MB ({card})", w, "falls",
                             f"{t[2]:.1f} s -> {t[1024]:.1f} s", "direction", "holds" if falls else "does not hold"))
            bump = t[64] > t[32]
            rows.append(_row(f"Fig 7: bump between 128 KB and 256 KB ({card})", w, "time rises", "rises" if bump
                             else "no rise", "direction", "holds" if bump else "does not hold"))
        p_bs, p_sc = paper_value("pages_written_bs_clock", w), paper_value("pages_written_spatial_clock", w)
        ours_inc = bs["device_writes"] / sc["device_writes"] - 1
        paper_inc = p_bs / p_sc - 1
        rows.append(_row("Table 4: BS-CLOCK writes more pages than Spatial Clock", w,
                         f"{int(p_bs)} vs {int(p_sc)} (+{_pct(paper_inc)})",
                         f"{bs['device_writes']} vs {sc['device_writes']} (+{_pct(ours_inc)})",
                         "increase within 5 pts", "holds" if abs(ours_inc - paper_inc) <= 0.05
                         else ("partly" if ours_inc >= 0 else "does not hold")))
        rows.append(_row("Table 4: Spatial Clock pages written", w, str(int(p_sc)), str(sc["device_writes"]),
                         "calibration target", "not comparable"))
        p_hbs, p_hsc = paper_value("hit_ratio_bs_clock", w), paper_value("hit_ratio_spatial_clock", w)
        rows.append(_row("Table 5: BS-CLOCK hit ratio barely below Spatial Clock's", w,
                         f"{p_hbs:.3f} vs {p_hsc:.3f}", f"{bs['hit_ratio']:.3f} vs {sc['hit_ratio']:.3f}",
                         "drop <= 1%", "holds" if (sc["hit_ratio"] - bs["hit_ratio"]) / sc["hit_ratio"] <= 0.01
                         else "does not hold"))
        for card in CARDS:
            paper_red = paper_value("io_time_reduction", f"{card}/{w}")
            ours_red = 1 - bs[f"{card}_io_s"] / sc[f"{card}_io_s"]
            rows.append(_row(f"Figs 8-9: BS-CLOCK I/O time reduction vs Spatial Clock ({card})", w, _pct(paper_red),
                             _pct(ours_red), "+-10 pts", _reduction_verdict(paper_red, ours_red)))
    return pl.DataFrame(rows)


# --- figures -------------------------------------------------------------------------------------------
def _short(name: str) -> str:
    return name.split("/", 1)[1]


def plot_fig2(df: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (card, source), d in df.group_by(["card", "source"], maintain_order=True):
        style = "o-" if source == "model" else "s--"
        ax.plot(d["request_bytes"] / 1024, d["seconds"], style, label=f"{card} ({source})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("request size (KiB)")
    ax.set_ylabel("time to write 64 MB (s)")
    ax.set_title("Fig. 2: writing 64 MB in requests of each size")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_bulk_sweep(sweep: pl.DataFrame):
    """Figs. 6 and 7 in one figure: hit ratio, I/O time per card, mean pages per write."""
    import matplotlib.pyplot as plt

    bs = sweep.filter(pl.col("policy") == "bs_clock")
    names = bs["workload"].unique(maintain_order=True).to_list()
    panels = [("hit_ratio", "hit ratio (Fig. 6)"), ("samsung_io_s", "I/O time, Samsung model (s)"),
              ("sandisk_io_s", "I/O time, SanDisk model (s)"), ("mean_pages_per_write", "mean pages per write")]
    fig, axes = plt.subplots(len(names), len(panels), figsize=(3.2 * len(panels), 2.3 * len(names)), squeeze=False)
    for i, name in enumerate(names):
        d = bs.filter(pl.col("workload") == name)
        sc = sweep.filter((pl.col("workload") == name) & (pl.col("policy") == "spatial_clock")).row(0, named=True)
        for j, (col, label) in enumerate(panels):
            ax = axes[i, j]
            ax.plot(d["max_bulk_pages"] * 4, d[col], "o-", ms=3, label="BS-CLOCK")
            ax.axhline(sc[col], color="gray", ls=":", label="Spatial Clock")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{_short(name)}: {label}", fontsize=8)
            if i == len(names) - 1:
                ax.set_xlabel("max bulk write (KiB)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Figs. 6-7: BS-CLOCK at 4 MB as the maximum bulk size grows")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    return fig


def plot_policies(cmp: pl.DataFrame):
    """Figs. 8-9: I/O time per policy, workload and card."""
    import matplotlib.pyplot as plt

    names = cmp["workload"].unique(maintain_order=True).to_list()
    pols = cmp["policy"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(2, len(names), figsize=(2.6 * len(names), 5.2), squeeze=False)
    for j, name in enumerate(names):
        d = cmp.filter(pl.col("workload") == name)
        for i, card in enumerate(CARDS):
            ax = axes[i, j]
            t = [d.filter(pl.col("policy") == p)[f"{card}_io_s"][0] for p in pols]
            ax.bar(range(len(pols)), t, color=[f"C{k}" for k in range(len(pols))])
            ax.set_xticks(range(len(pols)), pols, rotation=60, fontsize=7)
            ax.set_title(f"{_short(name)} ({card})", fontsize=8)
            if j == 0:
                ax.set_ylabel("I/O time (s)")
    fig.suptitle("Figs. 8-9: I/O time of the after-cache trace on the card models, buffer 4 MB")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


def plot_buffer_sweep(bsw: pl.DataFrame):
    import matplotlib.pyplot as plt

    names = bsw["workload"].unique(maintain_order=True).to_list()
    cols = [("hit_ratio", "hit ratio"), ("samsung_io_s", "I/O time Samsung (s)"),
            ("sandisk_io_s", "I/O time SanDisk (s)")]
    fig, axes = plt.subplots(len(names), 3, figsize=(10, 2.3 * len(names)), squeeze=False)
    for i, name in enumerate(names):
        for j, (col, label) in enumerate(cols):
            ax = axes[i, j]
            for p, d in bsw.filter(pl.col("workload") == name).group_by("policy", maintain_order=True):
                ax.plot(d["capacity_pages"] * 4 / 1024, d[col], "o-", ms=3, label=p[0])
            ax.set_xscale("log", base=2)
            ax.set_title(f"{_short(name)}: {label}", fontsize=8)
            if i == len(names) - 1:
                ax.set_xlabel("buffer (MiB)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("All five policies over buffer sizes")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig
