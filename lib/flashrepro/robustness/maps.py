"""Running a map, judging and summarising it, and its four CSVs (see :mod:`flashrepro.robustness`)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import CLAIMS_SCALE, DEFAULT_POINTS, MAPS, PAPERS, Space, load, module_name, paper_seed
from .files import (
    FILES,
    POINT_COLUMNS,
    _fmt,
    _map_dir,
    _write_all,
    read,
)


@dataclasses.dataclass
class _Plan:
    paper: int
    module: str
    space: Space
    headline: tuple
    map_scale: str
    seed: int
    u: np.ndarray
    points: list


@dataclasses.dataclass
class MapResult:
    """What :func:`run_map` computed (numeric frames; the CSVs hold the same, formatted)."""

    map: str
    out_dir: object
    long: object  # polars frames: robustness.csv, robustness_points.csv, headline.csv, robustness_sensitivity.csv
    points: object
    headline: object
    sensitivity: object
    failures: list
    skipped: list
    wall_s: float = 0.0
    seconds: dict = dataclasses.field(default_factory=dict)  # paper -> CPU-side wall time of its points
    figures: list = dataclasses.field(default_factory=list)


def _plan(paper, map: str, n: int, seed: int) -> _Plan | None:
    mod = load(paper)
    if mod is None:
        return None
    space = mod.SPACE
    if not isinstance(space, Space):
        raise TypeError(f"{mod.__name__}.SPACE must be a robustness.Space")
    headline = tuple(mod.HEADLINE)
    if not headline or not all(isinstance(c, str) for c in headline):
        raise ValueError(f"{mod.__name__}.HEADLINE must be a non-empty tuple of claim strings")
    if map not in mod.MAP_SCALE:
        raise ValueError(f"{mod.__name__}.MAP_SCALE has no scale for the {map!r} map")
    s = paper_seed(seed, space.paper)
    u = space.unit_sample(n, s)
    return _Plan(space.paper, mod.__name__, space, headline, mod.MAP_SCALE[map], s, u, space.values(u))


def _targets(plans: list[_Plan], from_ledger: dict, bias: bool, claims_scale: str):
    """What :func:`flashrepro.sweep.run_points` runs for ``plans``: ``(targets, kwargs, where)``, ``where[k]`` saying
    what run ``k`` is, ``(plan index, what, point index)``: the defaults at the claims' scale (unless read from a
    ledger, ``from_ledger``) first, so a pool starts the slow ones early; then per plan its stand-ins, its
    default at the map's scale and its points."""
    targets, kwargs, where = [], [], []
    for j, pl_ in enumerate(plans):
        if bias and claims_scale != pl_.map_scale and j not in from_ledger:
            targets.append((pl_.module, "point"))
            kwargs.append({"scale": claims_scale, **pl_.space.default()})
            where.append((j, "claims", None))
    for j, pl_ in enumerate(plans):
        targets.append((pl_.module, "stand_ins"))
        kwargs.append({"scale": pl_.map_scale})
        where.append((j, "stand_ins", None))
        targets.append((pl_.module, "point"))
        kwargs.append({"scale": pl_.map_scale, **pl_.space.default()})
        where.append((j, "default", None))
        for i, values in enumerate(pl_.points):
            targets.append((pl_.module, "point"))
            kwargs.append({"scale": pl_.map_scale, **values})
            where.append((j, "point", i))
    return targets, kwargs, where


def _collect(plans: list[_Plan], where: list[tuple], res) -> list[dict]:
    """Each plan's frames from the runs (``res``, in the order of ``where``): its claims-scale default, stand-ins,
    map default and points (None where a run failed, with its error in ``failed``), and its runs' seconds."""
    errors = iter(res.failures)  # one per point whose frame is None, in input order
    per = [{"claims": None, "stand_ins": None, "default": None, "points": [None] * len(p.points),
            "failed": [], "seconds": 0.0} for p in plans]
    for (j, what, i), frame, sec in zip(where, res.results, res.seconds, strict=True):
        if frame is None:
            per[j]["failed"].append((what, i, next(errors).error))
        if not math.isnan(sec):
            per[j]["seconds"] += sec
        if what == "point":
            per[j]["points"][i] = frame
        else:
            per[j][what] = frame
    return per


def run_map(papers=tuple(PAPERS), map: str = "reduced", *, n: int | None = None, seed: int = 0,
            executor: str = "local", workers: int | None = None, scheduler: str | None = None, client=None,
            progress: bool | None = None, out_dir=None, bias: bool = True, claims_scale: str = CLAIMS_SCALE,
            figures: bool = False, figures_dir=None, ledger=None, log=print) -> MapResult:
    """Run the ``map`` ("reduced" or "full") of each paper in ``papers`` (numbers, or module paths), judge
    and summarise it, write the four CSVs to ``out_dir`` (default ``results/`` or ``results/robustness_full/``)
    and, with ``figures``, one figure per paper figure or table (:func:`plot_paper`).

    ``n`` points per paper (default 32 reduced, 256 full), sampled with a seed derived from ``(seed,
    paper)``; each runs ``point(scale=MAP_SCALE[map], **values)``. The default point runs at the map's scale
    and (``bias=True``) at ``claims_scale``; ``stand_ins(scale=MAP_SCALE[map])`` gives the real traces'
    verdicts. All papers' points go to one :func:`flashrepro.sweep.run_points` call.

    ``ledger``: a folder holding the papers' ledgers at ``claims_scale`` (``make`` passes ``results/``, which its
    notebooks have just written at paper scale): the default point's rows at the claims' scale are then read
    from ``<ledger>/<notebook>_claims.csv`` instead of run again (the same rows: each paper's tests check that
    ``point`` at the default equals the ledger its notebook's functions build). A paper whose ledger is not
    there runs the point."""
    import time

    from .. import paths, sweep

    if map not in MAPS:
        raise ValueError(f"map must be one of {MAPS}, got {map!r}")
    n = DEFAULT_POINTS[map] if n is None else int(n)
    t0 = time.perf_counter()
    plans, skipped = [], []
    for p in ([papers] if isinstance(papers, (int, str)) else list(papers)):
        plan = _plan(p, map, n, seed)
        if plan is None:
            skipped.append(str(p))
            log(f"robustness: skipped paper {p}: {module_name(p)} does not exist yet")
        else:
            plans.append(plan)
    from_ledger = {j: f for j, pl_ in enumerate(plans) if bias and claims_scale != pl_.map_scale
                   and (f := _ledger_file(pl_, ledger)) is not None}
    targets, kwargs, where = _targets(plans, from_ledger, bias, claims_scale)
    res = sweep.run_points(targets, kwargs, executor=executor, workers=workers, scheduler=scheduler,
                           client=client, progress=progress, desc=f"robustness ({map})")
    per = _collect(plans, where, res)
    for j, f in from_ledger.items():
        from .. import claims as L

        per[j]["claims"] = L.read(f)
        log(f"robustness: paper {plans[j].paper}: the default point at scale {claims_scale} from {f}")
    parts = [_summarise(p, d, map, claims_scale if bias else None, log) for p, d in zip(plans, per, strict=True)]
    out = _frames(parts)
    out_dir = _map_dir(out_dir, map)
    _write_all(out, out_dir, [p.paper for p in plans])
    result = MapResult(map, out_dir, *out, failures=res.failures, skipped=skipped,
                       seconds={p.paper: d["seconds"] for p, d in zip(plans, per, strict=True)})
    if figures:
        if figures_dir is None:
            figures_dir = paths.figures if map == "reduced" else paths.figures / "robustness_full"
        from .figures import plot_paper

        for p in plans:
            result.figures += plot_paper(p.module, out_dir, figures_dir)
    result.wall_s = time.perf_counter() - t0
    return result


def _ledger_file(plan: _Plan, ledger):
    """``<ledger>/<notebook>_claims.csv`` of the plan's paper, or None (no ``ledger``, or no such file)."""
    if ledger is None:
        return None
    from pathlib import Path

    notebook = _notebook_of(load(plan.module))
    f = Path(ledger) / f"{notebook}_claims.csv"
    return f if notebook and f.exists() else None


def _notebook_of(mod) -> str | None:
    """The notebook whose ledger and text belong to a paper's robustness module: its own ``NOTEBOOK``, else its
    package's (``flashrepro.papers.<pkg>.PAPER.notebook``)."""
    import importlib

    if hasattr(mod, "NOTEBOOK"):
        return mod.NOTEBOOK
    parent = mod.__name__.rpartition(".")[0]
    paper = getattr(importlib.import_module(parent), "PAPER", None) if parent else None
    return paper.notebook if paper is not None else None


# --- judging and summary -----------------------------------------------------------------------------------
def _rows_of(frame, headline) -> dict:
    """(claim, workload) -> the row (a dict), for the headline claims of a point's frame, first row wins."""
    out = {}
    if frame is None:
        return out
    for r in frame.iter_rows(named=True):
        if r["claim"] in headline:
            out.setdefault((r["claim"], r["workload"]), r)
    return out


def _num(x) -> float:
    return float("nan") if x is None else float(x)


def _margin(kind, expected, paper, ours, tol) -> float:
    """How far a row is from its claim: value claims the relative distance to the paper's number (smaller is
    nearer); direction claims the shortfall to holding (bound or sign minus ours, the claim's way; <= 0 holds)."""
    if math.isnan(ours):
        return float("nan")
    tol = 0.0 if math.isnan(tol) else tol
    if kind == "value":
        return abs(ours - paper) / abs(paper) if paper != 0 else abs(ours - paper)
    if expected == "positive":
        return -ours
    if expected == "negative":
        return ours
    if expected == "at most":
        return ours - (paper + tol * abs(paper))
    if expected == "at least":
        return (paper - tol * abs(paper)) - ours
    if expected in ("increasing", "decreasing"):
        return ours - tol
    return float("nan")


def sensitivity(names, X, Y, seed: int = 0) -> tuple[list[dict], str, int]:
    """Per axis: SALib RBD-FAST first-order index (``rbd_fast_s1``; SALib delta, ``delta``, where RBD-FAST
    cannot run) and Spearman's rank correlation, on the points where ``Y`` is finite. Returns the rows, the
    method used ("rbd_fast", "delta" or "none": fewer than 5 finite values or a constant ``Y``) and how
    many NaN values were left out."""
    import contextlib
    import io
    import warnings

    from scipy import stats

    X, Y = np.asarray(X, float), np.asarray(Y, float)
    ok = np.isfinite(Y)
    n_nan = int((~ok).sum())
    X, Y = X[ok], Y[ok]
    rows = [{"axis": a, "rbd_fast_s1": float("nan"), "delta": float("nan"), "spearman_rho": float("nan"),
             "spearman_p": float("nan")} for a in names]
    if len(Y) < 5 or np.ptp(Y) == 0:
        return rows, "none", n_nan
    for j, r in enumerate(rows):
        if np.ptp(X[:, j]) > 0:
            rho, pv = stats.spearmanr(X[:, j], Y)
            r["spearman_rho"], r["spearman_p"] = float(rho), float(pv)
    problem = {"num_vars": len(names), "names": list(names), "bounds": [[0.0, 1.0]] * len(names)}
    method = "none"
    M = min(10, len(Y) // 8)  # RBD-FAST's harmonics (SALib's 10 from 80 points): at 32-40 points M = 10 ranks a
    # planted pair of axes wrongly in 8 of 20 seeds, M = 4 in none; its bias correction needs N > 2M
    with warnings.catch_warnings():  # SALib warns on small or binned inputs; the method column says what ran
        warnings.simplefilter("ignore")
        if M >= 1:
            try:
                from SALib.analyze import rbd_fast

                s1 = np.asarray(rbd_fast.analyze(problem, X, Y, M=M, seed=seed)["S1"], float)
                if np.all(np.isfinite(s1)):
                    method = "rbd_fast"
                    for r, v in zip(rows, s1, strict=True):
                        r["rbd_fast_s1"] = float(v)
            except Exception:  # noqa: BLE001  (fall back to delta, below)
                method = "none"
        if method == "none" and len(Y) >= 20:  # delta's bins need a few points each
            try:
                from SALib.analyze import delta

                with contextlib.redirect_stdout(io.StringIO()):  # its bin notices
                    r = delta.analyze(problem, X, Y, seed=seed, num_resamples=10, method="delta")
                d = np.asarray(r["delta"] if "delta" in r else r["delta_raw"], float)  # Borgonovo's delta
                if np.all(np.isfinite(d)):
                    method = "delta"
                    for r, v in zip(rows, d, strict=True):
                        r["delta"] = float(v)
            except Exception:  # noqa: BLE001  (no index: reported as method "none")
                method = "none"
    return rows, method, n_nan


def _top(rows, method) -> str:
    key = {"rbd_fast": "rbd_fast_s1", "delta": "delta"}.get(method)
    if key is None:
        return ""
    best = max(range(len(rows)), key=lambda j: (rows[j][key], -j))
    return rows[best]["axis"]


def _judged_keys(default_claims: dict, default_map: dict, pts: list[dict]) -> dict:
    """The claims a map judges: the (claim, workload) pairs its points and its default give (a ledger read for
    the default also holds the real stand-ins' rows under the same claim strings; those are stand_ins()'s),
    each with its first judged row (value or direction), else its first row."""
    mapped = set(default_map).union(*pts)
    keys: dict = {}
    for rows in (default_claims, default_map, *pts):
        for k, r in rows.items():
            if k not in mapped:
                continue
            if k not in keys or (keys[k]["kind"] not in ("value", "direction") and r["kind"] in ("value", "direction")):
                keys[k] = r
    return keys


def _points_rows(plan: _Plan) -> list[dict]:
    """Each point's setting of each axis, and its coordinate in the unit cube."""
    return [{"paper": plan.paper, "point": i, "axis": a.name, "value": values[a.name], "u": float(x)}
            for i, (values, urow) in enumerate(zip(plan.points, plan.u, strict=True))
            for a, x in zip(plan.space.axes, urow, strict=True)]


def _claim_rows(plan: _Plan, key: tuple, proto: dict, pts: list[dict], ok_points: list[int], n_failed: int,
                default: tuple[dict | None, dict | None], stand: dict, claims_scale: str | None):
    """One claim's (``key``: claim and workload; ``proto``: its row) long rows (its value and verdict at each
    point that ran), headline row (the share of points where it holds with its Wilson interval, the nearest
    point to the paper's number, the axis that moves it most, and the default beside it: ``default``, its
    rows at the claims' scale and in the map) and sensitivity rows."""
    from scipy import stats

    from .. import claims as L

    claim, workload = key
    kind, expected, paper_value, tol = proto["kind"], proto["expected"], proto["paper_value"], proto["tolerance"]
    vals, verdicts, long_rows = [], [], []
    for i in ok_points:
        r = pts[i].get(key)
        ours = _num(r["our_value"]) if r is not None else float("nan")
        verdict = r["verdict"] if r is not None else L.judge(kind, expected, paper_value, None, tol)
        vals.append(ours)
        verdicts.append(verdict)
        long_rows.append({"paper": plan.paper, "claim": claim, "workload": workload, "point": i,
                          "our_value": ours, "verdict": verdict})
    k = len(vals)
    n_holds = verdicts.count("holds")
    if k:
        ci = stats.binomtest(n_holds, k).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = float(ci.low), float(ci.high)
    else:
        lo = hi = float("nan")
    margins = [_margin(kind, expected, _num(paper_value), v, _num(tol)) for v in vals]
    cand = [j for j in range(k) if not math.isnan(margins[j])]
    if kind == "value":
        best = min(cand, key=lambda j: (margins[j], j)) if cand else None
    else:
        best = min(cand, key=lambda j: (-L.RANK.get(verdicts[j], -1), margins[j], j)) if cand else None
    X = plan.u[ok_points] if ok_points else np.zeros((0, len(plan.space.axes)))
    srows, method, n_nan = sensitivity(plan.space.names, X, np.asarray(vals, float), plan.seed)
    sens_rows = [{"paper": plan.paper, "claim": claim, "workload": workload, **r} for r in srows]
    dc, dm = default
    dv, mv = (_num(dc["our_value"]) if dc else float("nan")), (_num(dm["our_value"]) if dm else float("nan"))
    head_row = {
        "paper": plan.paper, "claim": claim, "workload": workload, "kind": kind, "expected": expected,
        "paper_value": _num(paper_value), "unit": proto["unit"], "source": proto["source"],
        "default_verdict": dc["verdict"] if dc else "",
        "default_value": dv, "map_default_value": mv,
        "bias": mv - dv if claims_scale is not None else float("nan"),
        "holds_share": n_holds / k if k else float("nan"), "holds_ci_low": lo, "holds_ci_high": hi,
        "partly_share": verdicts.count("partly") / k if k else float("nan"),
        "not_comparable_share": verdicts.count("not comparable") / k if k else float("nan"),
        "n_points": k, "n_nan": n_nan, "n_failed": n_failed,
        "nearest_point": best,
        "nearest_value": vals[best] if best is not None else float("nan"),
        "nearest_distance": margins[best] if best is not None else float("nan"),
        "top_axis": _top(srows, method), "sensitivity_method": method,
        "stand_in_verdicts": "; ".join(f"{w}: {r['verdict']}" for (c, w), r in stand.items() if c == claim),
        "map_scale": plan.map_scale, "claims_scale": claims_scale or plan.map_scale,
    }
    return long_rows, head_row, sens_rows


def _summarise(plan: _Plan, d: dict, map: str, claims_scale: str | None, log):
    """The long form, the points, the headline rows and the sensitivity rows of one paper."""
    head = set(plan.headline)
    default_map = _rows_of(d["default"], head)
    # At the claims' scale: its own run (or the ledger), or the map's default itself where the map runs at that
    # scale (run_map then runs no second default).
    same = claims_scale is None or claims_scale == plan.map_scale
    default_claims = default_map if same else _rows_of(d["claims"], head)
    pts = [_rows_of(f, head) for f in d["points"]]
    keys = _judged_keys(default_claims, default_map, pts)
    missing = head - {k[0] for k in keys}
    if missing:
        log(f"robustness: paper {plan.paper}: no point gave the headline claims {sorted(missing)}")
    ok_points = [i for i, f in enumerate(d["points"]) if f is not None]
    n_failed = len(d["points"]) - len(ok_points)
    for what, i, err in d["failed"]:
        log(f"robustness: paper {plan.paper}: {what}{'' if i is None else f' {i}'} failed: {err}")
    stand = _rows_of(d["stand_ins"], head) if d["stand_ins"] is not None else {}
    long_rows, head_rows, sens_rows = [], [], []
    for key, proto in keys.items():
        lr, hr, sr = _claim_rows(plan, key, proto, pts, ok_points, n_failed,
                                 (default_claims.get(key), default_map.get(key)), stand, claims_scale)
        long_rows += lr
        head_rows.append(hr)
        sens_rows += sr
    return long_rows, _points_rows(plan), head_rows, sens_rows


def _frames(parts):
    """The four tables, numeric (polars), from every paper's summary."""
    import polars as pl

    out = []
    for j, cols in enumerate(FILES.values()):
        rows = [r for part in parts for r in part[j]]
        if cols is POINT_COLUMNS:  # mixed types (choice values): kept as strings
            rows = [r | {"value": _fmt(r["value"])} for r in rows]
        out.append(pl.DataFrame(rows, infer_schema_length=None).select(cols) if rows
                   else pl.DataFrame(schema={c: pl.String for c in cols}))
    return out


def headline_rows(paper, out_dir=None, map: str = "reduced"):
    """One paper's rows of ``headline.csv`` (``paper`` a number or a module path), or None when the map has
    not been written yet."""
    import polars as pl

    d = _map_dir(out_dir, map)
    if not (d / "headline.csv").exists():
        return None
    number = str(paper) if isinstance(paper, int) or str(paper).isdigit() else str(load(paper).SPACE.paper)
    return read(d, map)["headline.csv"].filter(pl.col("paper") == number)


def headline_text(paper, out_dir=None, map: str = "reduced") -> str:
    """Markdown for a notebook's "what holds" text: each headline claim's verdict at the default point, the
    share of the space where it holds (Wilson 95% interval), "partly" share, the axis that moves it most, the
    real stand-ins' verdicts and the bias of the map's scale."""
    from ..prose import num, pct, table

    h = headline_rows(paper, out_dir, map)
    if h is None or h.height == 0:
        return f"The {map} robustness map has not been run for paper {paper} (`flashrepro robustness`)."
    rows = []
    for r in h.iter_rows(named=True):
        rows.append({
            "claim": r["claim"], "workload": r["workload"], "default": r["default_verdict"] or "n/a",
            "holds on": f"{pct(r['holds_share'], 0, False)} ({pct(r['holds_ci_low'], 0, False)}-"
                        f"{pct(r['holds_ci_high'], 0, False)})",
            "partly": pct(r["partly_share"], 0, False), "top axis": r["top_axis"] or "n/a",
            "stand-ins": r["stand_in_verdicts"] or "none present",
            "bias": f"{num(r['bias'])} ({r['map_scale']} - {r['claims_scale']})"})
    first = h.row(0, named=True)
    return (f"Across the declared space ({map} map: {first['n_points']} Latin hypercube points per claim at "
            f"scale {first['map_scale']}; the default verdict at scale {first['claims_scale']}):\n\n" + table(rows))


EFFECT_BINS = 4  # a numeric axis is cut into this many equal strata of its unit coordinate


def effects(paper, axes=None, out_dir=None, map: str = "reduced"):
    """How one axis at a time moves each headline claim across the map: for each claim and each of ``axes``
    (default: the claim's top axis and the paper module's ``EXPLAIN`` axes), the map's points split by that
    axis (a choice axis by choice; any other into :data:`EFFECT_BINS` equal strata of its unit coordinate,
    each holding the same number of Latin hypercube points) and, per part, the median of our value and the
    share of points where the claim holds. The other axes vary inside every part, so this is the marginal
    effect over the whole space, not a one-knob slice through the default point (what the notebooks' ad-hoc
    sensitivity tables were). Returns None when the map has not been written."""
    import polars as pl

    d = _map_dir(out_dir, map)
    if not (d / "headline.csv").exists():
        return None
    mod = load(paper)
    number = str(mod.SPACE.paper)
    t = read(d, map)
    head = t["headline.csv"].filter(pl.col("paper") == number)
    long = t["robustness.csv"].filter(pl.col("paper") == number)
    pts = t["robustness_points.csv"].filter(pl.col("paper") == number)
    by_axis = {a.name: a for a in mod.SPACE.axes}
    explain = tuple(getattr(mod, "EXPLAIN", ()))
    unknown = [a for a in explain if a not in by_axis]
    if unknown:
        raise ValueError(f"{mod.__name__}.EXPLAIN names axes not in its SPACE: {unknown}")
    rows = []
    for h in head.iter_rows(named=True):
        want = [a for a in (axes if axes is not None else (h["top_axis"],) + explain) if a in by_axis]
        cl = long.filter((pl.col("claim") == h["claim"]) & (pl.col("workload") == h["workload"]))
        for name in dict.fromkeys(want):
            axis = by_axis[name]
            p = pts.filter(pl.col("axis") == name).select("point", "value", "u")
            j = cl.join(p, on="point", how="inner")
            if axis.scale == "choice":
                parts = [(str(c), j.filter(pl.col("value") == str(c))) for c in axis.choices]
            else:
                parts = []
                for k in range(EFFECT_BINS):
                    lo, hi = k / EFFECT_BINS, (k + 1) / EFFECT_BINS
                    part = j.filter((pl.col("u") >= lo) & ((pl.col("u") < hi) | (k == EFFECT_BINS - 1)))
                    parts.append((f"{_edge(axis.value(lo))}-{_edge(axis.value(hi))}", part))
            for label, part in parts:
                vals = part["our_value"].drop_nulls().drop_nans()
                rows.append({"paper": int(number), "claim": h["claim"], "workload": h["workload"], "axis": name,
                             "part": label, "n": part.height,
                             "median_value": float(vals.median()) if vals.len() else float("nan"),
                             "holds_share": (float((part["verdict"] == "holds").mean()) if part.height
                                             else float("nan"))})
    return pl.DataFrame(rows, schema={"paper": pl.Int64, "claim": pl.String, "workload": pl.String,
                                      "axis": pl.String, "part": pl.String, "n": pl.Int64,
                                      "median_value": pl.Float64, "holds_share": pl.Float64})


def _edge(v) -> str:
    """A part's bound for the text: whole numbers from 100 up, else 3 significant digits (never 1e+03)."""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def effects_text(paper, out_dir=None, map: str = "reduced") -> str:
    """Markdown of :func:`effects`: one row per claim and axis, each part as ``range: median (holds share)``."""
    from ..prose import num, pct, table

    e = effects(paper, out_dir=out_dir, map=map)
    if e is None or e.height == 0:
        return ""
    rows = []
    for (claim, workload, axis), g in e.group_by(["claim", "workload", "axis"], maintain_order=True):
        rows.append({"claim": claim, "workload": workload, "axis": axis,
                     "median of ours (holds share) by part of the axis": "; ".join(
                         f"{r['part']}: {num(r['median_value'])} ({pct(r['holds_share'], 0, False)})"
                         for r in g.iter_rows(named=True))})
    return ("How single axes move each claim across the map (the points split by one axis, the others varying "
            "inside every part):\n\n" + table(rows))


TEXT_BEGIN, TEXT_END = "<!-- robustness:begin -->", "<!-- robustness:end -->"


def add_to_texts(papers, results_dir, out_dir=None, map: str = "reduced") -> list:
    """Add each paper's headline rows (:func:`headline_text`) to its notebook's generated "what holds" text,
    ``<results_dir>/<notebook>_text.md``, as a section between :data:`TEXT_BEGIN` and :data:`TEXT_END` that
    replaces the one a previous map wrote. ``make`` runs the map after the notebooks, which rewrite their texts
    whole, so each text then ends with the map of the same run. Returns the files changed."""
    from pathlib import Path

    from .._io import atomic_path

    changed = []
    for p in ([papers] if isinstance(papers, (int, str)) else list(papers)):
        mod = load(p)
        if mod is None:
            continue
        notebook = _notebook_of(mod)
        f = Path(results_dir) / f"{notebook}_text.md"
        if not notebook or not f.exists():
            continue
        text = f.read_text()
        if TEXT_BEGIN in text:
            text = text[:text.index(TEXT_BEGIN)].rstrip("\n") + "\n"
        eff = effects_text(p, out_dir, map)
        section = (f"\n{TEXT_BEGIN}\n## Headline claims across the space\n\n"
                   f"{headline_text(p, out_dir, map)}\n" + (f"\n{eff}\n" if eff else "") + f"{TEXT_END}\n")
        with atomic_path(f) as tmp:
            Path(tmp).write_text(text + section)
        changed.append(f)
    return changed
