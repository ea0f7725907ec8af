"""What each paper package declares: a ``PAPER`` (:class:`~flashrepro.papers.spec.Paper`) whose ``outputs`` are an
index from the paper's figures and tables to the function that makes each and the file ``make`` writes.

Every paper lives in ``papers/<name>/`` with ``workloads.py`` (the traces and models), ``experiments.py``
(the runs, as polars tables), ``claims.py`` (the claims ledger rows) and ``figures.py`` (the plots), and an
``__init__.py`` holding ``PAPER``. The notebook writes every output through it, by the output's name:
``PAPER.make("fig5.png", curves)`` runs the declared function and writes what it returns,
``PAPER.save("fig3_fig4.csv", tl)`` writes a table the cell assembled. It ends with ``PAPER.check()``, which
fails when a declared file was not written in that run or a file was written that the index does not
declare, so the index and what ``make`` produces cannot drift apart (``tests/test_layout.py`` checks the
rest statically).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import polars as pl

from .. import report


@dataclasses.dataclass(frozen=True)
class Doc:
    """How the docs show a table output: ``make docs`` (:mod:`flashrepro.docs`) renders it between the markers
    ``<!-- results:<block>:begin -->`` and ``<!-- results:<block>:end -->`` of a page, as ``intro`` (``{name}``:
    its file under results/) and a table of ``columns`` (its columns and their headings; None: all, as they
    are) to ``digits`` significant digits; ``about`` is what ``python -m flashrepro.docs --list`` says of it."""

    block: str
    intro: str
    columns: dict | None = None
    digits: int = 4
    about: str = ""


@dataclasses.dataclass(frozen=True)
class Output:
    """``ref`` is the paper's figure or table ("Fig. 2", "Table 4") or what we add ("extension: ..."),
    ``function`` the library function that computes or draws it, ``file`` what the notebook writes: a
    table ``<name>.csv`` under results/ or a figure ``<name>.png`` (with its ``.pdf``) under figures/.
    ``always=False``: not written at every scale or on every machine (e.g. replays skipped at ci). ``doc``: a
    table the docs show (:class:`Doc`)."""

    ref: str
    function: Callable
    file: str
    always: bool = True
    doc: Doc | None = None

    @property
    def stem(self) -> str:
        """The file's name without its suffix (``01_bs_clock_fig2``)."""
        return self.file.rsplit(".", 1)[0]

    def __call__(self, *args, **kwargs):
        """Run the function that computes or draws this output."""
        return self.function(*args, **kwargs)

    def write(self, obj, notebook: str):
        """Write ``obj`` as this output of ``notebook`` with the writer its file name calls for: the claims
        ledger for ``<notebook>_claims.csv`` (``_claims_measured.csv``: rows judged on this machine's
        measurements), :func:`~flashrepro.report.write_timings` for ``*_timings.csv``,
        :func:`~flashrepro.report.write_text` for ``*_text.md``, :func:`~flashrepro.report.write_table` for
        another ``.csv`` and :func:`~flashrepro.plots.savefig` (PNG and PDF) for a ``.png``. Returns what
        the writer returns."""
        f = self.file
        if f == f"{notebook}_claims.csv":
            return report.write_claims(obj, notebook)
        if f == f"{notebook}_claims_measured.csv":
            return report.write_claims(obj, notebook, measured=True)
        if f.endswith("_timings.csv"):
            return report.write_timings(obj, f.removesuffix("_timings.csv"))
        if f.endswith("_text.md"):
            return report.write_text(obj, f.removesuffix("_text.md"))
        if f.endswith(".csv"):
            return report.write_table(obj, self.stem)
        from .. import plots

        return plots.savefig(obj, self.stem)


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
            raise AssertionError(f"{self.notebook}: the declared outputs and the files written differ; "
                                 f"declared but not written: "
                                 f"{missing}; written but not declared: {undeclared}")
        return pl.DataFrame([{"paper": o.ref, "function": f"{o.function.__module__.split('.')[-1]}."
                              f"{o.function.__name__}", "file": o.file, "written": o.file in written} for o in self])


class PaperNumbers:
    """The numbers a paper prints, from ``data/paper/<file>`` (columns ``key``, ``value``, ``source`` and the
    columns that tell rows of one key apart: ``workload``, for paper 4 also ``policy``), and the one way to
    ask for one of them.

    ``numbers("waf", "tpcc", "2r")`` (positional values stand for ``columns`` in order) is the ``value`` of
    the single row with that key whose other given columns equal the values asked for (an empty cell equals
    ``""`` or None); ``defaults`` are the values asked for when a call leaves a column out (paper 5's
    headline numbers are for ``"all"`` workloads). A question with no row, or with more than one, is a
    KeyError naming the file and the question. The file is read once per version of it."""

    def __init__(self, file: str, columns: tuple = ("workload",), **defaults):
        self.file = file
        self.columns = tuple(columns)  # what positional values after the key stand for, in order
        self.defaults = defaults

    def table(self) -> pl.DataFrame:
        """The whole file (every column that tells rows apart read as text)."""
        from .. import paths

        f = paths.paper / self.file
        return _read_numbers(str(f), f.stat().st_mtime_ns)

    def __call__(self, key: str, *values, **where) -> float:
        if len(values) > len(self.columns):
            raise TypeError(f"{self.file}: a key and at most {len(self.columns)} values {self.columns}, got {values}")
        given = {c: v for c, v in zip(self.columns, values, strict=False) if v is not None}
        ask = {**self.defaults, **given, **where}
        df = self.table()
        unknown = sorted(set(ask) - set(df.columns))
        if unknown:
            raise KeyError(f"{self.file} has no column {unknown} (columns: {df.columns})")
        cond = pl.col("key") == key
        for col, v in ask.items():
            cond &= pl.col(col).fill_null("") == ("" if v is None else str(v))
        for col in ("workload", "policy"):  # a column not asked for matches only its empty cells
            if col in df.columns and col not in ask:
                cond &= pl.col(col).fill_null("") == ""
        hit = df.filter(cond)
        if hit.height != 1:
            asked = ", ".join(f"{k}={v!r}" for k, v in ask.items())
            raise KeyError(f"{self.file}: {hit.height} rows for key {key!r}" + (f" with {asked}" if asked else "")
                           + " (exactly one needed)")
        return float(hit["value"][0])


@functools.lru_cache(maxsize=16)
def _read_numbers(path: str, mtime_ns: int) -> pl.DataFrame:
    return pl.read_csv(path, schema_overrides={"workload": pl.String, "policy": pl.String, "key": pl.String})
