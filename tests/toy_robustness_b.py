"""A second toy paper (98): toy_robustness's space and claims under another number, for the tests that run
maps one paper at a time (make runs each paper's map after its notebook) and merge them."""

from __future__ import annotations

import dataclasses

import polars as pl
import toy_robustness as toy

SPACE = dataclasses.replace(toy.SPACE, paper=98)
HEADLINE = toy.HEADLINE
MAP_SCALE = toy.MAP_SCALE
EXPLAIN = toy.EXPLAIN
NOTEBOOK = "98_toy"


def _renumbered(t: pl.DataFrame) -> pl.DataFrame:
    return t.with_columns(pl.lit(SPACE.paper).cast(t["paper"].dtype).alias("paper"))


def point(scale: str = "ci", **values) -> pl.DataFrame:
    return _renumbered(toy.point(scale, **values))


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    return _renumbered(toy.stand_ins(scale))
