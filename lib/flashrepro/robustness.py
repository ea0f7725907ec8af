"""Robustness maps: every headline claim judged across a paper's declared workload space, not at one point.

A **map** is a seeded Latin hypercube sample of a paper's :class:`Space` (the axes the paper leaves open:
footprint relative to the cache, skew, read-hot / write-hot overlap, request sizes, cache size around the
paper's, the open settings of the notebook's ambiguity table), each point run through the paper's own
``point()`` function, which returns ledger rows (:mod:`flashrepro.claims`) for the paper's ``HEADLINE``
claims. The verdict of every row is the ledger's (the paper's claims calls, :func:`flashrepro.claims.judge`);
this module never re-judges, it only counts and ranks.

Maps and scales
---------------
``"reduced"`` (``make``; 32 points per paper by default) and ``"full"`` (``make robustness``; 256 points).
Each point runs at the paper's ``MAP_SCALE[map]``. The default point (``SPACE.default()``, the claims'
calibrated point) runs at the map's scale *and* at the claims' scale (``"paper"``): ``bias`` is ours at the
map's scale minus ours at the claims' scale, so a reader sees how far the map's scale moves the number.
``default_verdict`` is the verdict at the claims' scale (the ledger's verdict).

Outputs (``results/`` for the reduced map, ``results/robustness_full/`` for the full one)
--------------------------------------------------------------------------------------------
``robustness.csv``
    long form: paper, claim, workload, point, our_value, verdict (every sampled point, none dropped).
``robustness_points.csv``
    paper, point, axis, value (choice values as strings), u (the point's unit-cube coordinate).
``headline.csv``
    one row per headline claim (paper, claim, workload): kind, expected, paper_value, unit, source,
    default_verdict, default_value (claims' scale), map_default_value, bias, holds_share, holds_ci_low,
    holds_ci_high (Wilson 95%), partly_share, not_comparable_share, n_points, n_nan, n_failed,
    nearest_point, nearest_value, nearest_distance, top_axis, stand_in_verdicts, map_scale, claims_scale.
``robustness_sensitivity.csv``
    paper, claim, workload, axis, rbd_fast_s1, delta, spearman_rho, spearman_p.

Rules: a NaN value counts as "does not hold" (the ledger's rule) and is left out of the sensitivity
(``n_nan`` says how many). A point that raised is reported (``n_failed``, :attr:`MapResult.failures`) and
never silently dropped. Value claims' nearest point: smallest ``|ours - paper| / |paper|``; direction claims':
the largest signed margin to the bound or sign (``nearest_distance`` is then the shortfall, <= 0 where it
holds). Sensitivity: SALib's RBD-FAST first-order index on the same Latin hypercube sample (unit-cube
inputs), SALib's delta where RBD-FAST cannot run, Spearman's rank correlation beside it; ``top_axis`` is the
largest first-order index.

Adding a paper's space
----------------------
In ``lib/flashrepro/papers/<pkg>/robustness.py``: ``SPACE = Space(paper=N, axes=(Axis(...), ...))`` (each
axis a keyword of ``point``, a range from the paper's context or the traces' statistics and one sentence
``why``; never narrowed toward a claim), ``HEADLINE`` (claim strings exactly as in the ledger), ``MAP_SCALE =
{"reduced": ..., "full": ...}``, ``point(scale="ci", **values) -> ledger rows`` (a plain top-level function:
workers import it by name) and ``stand_ins(scale="ci") -> ledger rows`` on the real traces present. Then
add the package to :data:`PAPERS`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

SCALES = ("linear", "log", "int", "choice")
PAPERS = {1: "bs_clock", 2: "ssd_prefetch", 3: "clock_hbm", 4: "twor", 5: "write_once"}
MAPS = ("reduced", "full")
DEFAULT_POINTS = {"reduced": 32, "full": 256}
CLAIMS_SCALE = "paper"


@dataclasses.dataclass(frozen=True)
class Axis:
    """One open setting of a paper's experiment and its plausible range.

    ``scale``: ``"linear"`` (uniform on [low, high]), ``"log"`` (log-uniform), ``"int"`` (the integers
    low..high inclusive, equally likely) or ``"choice"`` (one of ``choices``; [0, 1) split evenly)."""

    name: str
    low: float
    high: float
    default: object
    why: str
    scale: str = "linear"
    choices: tuple = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"an axis name must be a keyword of point(), got {self.name!r}")
        if not isinstance(self.why, str) or not self.why.strip():
            raise ValueError(f"axis {self.name!r}: say in one sentence why this range (why=...)")
        if self.scale not in SCALES:
            raise ValueError(f"axis {self.name!r}: scale must be one of {SCALES}, got {self.scale!r}")
        if self.scale == "choice":
            if not self.choices:
                raise ValueError(f"axis {self.name!r}: a choice axis needs choices")
            if len(set(map(repr, self.choices))) != len(self.choices):
                raise ValueError(f"axis {self.name!r}: choices repeat: {self.choices}")
            if not any(self.default == c and type(self.default) is type(c) for c in self.choices):
                raise ValueError(f"axis {self.name!r}: default {self.default!r} is not among {self.choices}")
            return
        if self.choices:
            raise ValueError(f"axis {self.name!r}: choices go with scale='choice'")
        for label, v in (("low", self.low), ("high", self.high)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"axis {self.name!r}: {label} must be a finite number, got {v!r}")
        if not self.low < self.high:
            raise ValueError(f"axis {self.name!r}: low < high needed, got {self.low} .. {self.high}")
        if self.scale == "log" and self.low <= 0:
            raise ValueError(f"axis {self.name!r}: a log axis needs low > 0, got {self.low}")
        if self.scale == "int" and not (float(self.low).is_integer() and float(self.high).is_integer()):
            raise ValueError(f"axis {self.name!r}: an int axis needs integer bounds, got {self.low} .. {self.high}")
        d = self.default
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not self.low <= d <= self.high:
            raise ValueError(f"axis {self.name!r}: default {d!r} is not inside {self.low} .. {self.high}")
        if self.scale == "int" and not float(d).is_integer():
            raise ValueError(f"axis {self.name!r}: an int axis needs an integer default, got {d!r}")

    def value(self, u: float):
        """The axis value at ``u`` in [0, 1)."""
        u = float(u)
        if not 0.0 <= u <= 1.0:
            raise ValueError(f"axis {self.name!r}: u must be in [0, 1), got {u}")
        if self.scale == "choice":
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        if self.scale == "linear":
            return float(self.low + u * (self.high - self.low))
        if self.scale == "log":
            return float(math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))))
        lo, hi = int(self.low), int(self.high)
        return min(lo + int(u * (hi - lo + 1)), hi)

    def coordinate(self, v) -> float:
        """A plotting coordinate of the value ``v``: the value itself, or a choice's index."""
        if self.scale == "choice":
            return float(next(i for i, c in enumerate(self.choices) if c == v and type(c) is type(v)))
        return float(v)


@dataclasses.dataclass(frozen=True)
class Space:
    """A paper's declared space: the axes its ``point()`` takes, each with a range and its default (the
    claims' calibrated point)."""

    paper: int
    axes: tuple

    def __post_init__(self):
        if isinstance(self.paper, bool) or not isinstance(self.paper, int):
            raise ValueError(f"Space.paper must be the paper's number, got {self.paper!r}")
        if not self.axes:
            raise ValueError("a space needs at least one axis")
        if not all(isinstance(a, Axis) for a in self.axes):
            raise ValueError("a space's axes must be Axis objects")
        names = [a.name for a in self.axes]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"axis names repeat: {dup}")
        if "scale" in names:
            raise ValueError("'scale' is point()'s own keyword, not an axis")
        object.__setattr__(self, "axes", tuple(self.axes))

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.axes]

    def default(self) -> dict:
        """``{axis.name: axis.default}``: the claims' point."""
        return {a.name: a.default for a in self.axes}

    def unit_sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` x ``len(axes)`` seeded Latin hypercube in [0, 1) (``scipy.stats.qmc.LatinHypercube``,
        no optimisation: each axis hits each of the ``n`` strata exactly once)."""
        from scipy.stats import qmc

        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"a sample needs n >= 1 points, got {n!r}")
        return qmc.LatinHypercube(d=len(self.axes), rng=int(seed)).random(int(n))

    def values(self, u: np.ndarray) -> list[dict]:
        """The axis values of each row of a unit-cube sample."""
        return [{a.name: a.value(x) for a, x in zip(self.axes, row, strict=True)} for row in np.asarray(u)]

    def sample(self, n: int, seed: int) -> list[dict]:
        """``n`` points ``{axis.name: value}`` of a seeded Latin hypercube (see :meth:`unit_sample`)."""
        return self.values(self.unit_sample(n, seed))


# --- the papers --------------------------------------------------------------------------------------------
def module_name(paper) -> str:
    """The module holding a paper's SPACE: ``flashrepro.papers.<pkg>.robustness`` for a paper number, or the
    module path itself (a toy paper in the tests)."""
    if isinstance(paper, str) and not paper.isdigit():
        return paper
    number = int(paper)
    if number not in PAPERS:
        raise ValueError(f"no paper {number}; papers: {', '.join(f'{k} ({v})' for k, v in PAPERS.items())}")
    return f"flashrepro.papers.{PAPERS[number]}.robustness"


def load(paper):
    """A paper's robustness module, or None when it does not exist (yet)."""
    import importlib
    import importlib.util

    name = module_name(paper)
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:
        return None
    return importlib.import_module(name)


def headline_claims(number: int) -> frozenset:
    """The ``HEADLINE`` claims of paper ``number`` (empty when it has no robustness module)."""
    return _headline_claims(int(number))


def _headline_claims(number: int) -> frozenset:
    if number not in PAPERS:
        return frozenset()
    if number not in _HEADLINE_MEMO:
        mod = load(number)
        _HEADLINE_MEMO[number] = frozenset(getattr(mod, "HEADLINE", ())) if mod is not None else frozenset()
    return _HEADLINE_MEMO[number]


_HEADLINE_MEMO: dict = {}


def paper_seed(seed: int, paper: int) -> int:
    """The sample's seed of one paper, derived from the map's seed and the paper's number."""
    return int(np.random.SeedSequence([int(seed), int(paper)]).generate_state(1)[0])


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


def run_map(papers=tuple(PAPERS), map: str = "reduced", *, n: int | None = None, seed: int = 0,
            executor: str = "local", workers: int | None = None, scheduler: str | None = None, client=None,
            progress: bool | None = None, out_dir=None, bias: bool = True, claims_scale: str = CLAIMS_SCALE,
            figures: bool = False, figures_dir=None, log=print) -> MapResult:
    """Run the ``map`` ("reduced" or "full") of each paper in ``papers`` (numbers, or module paths), judge
    and summarise it, write the four CSVs to ``out_dir`` (default ``results/`` or ``results/robustness_full/``)
    and, with ``figures``, one figure per paper figure or table (:func:`plot_paper`).

    ``n`` points per paper (default 32 reduced, 256 full), sampled with a seed derived from ``(seed,
    paper)``; each runs ``point(scale=MAP_SCALE[map], **values)``. The default point runs at the map's scale
    and (``bias=True``) at ``claims_scale``; ``stand_ins(scale=MAP_SCALE[map])`` gives the real traces'
    verdicts. All papers' points go to one :func:`flashrepro.sweep.run_points` call."""
    import time

    from . import paths, sweep

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
    targets, kwargs, where = [], [], []  # where: (plan index, what, point index)
    for j, pl_ in enumerate(plans):  # the slow claims-scale defaults first, so a pool starts them early
        if bias and claims_scale != pl_.map_scale:
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
    res = sweep.run_points(targets, kwargs, executor=executor, workers=workers, scheduler=scheduler,
                           client=client, progress=progress, desc=f"robustness ({map})")
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
    parts = [_summarise(p, d, map, claims_scale if bias else None, log) for p, d in zip(plans, per, strict=True)]
    out = _frames(parts)
    if out_dir is None:
        out_dir = paths.results if map == "reduced" else paths.results / "robustness_full"
    from pathlib import Path

    out_dir = Path(out_dir)
    _write_all(out, out_dir, [p.paper for p in plans])
    result = MapResult(map, out_dir, *out, failures=res.failures, skipped=skipped,
                       seconds={p.paper: d["seconds"] for p, d in zip(plans, per, strict=True)})
    if figures:
        if figures_dir is None:
            figures_dir = paths.figures if map == "reduced" else paths.figures / "robustness_full"
        for p in plans:
            result.figures += plot_paper(p.module, out_dir, figures_dir)
    result.wall_s = time.perf_counter() - t0
    return result


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


def _summarise(plan: _Plan, d: dict, map: str, claims_scale: str | None, log):
    """The long form, the points, the headline rows and the sensitivity rows of one paper."""
    from scipy import stats

    from . import claims as L

    head = set(plan.headline)
    default_map = _rows_of(d["default"], head)
    default_claims = _rows_of(d["claims"], head) if claims_scale is not None else default_map
    pts = [_rows_of(f, head) for f in d["points"]]
    keys: dict = {}
    for rows in (default_claims, default_map, *pts):
        for k, r in rows.items():
            keys.setdefault(k, r)
    missing = head - {k[0] for k in keys}
    if missing:
        log(f"robustness: paper {plan.paper}: no point gave the headline claims {sorted(missing)}")
    ok_points = [i for i, f in enumerate(d["points"]) if f is not None]
    failed_points = [i for i, f in enumerate(d["points"]) if f is None]
    for what, i, err in d["failed"]:
        log(f"robustness: paper {plan.paper}: {what}{'' if i is None else f' {i}'} failed: {err}")
    stand = _rows_of(d["stand_ins"], head) if d["stand_ins"] is not None else {}
    points_rows = []
    for i, (values, urow) in enumerate(zip(plan.points, plan.u, strict=True)):
        for a, x in zip(plan.space.axes, urow, strict=True):
            points_rows.append({"paper": plan.paper, "point": i, "axis": a.name, "value": values[a.name],
                                "u": float(x)})
    long_rows, head_rows, sens_rows = [], [], []
    for (claim, workload), proto in keys.items():
        kind, expected, paper_value, tol = proto["kind"], proto["expected"], proto["paper_value"], proto["tolerance"]
        vals, verdicts = [], []
        for i in ok_points:
            r = pts[i].get((claim, workload))
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
        for r in srows:
            sens_rows.append({"paper": plan.paper, "claim": claim, "workload": workload, **r})
        dc, dm = default_claims.get((claim, workload)), default_map.get((claim, workload))
        dv, mv = (_num(dc["our_value"]) if dc else float("nan")), (_num(dm["our_value"]) if dm else float("nan"))
        head_rows.append({
            "paper": plan.paper, "claim": claim, "workload": workload, "kind": kind, "expected": expected,
            "paper_value": _num(paper_value), "unit": proto["unit"], "source": proto["source"],
            "default_verdict": dc["verdict"] if dc else "",
            "default_value": dv, "map_default_value": mv,
            "bias": mv - dv if claims_scale is not None else float("nan"),
            "holds_share": n_holds / k if k else float("nan"), "holds_ci_low": lo, "holds_ci_high": hi,
            "partly_share": verdicts.count("partly") / k if k else float("nan"),
            "not_comparable_share": verdicts.count("not comparable") / k if k else float("nan"),
            "n_points": k, "n_nan": n_nan, "n_failed": len(failed_points),
            "nearest_point": best if best is not None else None,
            "nearest_value": vals[best] if best is not None else float("nan"),
            "nearest_distance": margins[best] if best is not None else float("nan"),
            "top_axis": _top(srows, method), "sensitivity_method": method,
            "stand_in_verdicts": "; ".join(f"{w}: {r['verdict']}" for (c, w), r in stand.items() if c == claim),
            "map_scale": plan.map_scale, "claims_scale": claims_scale or plan.map_scale,
        })
    return long_rows, points_rows, head_rows, sens_rows


LONG_COLUMNS = ("paper", "claim", "workload", "point", "our_value", "verdict")
POINT_COLUMNS = ("paper", "point", "axis", "value", "u")
HEADLINE_COLUMNS = ("paper", "claim", "workload", "kind", "expected", "paper_value", "unit", "source",
                    "default_verdict", "default_value", "map_default_value", "bias", "holds_share", "holds_ci_low",
                    "holds_ci_high", "partly_share", "not_comparable_share", "n_points", "n_nan", "n_failed",
                    "nearest_point", "nearest_value", "nearest_distance", "top_axis", "sensitivity_method",
                    "stand_in_verdicts", "map_scale", "claims_scale")
SENSITIVITY_COLUMNS = ("paper", "claim", "workload", "axis", "rbd_fast_s1", "delta", "spearman_rho", "spearman_p")
FILES = {"robustness.csv": LONG_COLUMNS, "robustness_points.csv": POINT_COLUMNS, "headline.csv": HEADLINE_COLUMNS,
         "robustness_sensitivity.csv": SENSITIVITY_COLUMNS}


def _fmt(x) -> str:
    """Every cell as a string: floats with 10 significant digits ('' for NaN or None), the rest as str."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        return "" if math.isnan(x) else format(x, ".10g")
    if isinstance(x, (np.floating,)):
        return _fmt(float(x))
    return str(x)


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


def _strings(df):
    import polars as pl

    return pl.DataFrame({c: [_fmt(x) or None for x in df[c].to_list()] for c in df.columns},
                        schema={c: pl.String for c in df.columns})


def _write_all(frames, out_dir, papers) -> None:
    """Write the four CSVs atomically; rows of papers not in this run (already in the files) are kept,
    sorted by paper, each paper's rows in input order."""
    import polars as pl

    from ._io import atomic_path

    out_dir.mkdir(parents=True, exist_ok=True)
    ran = {str(p) for p in papers}
    for (name, cols), df in zip(FILES.items(), frames, strict=True):
        new = _strings(df)
        path = out_dir / name
        if path.exists():
            old = pl.read_csv(path, infer_schema_length=0)
            if tuple(old.columns) == cols:
                new = pl.concat([old.filter(~pl.col("paper").is_in(list(ran))), new])
        new = new.with_columns(pl.col("paper").cast(pl.Int64).alias("_p")).sort("_p", maintain_order=True).drop("_p")
        with atomic_path(path) as tmp:
            new.write_csv(tmp, null_value="")


def read(out_dir=None, map: str = "reduced") -> dict:
    """The four CSVs of a map as polars frames (numbers parsed), keyed by file name."""
    import polars as pl

    from . import paths

    if out_dir is None:
        out_dir = paths.results if map == "reduced" else paths.results / "robustness_full"
    from pathlib import Path

    out = {}
    for name in FILES:
        df = pl.read_csv(Path(out_dir) / name, infer_schema_length=0)
        num = [c for c in df.columns if c in _NUMERIC]
        out[name] = df.with_columns([pl.col(c).cast(pl.Float64) for c in num])
    return out


_NUMERIC = {"our_value", "u", "paper_value", "default_value", "map_default_value", "bias", "holds_share",
            "holds_ci_low", "holds_ci_high", "partly_share", "not_comparable_share", "nearest_value",
            "nearest_distance", "rbd_fast_s1", "delta", "spearman_rho", "spearman_p"}



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


def plot_paper(paper, out_dir=None, figures_dir=None, map: str = "reduced") -> list:
    """One figure per paper figure or table holding headline claims (grouped by the ``source`` column), a
    panel per claim: our value over its two most influential axes (colour), the paper's number as a contour
    (``tricontour`` at that level; the sign boundary 0 for a sign claim), the default point marked (star).
    Reads the map's CSVs in ``out_dir``; writes ``<figures_dir>/robustness_<paper>_<slug>.png`` (default
    ``figures/``, or ``figures/robustness_full/`` for the full map) and returns the paths."""
    import textwrap
    from pathlib import Path

    import polars as pl
    from matplotlib.figure import Figure

    from . import paths
    from ._io import atomic_path

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
    axes_by_name = {a.name: a for a in space.axes}
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
            s = sens.filter((pl.col("claim") == r["claim"]) & (pl.col("workload") == r["workload"]))
            key = "rbd_fast_s1" if r["sensitivity_method"] == "rbd_fast" else "delta"
            score = {a: (v if v is not None and math.isfinite(v) else -math.inf, -abs(rho or 0.0))
                     for a, v, rho in zip(s["axis"], s[key], s["spearman_rho"], strict=True)}
            order = sorted(space.names, key=lambda a: (-score.get(a, (-math.inf, 0))[0],
                                                         score.get(a, (0, 0))[1], space.names.index(a)))
            ax_x, ax_y = order[0], order[1] if len(order) > 1 else None
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
        fig.suptitle(f"Paper {num}, {slug}: headline claims across the space ({map} map)", fontsize=10)
        figures_dir.mkdir(parents=True, exist_ok=True)
        target = figures_dir / f"robustness_{num}_{slug}.png"
        with atomic_path(target) as tmp:
            fig.savefig(tmp, dpi=110, format="png", metadata={"Software": None})
        written.append(target)
    return written


# --- the command line ------------------------------------------------------------------------------------------
def add_arguments(ap) -> None:
    from .sweep import EXECUTORS

    ap.add_argument("--map", default="reduced", choices=MAPS, help="reduced (make; 32 points per paper) or full "
                    "(make robustness; 256 points per paper)")
    ap.add_argument("--paper", nargs="+", default=None, metavar="N",
                    help="paper numbers (default: every paper with a robustness module) or module paths")
    ap.add_argument("--points", type=int, default=None, help="points per paper (default: 32 reduced, 256 full)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--executor", default="local", choices=EXECUTORS)
    ap.add_argument("--workers", type=int, default=None, help="processes for 'process' and the Dask LocalCluster")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address, e.g. tcp://host:8786 (implies dask)")
    ap.add_argument("--out", default=None, help="folder of the CSVs (default: results/, or results/robustness_full/)")
    ap.add_argument("--figures", default=None, help="folder of the figures (default: figures/, or "
                    "figures/robustness_full/)")
    ap.add_argument("--no-figures", action="store_true", help="write the CSVs only")
    ap.add_argument("--no-bias", action="store_true", help="do not run the default point at the claims' scale "
                    "(default_verdict is then the map scale's and bias is empty)")


def add_parser(sub) -> None:
    """The ``flashrepro robustness`` subcommand."""
    s = sub.add_parser("robustness", help="judge every headline claim across its paper's space (robustness maps)",
                       description="Sample each paper's declared space (seeded Latin hypercube), run every point, "
                       "and write robustness.csv, robustness_points.csv, headline.csv, robustness_sensitivity.csv "
                       "and one figure per paper figure or table.")
    add_arguments(s)


def main(a) -> int:
    import sys

    papers = [int(p) if p.isdigit() else p for p in a.paper] if a.paper else list(PAPERS)
    try:
        res = run_map(papers, a.map, n=a.points, seed=a.seed, executor=a.executor, workers=a.workers,
                      scheduler=a.scheduler, progress=True, out_dir=a.out, bias=not a.no_bias,
                      figures=not a.no_figures, figures_dir=a.figures, log=lambda m: print(m, file=sys.stderr))
    except (ValueError, TypeError) as e:
        print(f"flashrepro robustness: error: {e}", file=sys.stderr)
        return 2
    for f in res.failures:
        print(f"flashrepro robustness: point failed: {f}", file=sys.stderr)
    for r in res.headline.iter_rows(named=True):
        share = "n/a" if not math.isfinite(r["holds_share"]) else f"{r['holds_share']:.0%}"
        print(f"paper {r['paper']}: {r['claim']} [{r['workload']}]: default {r['default_verdict'] or 'n/a'}, "
              f"holds on {share} of {r['n_points']} points, top axis {r['top_axis'] or 'n/a'}")
    print(f"wrote {res.out_dir} ({res.map} map, {len(res.headline)} headline rows, {len(res.figures)} figures, "
          f"{res.wall_s:.1f} s; skipped: {', '.join(res.skipped) or 'none'})")
    return 1 if res.failures else 0


def _cli(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m flashrepro.robustness", description=main.__doc__)
    add_arguments(ap)
    return main(ap.parse_args(argv))


if __name__ == "__main__":
    import sys

    sys.exit(_cli())
