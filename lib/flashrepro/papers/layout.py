"""What each paper package declares: a ``FIGURES`` index from the paper's figures and tables to the function
that makes each and the file ``make`` writes.

Every paper lives in ``papers/<name>/`` with ``workloads.py`` (the traces and models), ``experiments.py``
(the runs, as polars tables), ``claims.py`` (the claims ledger rows) and ``figures.py`` (the plots), and an
``__init__.py`` holding ``FIGURES``. A notebook ends with ``FIGURES.check()``, which fails when a declared
file was not written in that run or a file was written that the index does not declare, so the index
and what ``make`` produces cannot drift apart (``tests/test_layout.py`` checks the rest statically).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import polars as pl

from .. import report


@dataclasses.dataclass(frozen=True)
class Output:
    """``ref`` is the paper's figure or table ("Fig. 2", "Table 4") or what we add ("extension: ..."),
    ``function`` the library function that computes or draws it, ``file`` what the notebook writes: a
    table ``<name>.csv`` under results/ or a figure ``<name>.png`` (with its ``.pdf``) under figures/.
    ``always=False``: not written at every scale or on every machine (e.g. replays skipped at ci)."""

    ref: str
    function: Callable
    file: str
    always: bool = True


class Index(tuple):
    """A notebook's outputs (a tuple of :class:`Output`)."""

    def __new__(cls, notebook: str, outputs):
        self = super().__new__(cls, outputs)
        self.notebook = notebook
        return self

    def files(self) -> set[str]:
        out = set()
        for o in self:
            out.add(o.file)
            if o.file.endswith(".png"):
                out.add(o.file[:-4] + ".pdf")
        return out

    def check(self) -> pl.DataFrame:
        """Compare with what this session wrote (``report.WRITTEN``); raise on a difference."""
        written = {f for f in report.WRITTEN if f.startswith(self.notebook)}
        missing = sorted(o.file for o in self if o.always and o.file not in written)
        undeclared = sorted(written - self.files())
        if missing or undeclared:
            raise AssertionError(f"{self.notebook}: FIGURES index and outputs differ; declared but not written: "
                                 f"{missing}; written but not declared: {undeclared}")
        return pl.DataFrame([{"paper": o.ref, "function": f"{o.function.__module__.split('.')[-1]}."
                              f"{o.function.__name__}", "file": o.file, "written": o.file in written} for o in self])
