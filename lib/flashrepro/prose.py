"""Prose from tables: every notebook's closing text ("what holds and why") is rendered from the tables beside
it when the notebook runs, at every scale, so no number in the text can differ from the run it describes.

A paper's ``text.py`` builds its Markdown with these helpers from its claims and result tables;
:func:`flashrepro.report.write_text` shows it in the notebook and writes ``results/<notebook>_text.md``.
"""

from __future__ import annotations

import math

import polars as pl

from .claims import VERDICTS


def pct(x: float | None, digits: int = 1, signed: bool = True) -> str:
    """``0.054`` -> ``"+5.4%"`` (``"n/a"`` for a missing value)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}%}" if signed else f"{x:.{digits}%}"


def num(x: float | None, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, thousands separated when whole (``"n/a"`` if missing)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:.{digits}g}"


def counts(claims: pl.DataFrame) -> str:
    """``"75 rows: 2 hold, 8 partly, 16 do not hold, 49 not comparable"``."""
    got = dict(zip(*claims["verdict"].value_counts().select("verdict", "count").to_dict(as_series=False).values(),
                   strict=True))
    words = {"holds": "hold", "partly": "partly", "does not hold": "do not hold", "not comparable": "not comparable"}
    return f"{claims.height} rows: " + ", ".join(f"{got.get(v, 0)} {words[v]}" for v in VERDICTS)


def row(claims: pl.DataFrame, claim: str, workload: str | None = None) -> dict:
    """The one ledger row whose claim is ``claim`` or, failing that, starts with it (and whose workload is
    ``workload``); an error naming what was asked when there is none or more than one, so a renamed row
    cannot go unnoticed. (An exact match wins: "Table 3: WAF of 2R" is not also "... of 2R++".)"""
    d = claims if workload is None else claims.filter(pl.col("workload") == workload)
    exact = d.filter(pl.col("claim") == claim)
    d = exact if exact.height else d.filter(pl.col("claim").str.starts_with(claim))
    if d.height != 1:
        raise KeyError(f"{d.height} ledger rows match claim {claim!r}, workload {workload!r} (expected one)")
    return d.row(0, named=True)


def verdict(claims: pl.DataFrame, claim: str, workload: str | None = None) -> str:
    """The verdict of one row, for a sentence: ``"holds"``, ``"does not hold"``, ..."""
    return row(claims, claim, workload)["verdict"]


def table(rows: list[dict], columns: list[str] | None = None) -> str:
    """A small Markdown table from dicts (for a "why it does not reproduce" section)."""
    if not rows:
        return ""
    cols = columns or list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(str(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(out)
