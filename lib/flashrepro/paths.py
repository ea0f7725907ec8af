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
interim = data / "interim"  # parsed-trace cache, keyed by content hash
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


def outputs_for(scale: str) -> None:
    """Send tables and figures of a non-paper run to ``results/<scale>/`` and ``figures/<scale>/``, so
    ``make quick`` and the nbval tests never overwrite what ``make`` produced. Notebooks call this
    right after their parameters cell."""
    global results, figures
    base_results, base_figures = root / "results", root / "figures"
    results = base_results if scale == "paper" else base_results / scale
    figures = base_figures if scale == "paper" else base_figures / scale
