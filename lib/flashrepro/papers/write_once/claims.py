"""Paper 5 claims: every number of ../shared/papers/INDEX.md "Paper 5" against ours, through the one ledger."""

from __future__ import annotations

import polars as pl

from ... import claims as L
from .workloads import TABLE2, paper_value

PAPER = 5
TOL = 0.15  # relative tolerance of a printed number (as in papers 1 and 4)


def _models(df: pl.DataFrame) -> pl.DataFrame:
    return df.filter(pl.col("workload").str.starts_with("writeonce/"))


def _real(df: pl.DataFrame) -> pl.DataFrame:
    return df.filter(~pl.col("workload").str.starts_with("writeonce/"))


def _short(name: str) -> str:
    return name.split("/", 1)[1] if name.startswith("writeonce/") else name.removeprefix("real/")


def equal_miss_points(q78: pl.DataFrame) -> pl.DataFrame:
    """Per workload, the row of Figs. 7-8's grid where write_once at a quarter of the cache comes closest to
    lru_flush's miss ratio (the paper compares the two at equal performance)."""
    return (q78.with_columns((pl.col("miss_ratio_wo") - pl.col("miss_ratio")).abs().alias("_gap"))
            .sort("workload", "_gap", "fraction").group_by("workload", maintain_order=True).first().drop("_gap"))


def _fig5(out, red: pl.DataFrame, col: str, what: str, real: bool):
    for w, d in red.group_by("workload", maintain_order=True):
        d = d.sort("fraction")
        curve = d[col].to_list()
        detail = ", ".join(f"{f:g}: {v:+.3f}" for f, v in zip(d["fraction"].to_list(), curve, strict=True))
        out.append(L.direction(PAPER, f"Fig. 5: {what} lower with write_once at every cache size", _short(w[0]),
                               "positive", min(curve), unit="smallest relative reduction", source="Fig. 5",
                               detail=f"reduction by cache size / footprint: {detail}"))
        if not real and col == "miss_reduction":
            out.append(L.direction(PAPER, "Fig. 5: the gain is larger for small caches", _short(w[0]), "decreasing",
                                   curve, x=[f"{f:g}" for f in d["fraction"].to_list()], source="Fig. 5"))


def claims(tab2: pl.DataFrame, red: pl.DataFrame, eq6: pl.DataFrame, q78: pl.DataFrame) -> pl.DataFrame:
    """``tab2`` from :func:`~.workloads.table2`, ``red`` from :func:`~.experiments.reductions`, ``eq6`` from
    :func:`~.experiments.equal_miss_sizes` (Mix1), ``q78`` from :func:`~.experiments.quarter_cache`."""
    out = []
    models, real = _models(tab2), _real(tab2)
    for r in models.iter_rows(named=True):
        w = _short(r["workload"])
        refs, ratio = TABLE2[w]
        if r["references"] == refs:
            out.append(L.calibration(PAPER, "Table 2: references", w, refs, r["references"], "references",
                                     source="Table 2", note="the model is built with it"))
        out.append(L.calibration(PAPER, "Table 2: writes per read", w, ratio, r["writes_per_read"], "ratio",
                                 source="Table 2", note="the model is built with it"))
        out.append(L.calibration(PAPER, "Fig. 2: share of written blocks written once (up to 95%)", w, 0.95,
                                 r["written_once_share"], "fraction", source="Fig. 2",
                                 note="every model is fitted to the stated maximum"))
    if models.height:
        out.append(L.calibration(PAPER, "Fig. 1: writes are 54-97% of file accesses (lowest)", "models",
                                 paper_value("write_share_min"), models["write_share"].min(), "fraction",
                                 source="Fig. 1", note="follows from Table 2's ratios, the models' input"))
    if real.height:
        lo, hi = real.sort("write_share").row(0, named=True), real.sort("write_share").row(-1, named=True)
        detail = ", ".join(f"{_short(a)} {b:.3f}" for a, b in zip(real["workload"], real["write_share"], strict=True))
        out.append(L.direction(PAPER, "Fig. 1: writes are at least 54% of file accesses", "real traces", "at least",
                               lo["write_share"], paper_value=paper_value("write_share_min"), unit="fraction",
                               source="Fig. 1", detail=f"lowest: {_short(lo['workload'])}; {detail}"))
        out.append(L.value(PAPER, "Fig. 1: up to 97% of file accesses are writes", "real traces",
                           paper_value("write_share_max"), hi["write_share"], TOL, "fraction", source="Fig. 1",
                           detail=f"highest: {_short(hi['workload'])}"))
        top = real.sort("written_once_share").row(-1, named=True)
        detail = ", ".join(f"{_short(a)} {b:.3f}" for a, b in zip(real["workload"], real["written_once_share"],
                                                                 strict=True))
        out.append(L.value(PAPER, "Fig. 2: up to 95% of written blocks are written once", "real traces",
                           paper_value("written_once_share_max"), top["written_once_share"], TOL, "fraction",
                           source="Fig. 2", detail=f"highest: {_short(top['workload'])}; {detail}"))
    # Fig. 5: both readings of "miss": every reference that misses, or only those that read flash
    mred, rred = _models(red), _real(red)
    for col, what in (("miss_reduction", "miss ratio (all references)"),
                      ("flash_read_reduction", "flash reads (read misses)")):
        _fig5(out, mred, col, what, real=False)
        _fig5(out, rred, col, what, real=True)
        if mred.height:
            lo, hi = mred[col].min(), mred[col].max()
            out.append(L.value(PAPER, f"Fig. 5: {what} 5-33% lower (smallest gain)", "models",
                               paper_value("miss_ratio_reduction_min"), lo, TOL, "relative reduction", same_sign=True,
                               source="Fig. 5, abstract", detail="the smallest over workloads and cache sizes"))
            out.append(L.value(PAPER, f"Fig. 5: {what} 5-33% lower (largest gain)", "models",
                               paper_value("miss_ratio_reduction_max"), hi, TOL, "relative reduction", same_sign=True,
                               source="Fig. 5, abstract", detail="the largest over workloads and cache sizes"))
    # Fig. 6: Mix1, the cache write_once needs for lru_flush's miss ratio
    if eq6.height:
        found = eq6.filter(pl.col("size_ratio").is_not_null())
        detail = ", ".join(f"{c}: {r:.3f}" for c, r in zip(found["capacity_blocks"], found["size_ratio"], strict=True))
        note = f"lru_flush size: ratio; {eq6.height - found.height} lru_flush sizes have no equal point"
        if found.height:
            out.append(L.direction(PAPER, "Fig. 6: equal miss ratio with 1/4 of the cache or less (best point)",
                                   "Mix1", "at most", found["size_ratio"].min(), paper_value=0.25, unit="size ratio",
                                   source="Fig. 6", detail=f"{detail} ({note})"))
            out.append(L.direction(PAPER, "Fig. 6: equal miss ratio with 1/4 of the cache or less (every point)",
                                   "Mix1", "at most", found["size_ratio"].max(), paper_value=0.25, unit="size ratio",
                                   source="Fig. 6", detail=f"{detail} ({note})"))
    # Figs. 7-8 at the point where a quarter of the cache comes closest to lru_flush's miss ratio
    pts = equal_miss_points(_models(q78))
    for r in pts.iter_rows(named=True):
        w = _short(r["workload"])
        detail = (f"lru_flush {r['capacity_blocks']} blocks ({r['fraction']:g} of the footprint), miss ratio "
                  f"{r['miss_ratio']:.3f}; write_once {r['write_once_blocks']} blocks, {r['miss_ratio_wo']:.3f}")
        out.append(L.value(PAPER, "Fig. 7: execution time about equal at 1/4 of the cache", w,
                           paper_value("time_ratio"), r["time_ratio"], 0.05, "time ratio", source="Fig. 7",
                           detail=detail))
        out.append(L.direction(PAPER, "Fig. 8: energy lower at 1/4 of the cache", w, "positive",
                               r["energy_reduction"], unit="relative reduction", source="Fig. 8",
                               detail=f"{detail}; refresh {r['refresh_share']:.1%} of lru_flush's energy"))
    if pts.height:
        e = pts["energy_reduction"]
        for key, val, label in (("energy_reduction_min", e.min(), "smallest"),
                                ("energy_reduction_max", e.max(), "largest"),
                                ("energy_reduction_mean", e.mean(), "mean")):
            out.append(L.value(PAPER, f"Fig. 8: energy 27-92% lower, 64% on average ({label})", "models",
                               paper_value(key), val, TOL, "relative reduction", same_sign=True,
                               source="Fig. 8, Sec. IV", detail=", ".join(
                                   f"{_short(a)} {b:.3f}" for a, b in zip(pts["workload"], e, strict=True))))
    return L.table(out)
