"""One claims ledger for every paper: what the paper says, what we measured, and one rule for the verdict.

A claim has a *kind*:

``value``
    A number the paper prints. Holds when ``|ours - paper| <= tolerance * |paper|`` (the tolerance is
    relative). With ``expected="same sign"`` the claim also has a direction (an improvement, a reduction):
    outside the tolerance, with the paper's sign and within a factor of :data:`PARTLY_FACTOR` (3) of its
    magnitude either way (``1/3 <= ours / paper <= 3``), it is "partly": much of the effect is there. Any
    other value is "does not hold"; a value of the right sign beyond the factor has ``ours / paper`` in
    ``detail``, so a reader sees by how much.
``direction``
    A sign, an ordering or a trend, judged on the numbers that decide it:
    ``"positive"`` / ``"negative"`` (``our_value`` is the signed quantity, e.g. A - B; zero does not hold),
    ``"at most"`` / ``"at least"`` (``our_value`` against the bound ``paper_value``, the tolerance relative
    to it), and ``"increasing"`` / ``"decreasing"`` over a whole curve, never only its end points:
    ``our_value`` is the largest move back against the trend from the best point reached so far (a U-shaped
    "fall" scores its whole rebound), as a fraction of the curve's largest magnitude (0 for a monotone
    curve), and the claim holds when it is at most ``tolerance`` and the curve moves the claimed way at all
    (a flat curve neither rises nor falls).
``calibration``
    An input the model was fitted to. Shown beside its target, always "not comparable": a fit is not
    evidence.
``not comparable``
    A number we cannot measure like for like; ``note`` says why.

Tolerances come from three named classes, so that every notebook judges alike:

* :data:`PRINTED` (15%): a number the paper prints, against ours;
* :data:`APPROX` (25%): a number the paper gives loosely ("about", "up to", read off a figure) or one derived
  from two printed measurements (an improvement, whose errors compound);
* :data:`EQUAL` (5%): two quantities the paper calls about equal: their ratio within 5% of 1.

Bounds and signs (``direction``) take no tolerance unless a row says why. A tolerance wider than the
paper's own precision (a class chosen for a number printed to more digits) says why in ``note``.

Evidence, not echoes: a row that a control meets as well (the baseline, or a trivially different setting
such as adaptive culling with its feedback gain at 0) is no evidence for the mechanism, and a row that
cannot fail under the model is no evidence at all. :func:`against_control` and :func:`by_construction`
turn such rows into "not comparable" with the reason in ``note``, keeping both numbers.

Numbers are stored as numbers with a ``unit``; ``detail`` carries what a reader needs to see the
verdict (a curve, the two values compared). Each notebook writes its claims with :func:`write`;
``python -m flashrepro.claims`` gathers every notebook's claims into ``results/claims.csv``.

Headline claims: ``headline`` is True where the row's claim is one of its paper's ``HEADLINE`` claims
(``flashrepro.papers.<pkg>.robustness``), the numbers a reader remembers, which
:mod:`flashrepro.robustness` judges across the paper's whole declared space (``results/headline.csv``).

Measured rows: a claim judged on something this machine measures (a replay's wall time on its disk)
differs from run to run, so it cannot sit in the byte-identical ``claims.csv``. Such rows are written with
``write(..., measured=True)`` to ``results/<notebook>_claims_measured.csv`` and gathered into
``results/claims_measured.csv``, under the same verdict rule, beside the ledger (the report shows both).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Sequence

import polars as pl

from . import paths
from ._io import atomic_path
from .display import show as show_table
from .headline import headline_claims

PRINTED, APPROX, EQUAL = 0.15, 0.25, 0.05  # the tolerance classes (see the module docstring)
PARTLY_FACTOR = 3.0  # "partly": the paper's sign and within this factor of its magnitude, either way
KINDS = ("value", "direction", "calibration", "not comparable")
VERDICTS = ("holds", "partly", "does not hold", "not comparable")
DIRECTIONS = ("positive", "negative", "at most", "at least", "increasing", "decreasing")
COLUMNS = ["paper", "claim", "workload", "kind", "expected", "paper_value", "our_value", "unit", "tolerance",
           "verdict", "source", "detail", "note", "headline"]
SCHEMA = {"paper": pl.Int64, "claim": pl.String, "workload": pl.String, "kind": pl.String, "expected": pl.String,
          "paper_value": pl.Float64, "our_value": pl.Float64, "unit": pl.String, "tolerance": pl.Float64,
          "verdict": pl.String, "source": pl.String, "detail": pl.String, "note": pl.String, "headline": pl.Boolean}


@dataclasses.dataclass(frozen=True)
class Claim:
    """One row of the ledger; build it with :func:`value`, :func:`direction`, :func:`calibration` or
    :func:`not_comparable`, which compute the verdict."""

    paper: int
    claim: str
    workload: str
    kind: str
    expected: str
    paper_value: float | None
    our_value: float | None
    unit: str
    tolerance: float | None
    verdict: str
    source: str = ""
    detail: str = ""
    note: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim kind must be one of {KINDS}, got {self.kind!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        for name in ("paper_value", "our_value", "tolerance"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, (int, float)):
                raise TypeError(f"{name} must be a number or None, got {v!r}")


def judge(kind: str, expected: str, paper: float | None, ours: float | None, tolerance: float | None) -> str:
    """The one verdict rule (see the module docstring)."""
    if kind in ("calibration", "not comparable"):
        return "not comparable"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return "does not hold"
    tol = tolerance or 0.0
    if kind == "value":
        if paper is None:
            raise ValueError("a value claim needs the paper's value")
        if abs(ours - paper) <= tol * abs(paper):
            return "holds"
        if expected == "same sign" and _same_sign(ours, paper) \
                and 1 / PARTLY_FACTOR <= ours / paper <= PARTLY_FACTOR:
            return "partly"
        return "does not hold"
    if expected == "positive":
        return "holds" if ours > 0 else "does not hold"
    if expected == "negative":
        return "holds" if ours < 0 else "does not hold"
    if expected == "at most":
        return "holds" if ours <= paper + tol * abs(paper) else "does not hold"
    if expected == "at least":
        return "holds" if ours >= paper - tol * abs(paper) else "does not hold"
    if expected in ("increasing", "decreasing"):
        return "holds" if ours <= tol else "does not hold"
    raise ValueError(f"unknown expectation {expected!r} for a direction claim; use one of {DIRECTIONS}")


def _same_sign(ours: float, paper: float) -> bool:
    return paper != 0 and ours != 0 and math.copysign(1, ours) == math.copysign(1, paper)


def _num(x) -> float | None:
    return None if x is None else float(x)


def value(paper: int, claim: str, workload: str, paper_value: float, our_value: float, tolerance: float,
          unit: str, *, same_sign: bool = False, source: str = "", detail: str = "", note: str = "") -> Claim:
    """A printed number against ours, within ``tolerance`` (relative)."""
    expected = "same sign" if same_sign else "within tolerance"
    verdict = judge("value", expected, paper_value, our_value, tolerance)
    if same_sign and verdict != "holds" and our_value is not None and not math.isnan(our_value) \
            and _same_sign(our_value, paper_value):
        ratio = f"ours / paper = {our_value / paper_value:.3g}"
        detail = f"{detail}; {ratio}" if detail else ratio
    return Claim(paper, claim, workload, "value", expected, _num(paper_value), _num(our_value), unit,
                 _num(tolerance), verdict, source, detail, note)


def direction(paper: int, claim: str, workload: str, expected: str, our_value: float | Sequence[float],
              *, paper_value: float | None = None, tolerance: float = 0.0, unit: str = "", source: str = "",
              detail: str = "", note: str = "", x: Sequence | None = None) -> Claim:
    """A sign, bound or trend. For ``"increasing"``/``"decreasing"`` pass the whole curve (and its ``x``
    for the detail); the stored value is the largest move against the trend over the largest magnitude."""
    if expected not in DIRECTIONS:
        raise ValueError(f"expected must be one of {DIRECTIONS}, got {expected!r}")
    if expected in ("increasing", "decreasing"):
        ys = [float(v) for v in our_value]
        if len(ys) < 2:
            raise ValueError("a trend needs at least two points")
        sign = 1 if expected == "increasing" else -1
        scale = max(abs(v) for v in ys) or 1.0
        best, worst = sign * ys[0], 0.0  # the largest move back from the best point reached so far
        for v in ys[1:]:
            best = max(best, sign * v)
            worst = max(worst, best - sign * v)
        xs = list(x) if x is not None else list(range(len(ys)))
        detail = detail or " -> ".join(f"{v:.4g} ({xv})" for xv, v in zip(xs, ys, strict=True))
        ours = worst / scale
        unit = unit or "largest move against the trend / largest value"
        if best == sign * ys[0]:  # it never moves the claimed way: a flat curve does not rise (or fall)
            return Claim(paper, claim, workload, "direction", expected, _num(paper_value), ours, unit,
                         _num(tolerance), "does not hold", source,
                         f"{detail}; never moves {'up' if sign > 0 else 'down'}", note)
    else:
        ours = float(our_value)
    return Claim(paper, claim, workload, "direction", expected, _num(paper_value), ours, unit, _num(tolerance),
                 judge("direction", expected, paper_value, ours, tolerance), source, detail, note)


def calibration(paper: int, claim: str, workload: str, paper_value: float | None, our_value: float | None,
                unit: str, *, source: str = "", detail: str = "", note: str = "fitted input") -> Claim:
    """A statistic the model was fitted to (never evidence)."""
    return Claim(paper, claim, workload, "calibration", "calibration input", _num(paper_value), _num(our_value),
                 unit, None, "not comparable", source, detail, note)


def not_comparable(paper: int, claim: str, workload: str, reason: str, *, paper_value: float | None = None,
                   our_value: float | None = None, unit: str = "", source: str = "", detail: str = "") -> Claim:
    """A number we cannot measure like for like, with the reason."""
    return Claim(paper, claim, workload, "not comparable", "not comparable", _num(paper_value), _num(our_value),
                 unit, None, "not comparable", source, detail, reason)


RANK = {"holds": 2, "partly": 1, "does not hold": 0}  # how far a verdict supports the claim


def _fmt(x: float | None) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}"


def against_control(row: Claim, control: Claim | None, control_name: str) -> Claim:
    """``row`` judged against the same claim computed for a control (``control_name``: the baseline, or the
    mechanism with the part under test switched off). A holding verdict ("holds" or "partly") that the
    control reaches too, at least as strongly, is no evidence for the mechanism: the row becomes "not
    comparable" with both numbers in ``note``. Otherwise the row keeps its verdict and names the control's
    number in ``detail``. A row the mechanism fails stays a failure, whatever the control does."""
    if control is None:
        return row
    both = (f"ours {_fmt(row.our_value)} ({row.verdict}); control, {control_name}: {_fmt(control.our_value)} "
            f"({control.verdict})")
    if row.verdict in ("holds", "partly") and RANK.get(control.verdict, -1) >= RANK[row.verdict]:
        return not_comparable(row.paper, row.claim, row.workload,
                              f"a control meets it too, so it is no evidence for the mechanism: {both}",
                              paper_value=row.paper_value, our_value=row.our_value, unit=row.unit,
                              source=row.source, detail=row.detail)
    return dataclasses.replace(row, detail="; ".join(x for x in (row.detail, both) if x))


def by_construction(row: Claim, reason: str) -> Claim:
    """``row`` as "not comparable": under the model it cannot fail (``reason`` says why), so it is no
    evidence. Its numbers and its verdict under the rule stay visible."""
    return not_comparable(row.paper, row.claim, row.workload,
                          f"cannot fail under the model ({reason}); under the rule it would be: {row.verdict}",
                          paper_value=row.paper_value, our_value=row.our_value, unit=row.unit, source=row.source,
                          detail=row.detail)


def table(claims: Sequence[Claim]) -> pl.DataFrame:
    """The claims as a polars table with the ledger's columns (``headline`` from :func:`is_headline`)."""
    rows = [dataclasses.asdict(c) | {"headline": is_headline(c.paper, c.claim)} for c in claims]
    return pl.DataFrame(rows, schema=SCHEMA).select(COLUMNS)


def is_headline(paper: int, claim: str) -> bool:
    """Whether ``claim`` is one of paper ``paper``'s headline claims: in its package's
    ``robustness.HEADLINE`` (:mod:`flashrepro.robustness`; False where the paper has no such module)."""
    return claim in headline_claims(paper)


def tag(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with its ``headline`` column (re)computed from the papers' ``HEADLINE`` tuples, in place of the
    old one or added where a table (a file written before the column existed) lacks it."""
    flags = [is_headline(p, c) for p, c in zip(df["paper"].to_list(), df["claim"].to_list(), strict=True)]
    col = pl.Series("headline", flags, dtype=pl.Boolean)
    if "headline" in df.columns:
        return df.with_columns(col)
    return df.insert_column(COLUMNS.index("headline"), col) if df.width >= COLUMNS.index("headline") \
        else df.with_columns(col)


def read(path) -> pl.DataFrame:
    """A claims CSV with the ledger's schema, tagged (:func:`tag`), also one written before ``headline``."""
    import csv

    with open(path, newline="") as f:
        header = next(csv.reader(f), [])
    schema = {c: SCHEMA[c] for c in header} if "headline" not in header else SCHEMA
    return tag(pl.read_csv(path, schema=schema))


MEASURED = "_claims_measured"  # the file-name suffix of measured rows (machine-dependent, see the docstring)


def write(claims: Sequence[Claim] | pl.DataFrame, notebook: str, measured: bool = False) -> pl.DataFrame:
    """Write ``results/<notebook>_claims.csv`` (``measured=True``: ``<notebook>_claims_measured.csv``)
    atomically and return the table."""
    df = tag(claims) if isinstance(claims, pl.DataFrame) else table(claims)
    check(df)
    target = paths.results / f"{notebook}{MEASURED if measured else '_claims'}.csv"
    with atomic_path(target) as tmp:
        df.write_csv(tmp)
    return df


def check(df: pl.DataFrame) -> None:
    if df.columns[:len(COLUMNS)] != COLUMNS:
        raise ValueError(f"a claims table has columns {COLUMNS}, got {df.columns}")
    bad = set(df["verdict"].to_list()) - set(VERDICTS)
    if bad:
        raise ValueError(f"unknown verdicts {sorted(bad)}; use one of {VERDICTS}")


def show(df: pl.DataFrame, decimals: int = 4) -> None:
    """Print a claims table for a reader: the claim, both numbers, the rule and the verdict, then the count
    per verdict."""
    show_table(df.select("claim", "workload", "kind", "expected", "paper_value", "our_value", "unit", "tolerance",
                         "verdict", "detail"), decimals)
    n = df["verdict"].value_counts()
    got = dict(zip(n["verdict"].to_list(), n["count"].to_list(), strict=True))
    print(f"{df.height} claims: " + ", ".join(f"{got.get(v, 0)} {v}" for v in VERDICTS))


def counts(df: pl.DataFrame) -> pl.DataFrame:
    """Claims per paper and verdict, one row per paper."""
    wide = {v: pl.col("verdict").eq(v).sum().alias(v) for v in VERDICTS}
    return df.group_by("paper").agg(pl.len().alias("claims"), *wide.values()).sort("paper")


def collect(results_dir=None) -> pl.DataFrame:
    """Every ``*_claims.csv`` in ``results_dir`` (default ``results/``) in one table, written to
    ``claims.csv`` there; the measured rows (``*_claims_measured.csv``) likewise to ``claims_measured.csv``
    (removed when no notebook wrote any)."""
    d = paths.results if results_dir is None else results_dir
    files = sorted(p for p in d.glob("*_claims.csv"))
    if not files:
        raise FileNotFoundError(f"no *_claims.csv in {d}: run the notebooks first (make)")
    df = pl.concat([read(f) for f in files])
    check(df)
    with atomic_path(d / "claims.csv") as tmp:
        df.write_csv(tmp)
    measured = sorted(d.glob(f"*{MEASURED}.csv"))
    if measured:
        m = pl.concat([read(f) for f in measured])
        check(m)
        with atomic_path(d / "claims_measured.csv") as tmp:
            m.write_csv(tmp)
    else:
        (d / "claims_measured.csv").unlink(missing_ok=True)
    return df


def collect_measured(results_dir=None) -> pl.DataFrame | None:
    """``claims_measured.csv`` as :func:`collect` wrote it, or None."""
    f = (paths.results if results_dir is None else results_dir) / "claims_measured.csv"
    return read(f) if f.exists() else None


def _paper_label(paper: int) -> str:
    return "theory (paper 0)" if paper == 0 else f"paper {paper}"


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m flashrepro.claims",
                                 description="gather every notebook's claims into results/claims.csv")
    ap.add_argument("--results", default=None, help="folder of *_claims.csv (default: results/)")
    a = ap.parse_args(argv)
    from pathlib import Path

    df = collect(Path(a.results) if a.results else None)
    for r in counts(df).iter_rows(named=True):
        parts = ", ".join(f"{r[v]} {v}" for v in VERDICTS)
        print(f"{_paper_label(r['paper'])}: {r['claims']} claims: {parts}")
    m = collect_measured(Path(a.results) if a.results else None)
    if m is not None:
        for r in counts(m).iter_rows(named=True):
            parts = ", ".join(f"{r[v]} {v}" for v in VERDICTS)
            print(f"paper {r['paper']}: {r['claims']} measured rows (claims_measured.csv, this machine): {parts}")
    print(f"wrote {(Path(a.results) if a.results else paths.results) / 'claims.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
