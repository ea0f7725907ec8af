"""One package per notebook: experiment grids -> polars DataFrames, and the papers' own numbers; and the
registry of the papers, found from the packages themselves.

A package under ``papers/`` whose ``__init__.py`` assigns ``PAPER = Paper(...)`` (:mod:`.spec`) is a paper:
:func:`all_papers` imports each and returns its ``PAPER``; :func:`specs` reads the same declarations from
the packages' source without importing them (what the Makefile, the claims ledger, the robustness maps and
the report use); :func:`find` picks one by number or name. No list of papers is written anywhere else, so
adding a paper is adding its package and its notebook.

    python -m flashrepro.papers                 # the papers: number, notebook, ledger number, title
    python -m flashrepro.papers notebook 4      # 04_2rpp (the Makefile's paper% rule resolves through it)
"""

from __future__ import annotations

from pathlib import Path

from .spec import Paper, Spec, read


def _packages() -> list[tuple[str, Path]]:
    """(name, folder) of every package under this one's ``__path__``, by name (the first folder of a name)."""
    seen = {}
    for d in __path__:
        for sub in sorted(Path(d).iterdir()) if Path(d).is_dir() else []:
            if sub.name.isidentifier() and (sub / "__init__.py").is_file():
                seen.setdefault(sub.name, sub)
    return sorted(seen.items())


def specs() -> tuple[Spec, ...]:
    """Every paper's :class:`~.spec.Spec`, read from its package's source (no package is imported), by
    number. Two packages with one notebook number or one ledger number are an error."""
    found = [s for name, d in _packages() if (s := read(d / "__init__.py", f"{__name__}.{name}")) is not None]
    return _checked(found)


def all_papers() -> tuple[Paper, ...]:
    """Every package's ``PAPER`` (each package imported), by number."""
    import importlib

    found = []
    for name, _ in _packages():
        paper = getattr(importlib.import_module(f"{__name__}.{name}"), "PAPER", None)
        if paper is not None:
            if not isinstance(paper, Paper) or paper.package != f"{__name__}.{name}":
                raise TypeError(f"{__name__}.{name}.PAPER must be Paper(__name__, ...), got {paper!r}")
            found.append(paper)
    return _checked(found)


def _checked(found: list) -> tuple:
    for attr in ("number", "ledger"):
        values = [getattr(s, attr) for s in found if getattr(s, attr) is not None]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"papers sharing a {attr}: "
                             + "; ".join(f"{v}: {', '.join(s.key for s in found if getattr(s, attr) == v)}"
                                         for v in twice))
    return tuple(sorted(found, key=lambda s: s.number))


def find(which) -> Spec:
    """The paper whose number (``4``, ``"4"``, ``"04"``), package name (``"twor"``) or notebook
    (``"04_2rpp"``) is ``which``."""
    all_specs = specs()
    for s in all_specs:
        if str(which) in (s.key, s.notebook) or (str(which).isdigit() and int(which) == s.number):
            return s
    raise KeyError(f"no paper {which}; papers: {', '.join(f'{s.number} ({s.notebook})' for s in all_specs)}")


def _fit(spec: Spec, args: list[str]) -> int:
    """Run the paper package's ``__main__`` (its models' refit), as ``python -m <package> args`` would."""
    import importlib.util
    import runpy
    import sys

    module = f"{spec.package}.__main__"
    if importlib.util.find_spec(module) is None:
        fits = [f"{s.number} ({s.key})" for s in specs() if importlib.util.find_spec(f"{s.package}.__main__")]
        print(f"python -m flashrepro.papers: paper {spec.number} ({spec.notebook}) has no refit (no {module}); "
              f"papers with one: {', '.join(fits)}", file=sys.stderr)
        return 2
    argv, sys.argv = sys.argv, [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = argv
    return 0


def main(argv=None) -> int:
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers", description="the papers, from their packages")
    sub = ap.add_subparsers(dest="cmd")
    n = sub.add_parser("notebook", help="the notebook of a paper number (or package name)")
    n.add_argument("paper")
    f = sub.add_parser("fit", help="refit a paper's workload models (its package's own `python -m`; make fitN)")
    f.add_argument("paper")
    f.add_argument("args", nargs=argparse.REMAINDER, help="passed on (its --help lists them)")
    a = ap.parse_args(argv)
    if a.cmd in ("notebook", "fit"):
        try:
            spec = find(a.paper)
        except KeyError as e:
            print(f"python -m flashrepro.papers: {e.args[0]}", file=sys.stderr)
            return 2
        if a.cmd == "notebook":
            print(spec.notebook)
            return 0
        return _fit(spec, a.args)
    print(f"{'#':>2}  {'notebook':<16s} {'ledger':>6}  title")
    for s in specs():
        print(f"{s.number:>2}  {s.notebook:<16s} {'' if s.ledger is None else s.ledger:>6}  {s.title}")
    return 0


__all__ = ["Paper", "Spec", "all_papers", "find", "specs"]
