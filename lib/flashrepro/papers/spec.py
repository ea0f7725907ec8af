"""What a paper package declares about itself: its :class:`Paper`, and how to read that without importing it.

Each ``papers/<key>/__init__.py`` holds one ``PAPER = Paper(__name__, notebook=..., title=..., ledger=...,
outputs=[Output(...), ...])``: the notebook it belongs to (``notebooks/<notebook>.ipynb``, whose two-digit
prefix is the paper's number: ``make paper<number>``), a title, its number in the claims ledger (None when the
notebook makes no claims) and the outputs the notebook writes, each with the function that computes or draws
it (:class:`~flashrepro.papers.layout.Output`). The notebook's settings are not repeated here: they are the
defaults of its tagged ``parameters`` cell (:attr:`Spec.settings`), the one place papermill overrides.

:class:`Spec` is the part that needs no import of the package: :func:`read` takes it from the package's
source (the literal ``notebook``, ``title`` and ``ledger`` of the ``PAPER = Paper(...)`` call), so the
Makefile, the claims ledger, the robustness maps and the report find every paper without importing the
paper packages (tens of seconds together: their kernels, polars, matplotlib). :class:`Paper` adds the
outputs. This module imports only the standard library (and :mod:`.layout` when a :class:`Paper` is built).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Spec:
    """A paper's notebook, title and ledger number, readable without importing its package.

    ``package`` is the package's module name (``__name__`` in its ``__init__.py``), ``notebook`` the stem of
    ``notebooks/<notebook>.ipynb``, ``ledger`` the ``paper`` column of its claims rows (None: no claims),
    ``catalog`` the prefix of the workload names the package adds to the workload catalog when imported
    (``"bsclock"``: ``bsclock/web-browsing``, ...; None: none), so the catalog imports it when asked for one."""

    package: str
    notebook: str
    title: str
    ledger: int | None = None
    catalog: str | None = None

    def __post_init__(self):
        head, sep, _ = self.notebook.partition("_")
        if not (sep and len(head) == 2 and head.isdigit()):
            raise ValueError(f"{self.package}: a notebook name starts with two digits and '_' (its number), "
                             f"got {self.notebook!r}")
        if self.ledger is not None and not isinstance(self.ledger, int):
            raise TypeError(f"{self.package}: ledger is a paper number or None, got {self.ledger!r}")

    @property
    def key(self) -> str:
        """The package's name under ``papers/`` (``bs_clock``)."""
        return self.package.rpartition(".")[2]

    @property
    def number(self) -> int:
        """The notebook's two-digit prefix: ``make paper<number>`` runs it."""
        return int(self.notebook[:2])

    @property
    def notebook_path(self) -> Path:
        from .. import paths

        return paths.notebooks / f"{self.notebook}.ipynb"

    @property
    def settings(self) -> dict:
        """The notebook's parameters and their defaults (its tagged ``parameters`` cell), name -> value (the
        source text where a default is not a literal): what ``-p name value`` overrides."""
        p = self.notebook_path
        return dict(parameters(str(p), p.stat().st_mtime_ns))


@dataclasses.dataclass(frozen=True)
class Paper(Spec):
    """A paper package's whole declaration: :class:`Spec` and ``outputs``, its notebook's figures and tables
    (given as a list of :class:`~flashrepro.papers.layout.Output`; held as an
    :class:`~flashrepro.papers.layout.Index`, whose ``check()`` ends the notebook)."""

    outputs: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        from .layout import Index

        object.__setattr__(self, "outputs", Index(self.notebook, self.outputs))

    def output(self, name: str):
        """The declared output called ``name``: its file (``"fig2.png"``), its file without the notebook's
        prefix (``"fig2.png"`` for ``01_bs_clock_fig2.png``) or that without the suffix (``"fig2"``) when only
        one output has it. ``.stem`` is the name a notebook writes it under; calling it runs its function."""
        prefix = self.notebook + "_"
        hits = [o for o in self.outputs if name in output_names(self.notebook, o.file)]
        if len(hits) != 1:
            known = ", ".join(o.file.removeprefix(prefix) for o in self.outputs)
            raise KeyError(f"{self.notebook}: {len(hits)} outputs called {name!r} (exactly one needed; "
                           f"give the suffix where a table and a figure share a name); outputs: {known}")
        return hits[0]

    def save(self, name: str, obj):
        """Write ``obj`` as the declared output ``name`` (:meth:`output`, then
        :meth:`~flashrepro.papers.layout.Output.write`): for a table or figure a cell assembles itself."""
        return self.output(name).write(obj, self.notebook)

    def make(self, name: str, *args, **kwargs):
        """Run the declared output ``name``'s function on the arguments, write what it returns (:meth:`save`)
        and return that: ``tab2 = PAPER.make("table2.csv", traces)``."""
        out = self.output(name)
        obj = out(*args, **kwargs)
        out.write(obj, self.notebook)
        return obj

    def check(self):
        """Compare the declared outputs with the files this session wrote; raise on a difference (a
        notebook's last cell: :meth:`~flashrepro.papers.layout.Index.check`)."""
        return self.outputs.check()


def output_names(notebook: str, file: str) -> tuple[str, ...]:
    """The names a notebook's output ``file`` answers to in :meth:`Paper.output`: the file, without the notebook's
    prefix, and both without the suffix (``01_bs_clock_fig2.png``, ``fig2.png``, ``01_bs_clock_fig2``,
    ``fig2``)."""
    stem = file.rsplit(".", 1)[0]
    prefix = notebook + "_"
    return file, file.removeprefix(prefix), stem, stem.removeprefix(prefix)


@functools.lru_cache(maxsize=64)
def parameters(path: str, mtime_ns: int) -> tuple:
    """The tagged ``parameters`` cell of the notebook at ``path`` as ``(name, default)`` pairs in order (a
    default that is not a Python literal as its source text), as papermill reads it; () without one
    (:func:`flashrepro.paths.parameters_cell` reads it)."""
    from .. import paths

    return tuple(paths.parameters_cell(Path(path).read_text(encoding="utf-8")).items())


def read(init: Path, package: str) -> Spec | None:
    """The :class:`Spec` a package's ``__init__.py`` (``init``) declares in ``PAPER = Paper(__name__, ...)``,
    from its source; None when it assigns no ``PAPER``. A declaration whose fields are not literals is taken
    from the imported package instead."""
    return _read(str(init), init.stat().st_mtime_ns, package)


@functools.lru_cache(maxsize=64)
def _read(init: str, mtime_ns: int, package: str) -> Spec | None:
    tree = ast.parse(Path(init).read_text(encoding="utf-8"))
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PAPER"
                                                     for t in node.targets)):
            continue
        call = node.value
        fields = {"package": package}
        literal = isinstance(call, ast.Call) and len(call.args) <= 1 and (
            not call.args or (isinstance(call.args[0], ast.Name) and call.args[0].id == "__name__"))
        if literal:
            for kw in call.keywords:
                if kw.arg in ("notebook", "title", "ledger", "catalog"):
                    try:
                        fields[kw.arg] = ast.literal_eval(kw.value)
                    except ValueError:
                        literal = False
        if literal and {"notebook", "title"} <= set(fields):
            return Spec(**fields)
        import importlib

        paper = importlib.import_module(package).PAPER
        return Spec(paper.package, paper.notebook, paper.title, paper.ledger, paper.catalog)
    return None
