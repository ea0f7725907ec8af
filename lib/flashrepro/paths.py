"""Every path the package reads or writes, rooted at the repository, never at the cwd.

``FLASHREPRO_HOME`` overrides the root (useful for a non-editable install);
``FLASHREPRO_TRACE_DIRS`` (``os.pathsep``-separated) adds folders searched for real traces
after ``data/raw``.
"""

from __future__ import annotations

import os
from pathlib import Path

root = Path(os.environ.get("FLASHREPRO_HOME", Path(__file__).resolve().parents[2]))
data = root / "data"
raw = data / "raw"  # real traces a user drops in
interim = data / "interim"  # parsed-trace cache, keyed by the file's identity (traces/store.py)
paper = data / "paper"  # numbers the papers report, as CSV
figures = root / "figures"
results = root / "results"
build = root / "build"
notebooks = root / "notebooks"


def trace_dirs() -> list[Path]:
    """Folders searched for real trace files, in order: data/raw, then FLASHREPRO_TRACE_DIRS."""
    dirs = [raw]
    for part in os.environ.get("FLASHREPRO_TRACE_DIRS", "").split(os.pathsep):
        if part.strip():
            dirs.append(Path(part.strip()).expanduser())
    return dirs


def find_trace(relpath: str) -> Path | None:
    """The first existing ``<dir>/<relpath>`` (a file, or a folder for folder formats such as android-sql)
    over :func:`trace_dirs`, or None."""
    for d in trace_dirs():
        p = d / relpath
        if p.is_file() or p.is_dir():
            return p
    return None


VARIANT_ENV = "FLASHREPRO_VARIANT"  # set by the notebook runner for a run with non-default parameters


def outputs_for(scale: str) -> None:
    """Choose where this run's tables and figures go; notebooks call this right after their parameters cell.

    * ``make`` (paper scale, default parameters): ``results/`` and ``figures/``;
    * another scale (``make quick``, the nbval tests): ``results/<scale>/`` and ``figures/<scale>/``;
    * a variant, i.e. any parameter other than ``scale`` changed (the runner,
      ``python -m flashrepro.notebooks run``, sets ``FLASHREPRO_VARIANT=<notebook>-<short hash of the
      parameters>``): ``results/variants/<variant>/`` and ``figures/variants/<variant>/``.

    So neither ``make quick``, the tests nor a variant ever overwrite what ``make`` produced. Stale
    temporaries a killed run left in those folders are removed (:func:`flashrepro.tempfiles.sweep`), and
    SIGTERM now cleans up as Ctrl-C does."""
    from . import tempfiles

    global results, figures
    base_results, base_figures = root / "results", root / "figures"
    variant = os.environ.get(VARIANT_ENV, "").strip()
    if variant:
        if "/" in variant or variant.startswith("."):
            raise ValueError(f"{VARIANT_ENV}={variant!r} is not a folder name")
        results, figures = base_results / "variants" / variant, base_figures / "variants" / variant
    else:
        results = base_results if scale == "paper" else base_results / scale
        figures = base_figures if scale == "paper" else base_figures / scale
    tempfiles.sweep(results, figures)
    tempfiles.terminate_as_exit()
