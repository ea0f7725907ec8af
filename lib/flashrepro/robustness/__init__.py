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
    nearest_point, nearest_value, nearest_distance, top_axis, sensitivity_method (rbd_fast, delta or none),
    stand_in_verdicts ("trace: verdict; ...", at the map's scale), map_scale, claims_scale.
``robustness_sensitivity.csv``
    paper, claim, workload, axis, rbd_fast_s1, delta, spearman_rho, spearman_p.

Floats are written with 10 significant digits, rows in input order (paper, then claim and point), so a
rerun, the process executor and a Dask cluster give byte-identical files; running some papers only keeps
the other papers' rows already in the files.

Rules: a NaN value counts as "does not hold" (the ledger's rule) and is left out of the sensitivity
(``n_nan`` says how many). A point that raised is reported (``n_failed``, :attr:`MapResult.failures`) and
never silently dropped. Value claims' nearest point: smallest ``|ours - paper| / |paper|``; direction claims':
the largest signed margin to the bound or sign (``nearest_distance`` is then the shortfall, <= 0 where it
holds). Sensitivity: SALib's RBD-FAST first-order index on the same Latin hypercube sample (unit-cube
inputs), SALib's delta where RBD-FAST cannot run, Spearman's rank correlation beside it; ``top_axis`` is the
largest first-order index. A notebook's text section (``add_to_texts``) adds, per claim, the median of ours
and the holds share in each part of its top axis and of the ``EXPLAIN`` axes: the marginal effect over the
whole space, which replaces the notebooks' one-knob sensitivity tables over the same axes.

Adding a paper's space
----------------------
In ``lib/flashrepro/papers/<pkg>/robustness.py``: ``SPACE = Space(paper=N, axes=(Axis(...), ...))`` (each
axis a keyword of ``point``, a range from the paper's context or the traces' statistics and one sentence
``why``; never narrowed toward a claim), ``HEADLINE`` (claim strings exactly as in the ledger), ``MAP_SCALE =
{"reduced": ..., "full": ...}``, ``point(scale="ci", **values) -> ledger rows`` (a plain top-level function:
workers import it by name) and ``stand_ins(scale="ci") -> ledger rows`` on the real traces present;
optionally ``EXPLAIN``, axes whose marginal effect on every headline claim the notebook's text section shows
beside each claim's top axis (:func:`.maps.effects`: the points split by that axis, the others varying).
Nothing else: :data:`PAPERS` lists every paper package with a ledger number (its ``PAPER``) and a
``robustness.py`` (:mod:`flashrepro.headline`).

Modules: this one (the space: :class:`Axis`, :class:`Space`), :mod:`flashrepro.headline` (which module holds
a paper's space and its headline claims), :mod:`.maps` (running, judging, summarising), :mod:`.files` (the
four CSVs, written and read), :mod:`.figures` (:func:`plot_paper`), :mod:`.command` (the command line).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

SCALES = ("linear", "log", "int", "choice")
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


# --- the papers (flashrepro.headline: which module holds a paper's space and which claims are headline) ---
from ..headline import _HEADLINE_MEMO, PAPERS, _static_headline, headline_claims, load, module_name  # noqa: E402,F401


def paper_seed(seed: int, paper: int) -> int:
    """The sample's seed of one paper, derived from the map's seed and the paper's number."""
    return int(np.random.SeedSequence([int(seed), int(paper)]).generate_state(1)[0])



from .command import add_arguments, add_parser, main  # noqa: E402  (they use the names above)
from .figures import figure_slug, plot_paper  # noqa: E402
from .files import FILES, HEADLINE_COLUMNS, LONG_COLUMNS, POINT_COLUMNS, SENSITIVITY_COLUMNS, read  # noqa: E402
from .maps import (  # noqa: E402
    TEXT_BEGIN,
    TEXT_END,
    MapResult,
    _top,
    add_to_texts,
    effects,
    effects_text,
    headline_rows,
    headline_text,
    run_map,
    sensitivity,
)

__all__ = ["Axis", "Space", "PAPERS", "MAPS", "DEFAULT_POINTS", "CLAIMS_SCALE", "module_name", "load",
           "headline_claims", "paper_seed", "run_map", "MapResult", "sensitivity", "read", "plot_paper",
           "figure_slug", "headline_rows", "headline_text", "FILES", "HEADLINE_COLUMNS", "LONG_COLUMNS",
           "POINT_COLUMNS", "SENSITIVITY_COLUMNS", "TEXT_BEGIN", "TEXT_END", "add_to_texts", "effects",
           "effects_text", "add_arguments",
           "add_parser", "main", "_top"]
