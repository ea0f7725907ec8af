"""Tables for results/ and for notebook output: atomic CSV writes, the claims file, stable printing."""

from __future__ import annotations

import polars as pl

from . import paths
from .display import show  # noqa: F401  (notebooks print their tables as report.show)
from .tempfiles import atomic_path

WRITTEN: set[str] = set()  # file names written by this process (tables, figures, claims): see papers/layout.py
MACHINE_DEPENDENT = ("_timings", "_claims_measured")  # in a file name: differs between runs (all else is identical)


def machine_dependent(name: str) -> bool:
    """Whether a results file holds machine-dependent numbers (wall times, rows judged on them), which
    re-runs need not reproduce byte for byte."""
    return any(tag in name for tag in MACHINE_DEPENDENT)


def write_table(df: pl.DataFrame, name: str) -> str:
    """Write ``results/<name>.csv`` atomically (``results`` being the run's folder, :func:`paths.outputs_for`;
    under the runner through its staging folder, :func:`paths.write_path`); returns the path."""
    target = paths.results / f"{name}.csv"
    with atomic_path(paths.write_path(target)) as tmp:
        df.write_csv(tmp)
    WRITTEN.add(target.name)
    return str(target)


def write_timings(df: pl.DataFrame, name: str) -> str:
    """Write machine-dependent measurements (wall times, replay timings) to ``results/<name>_timings.csv``.

    Every other table and figure is byte-identical from run to run (tests/test_rerun.py); a time measured
    while the notebook runs differs on every run, so it goes here and nowhere else."""
    return write_table(df, f"{name}_timings")


def write_claims(claims, notebook: str, measured: bool = False) -> str:
    """Write ``results/<notebook>_claims.csv`` through the claims ledger (:mod:`flashrepro.claims`);
    ``measured=True``: rows judged on this machine's measurements, ``<notebook>_claims_measured.csv``."""
    from . import claims as ledger

    with paths.results_for_writing() as final:
        ledger.write(claims, notebook, measured=measured)
    name = f"{notebook}{ledger.MEASURED if measured else '_claims'}.csv"
    WRITTEN.add(name)
    return str(final / name)


def write_text(text: str, name: str) -> None:
    """Write a notebook's generated prose (:mod:`flashrepro.prose`) to ``results/<name>_text.md`` atomically
    and show it: rendered as Markdown in a notebook, printed elsewhere. Returns nothing, so a notebook cell
    ending with it shows the text, not a path (which differs from machine to machine)."""
    target = paths.results / f"{name}_text.md"
    with atomic_path(paths.write_path(target)) as tmp:
        tmp.write_text(text if text.endswith("\n") else text + "\n")
    WRITTEN.add(target.name)
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover (IPython comes with the notebook dependencies)
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(Markdown(text))
    else:
        print(text)


