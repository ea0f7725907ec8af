"""Which paper module declares a robustness space, and which ledger rows are headline claims.

A paper's ``papers/<pkg>/robustness.py`` holds its ``SPACE`` and its ``HEADLINE`` tuple (claim strings as in
the ledger). The ledger (:mod:`flashrepro.claims`) tags its rows from ``HEADLINE`` and the maps
(:mod:`flashrepro.robustness`) run the space; both find the module here, so neither imports the other.

:data:`PAPERS` comes from the papers' specs (:func:`flashrepro.papers.specs`, read from the packages' source
without importing them): every paper package with a ledger number and a ``robustness.py``.
"""

from __future__ import annotations

from .papers import specs


def _papers() -> dict:
    """Ledger number -> package name of every paper whose package has a robustness module, by number."""
    from pathlib import Path

    here = Path(__file__).resolve().parent / "papers"
    found = {s.ledger: s.key for s in specs() if s.ledger is not None and (here / s.key / "robustness.py").is_file()}
    return dict(sorted(found.items()))


PAPERS = _papers()  # {1: "bs_clock", 2: "ssd_prefetch", ...}; a dict the tests may add a missing paper to


def module_name(paper) -> str:
    """The module holding a paper's SPACE: ``flashrepro.papers.<pkg>.robustness`` for a paper number, or the
    module path itself (a toy paper in the tests)."""
    if isinstance(paper, str) and not paper.isdigit():
        return paper
    number = int(paper)
    if number not in PAPERS:
        raise ValueError(f"no paper {number}; papers: {', '.join(f'{k} ({v})' for k, v in PAPERS.items())}")
    return f"flashrepro.papers.{PAPERS[number]}.robustness"


def load(paper):
    """A paper's robustness module, or None when it does not exist (yet)."""
    import importlib
    import importlib.util

    name = module_name(paper)
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:
        return None
    return importlib.import_module(name)


def headline_claims(number: int) -> frozenset:
    """The ``HEADLINE`` claims of paper ``number`` (empty when it has no robustness module)."""
    return _headline_claims(int(number))


def _headline_claims(number: int) -> frozenset:
    if number not in PAPERS:
        return frozenset()
    if number not in _HEADLINE_MEMO:
        _HEADLINE_MEMO[number] = _static_headline(number)
    return _HEADLINE_MEMO[number]


def _static_headline(number: int) -> frozenset:
    """``HEADLINE`` read from the module's source when it is a literal tuple (no import: the ledger tags rows
    without importing every paper package), else from the imported module."""
    import ast
    from pathlib import Path

    path = Path(__file__).resolve().parent / "papers" / PAPERS[number] / "robustness.py"
    if not path.is_file():
        return frozenset()
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) and node.value is not None else []
        if any(isinstance(t, ast.Name) and t.id == "HEADLINE" for t in targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                break
            if isinstance(value, (tuple, list)) and all(isinstance(c, str) for c in value):
                return frozenset(value)
            break
    mod = load(number)
    return frozenset(getattr(mod, "HEADLINE", ())) if mod is not None else frozenset()


_HEADLINE_MEMO: dict = {}
