"""The theory checks' runs: the package's kernels against the analytic models of :mod:`flashrepro.theory`
under the models' own assumptions. Each function returns one table, one row per case (see the models'
``cases`` docstrings for the columns)."""

from __future__ import annotations

import polars as pl

from ...theory import cache as cache_theory


def cache_cases(scale: str = "paper", seed: int = 0) -> pl.DataFrame:
    """LRU, FIFO, RANDOM and CLOCK on seeded IRM Zipf streams against Che's and the characteristic-time
    approximations (:func:`flashrepro.theory.cache.cases`)."""
    return cache_theory.cases(scale, seed)


def ftl_cases(scale: str = "paper", seed: int = 0) -> pl.DataFrame:
    """The FTL's victim rules under uniform random single-page writes against Desnoyers' FIFO, the random
    victim's mean-field limit and Van Houdt's mean-field model (:func:`flashrepro.theory.ftl.cases`), without
    its ``seconds`` column: a run's CPU time differs between runs and machines, and the tables of ``results/``
    are byte-identical from one ``make`` to the next."""
    from ...theory import ftl as ftl_theory

    return ftl_theory.cases(scale, seed).drop("seconds")
