"""One figure per paper figure or table that holds headline claims (see :mod:`flashrepro.robustness`)."""

from __future__ import annotations

import math

import numpy as np

from . import Axis, load
from .files import _fmt, read


# --- figures -----------------------------------------------------------------------------------------------
def figure_slug(source: str) -> str:
    """The paper figure or table a ``source`` names first ("Fig. 10A, Sec. 5.2" -> "fig10a", "Table 4" ->
    "table4"), or "other"."""
    import re

    m = re.search(r"\b(Fig(?:ure)?s?|Tables?)\.?\s*(\d+)([A-Za-z]?)", source or "")
    if m is None:
        return "other"
    return ("table" if m.group(1).lower().startswith("table") else "fig") + m.group(2) + m.group(3).lower()


def _coord(axis: Axis, values) -> tuple[np.ndarray, str]:
    """Plotting coordinates of an axis's values (log10 for a log axis, the index of a choice) and a label."""
    if axis.scale == "choice":
        lookup = {_fmt(c): i for i, c in enumerate(axis.choices)}
        return np.array([lookup.get(_fmt(v), np.nan) for v in values], float), axis.name
    x = np.array([float(v) for v in values], float)
    if axis.scale == "log":
        return np.log10(x), f"log10 {axis.name}"
    return x, axis.name


def _top_axes(space, sens, r) -> tuple[str, str | None]:
    """The two axes that move claim row ``r`` most (its sensitivity rows in ``sens``: the RBD-FAST first-order
    index, or the delta index, then |Spearman rho|, then the space's order); the second is None in a
    one-axis space."""
    import polars as pl

    s = sens.filter((pl.col("claim") == r["claim"]) & (pl.col("workload") == r["workload"]))
    key = "rbd_fast_s1" if r["sensitivity_method"] == "rbd_fast" else "delta"
    score = {a: (v if v is not None and math.isfinite(v) else -math.inf, -abs(rho or 0.0))
             for a, v, rho in zip(s["axis"], s[key], s["spearman_rho"], strict=True)}
    order = sorted(space.names, key=lambda a: (-score.get(a, (-math.inf, 0))[0],
                                                 score.get(a, (0, 0))[1], space.names.index(a)))
    return order[0], order[1] if len(order) > 1 else None


def _panel(fig, ax, r, space, sens, long, by_axis) -> None:
    """Claim row ``r``'s panel on ``ax``: our value at every point of the map (``long``) over its two most
    influential axes (colour; crosses where it is not computable), the paper's number as a contour, the
    default point, and the share of points where it holds in the title."""
    import textwrap

    import polars as pl

    axes_by_name = {a.name: a for a in space.axes}
    ax_x, ax_y = _top_axes(space, sens, r)
    c = long.filter((pl.col("claim") == r["claim"]) & (pl.col("workload") == r["workload"]))
    idx = [int(i) for i in c["point"].to_list()]
    v = np.array([np.nan if x is None else x for x in c["our_value"].to_list()], float)
    xs, xl = _coord(axes_by_name[ax_x], [by_axis[ax_x]["value"][i] for i in idx])
    if ax_y is not None:
        ys, yl = _coord(axes_by_name[ax_y], [by_axis[ax_y]["value"][i] for i in idx])
    else:
        ys, yl = v, "our value"
    ok = np.isfinite(v)
    sc = ax.scatter(xs[ok], ys[ok], c=v[ok], cmap="viridis", s=22, edgecolors="none")
    if (~ok).any():
        ax.scatter(xs[~ok], ys[~ok], marker="x", color="0.6", s=18, label="not computable")
    if ok.any():
        fig.colorbar(sc, ax=ax, label=r["unit"] or "our value")
    level = r["paper_value"]
    if (level is None or not math.isfinite(level)) and r["expected"] in ("positive", "negative"):
        level = 0.0
    if ax_y is not None and level is not None and math.isfinite(level) and ok.sum() >= 3 \
            and np.nanmin(v) < level < np.nanmax(v):
        try:
            ax.tricontour(xs[ok], ys[ok], v[ok], levels=[level], colors="crimson", linewidths=1.4)
            ax.plot([], [], color="crimson", label=f"paper: {level:.4g}")
        except (ValueError, RuntimeError):  # degenerate triangulation (e.g. a choice axis): no contour
            pass
    dx, _ = _coord(axes_by_name[ax_x], [axes_by_name[ax_x].default])
    if ax_y is not None:
        dy, _ = _coord(axes_by_name[ax_y], [axes_by_name[ax_y].default])
        ax.plot(dx, dy, marker="*", color="black", markersize=13, linestyle="none", label="default")
    else:
        ax.axvline(dx[0], color="black", linestyle=":", label="default")
    for a, which in ((axes_by_name[ax_x], "x"), (axes_by_name.get(ax_y), "y")):
        if a is not None and a.scale == "choice":
            getattr(ax, f"set_{which}ticks")(range(len(a.choices)), [str(ch) for ch in a.choices])
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    share = r["holds_share"]
    ax.set_title("\n".join(textwrap.wrap(f"{r['claim']} [{r['workload']}]", 48)) +
                 f"\nholds on {share:.0%} (default: {r['default_verdict']})"
                 if share is not None and math.isfinite(share) else r["claim"], fontsize=8)
    ax.legend(fontsize=7, loc="best")


def plot_paper(paper, out_dir=None, figures_dir=None, map: str = "reduced") -> list:
    """One figure per paper figure or table holding headline claims (grouped by the ``source`` column), a
    panel per claim: our value over its two most influential axes (colour), the paper's number as a contour
    (``tricontour`` at that level; the sign boundary 0 for a sign claim), the default point marked (star).
    Reads the map's CSVs in ``out_dir``; writes ``<figures_dir>/robustness_<paper>_<slug>.png`` (default
    ``figures/``, or ``figures/robustness_full/`` for the full map) and returns the paths."""
    from pathlib import Path

    import polars as pl
    from matplotlib.figure import Figure

    from .. import paths
    from .._io import atomic_path

    mod = load(paper)
    if mod is None:
        return []
    space = mod.SPACE
    t = read(out_dir, map)
    if figures_dir is None:
        figures_dir = paths.figures if map == "reduced" else paths.figures / "robustness_full"
    figures_dir = Path(figures_dir)
    num = str(space.paper)
    head = t["headline.csv"].filter(pl.col("paper") == num)
    long = t["robustness.csv"].filter(pl.col("paper") == num)
    pts = t["robustness_points.csv"].filter(pl.col("paper") == num)
    sens = t["robustness_sensitivity.csv"].filter(pl.col("paper") == num)
    by_axis = {a: pts.filter(pl.col("axis") == a).sort(pl.col("point").cast(pl.Int64)) for a in space.names}
    groups: dict = {}
    for r in head.iter_rows(named=True):
        groups.setdefault(figure_slug(r["source"]), []).append(r)
    written = []
    for slug, rows in groups.items():
        ncol = min(3, len(rows))
        nrow = -(-len(rows) // ncol)
        fig = Figure(figsize=(4.6 * ncol, 3.9 * nrow), layout="constrained")
        for k, r in enumerate(rows):
            ax = fig.add_subplot(nrow, ncol, k + 1)
            _panel(fig, ax, r, space, sens, long, by_axis)
        label = "other sources" if slug == "other" else \
            ("Table " + slug[5:] if slug.startswith("table") else "Fig. " + slug[3:].upper())
        fig.suptitle(f"Paper {num}, {label}: headline claims across the space ({map} map)", fontsize=10)
        figures_dir.mkdir(parents=True, exist_ok=True)
        target = figures_dir / f"robustness_{num}_{slug}.png"
        with atomic_path(target) as tmp:
            fig.savefig(tmp, dpi=110, format="png", metadata={"Software": None})
        written.append(target)
    return written
