"""flashrepro._import_guard: nbformat's validation without the 2-3 s import of ``rfc3987_syntax``."""

from __future__ import annotations

import subprocess
import sys

import nbformat

from flashrepro import _import_guard, paths


def test_pytest_loads_the_guard_before_nbval_imports_nbformat():
    """pyproject.toml's ``-p flashrepro._import_guard`` runs before the plugins that import nbformat: had the
    guard come after, jsonschema would already hold the real module."""
    for name in _import_guard.SKIPPED:
        assert name in sys.modules and sys.modules[name] is None


def test_the_runner_imports_nbformat_without_it():
    code = ("import sys, flashrepro.notebooks, jsonschema; "
            "print([sys.modules.get(n, 'absent') for n in flashrepro._import_guard.SKIPPED])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str([None] * len(_import_guard.SKIPPED))


def test_notebooks_still_validate():
    """What nbformat checks is untouched: the notebooks validate, and a broken one is still refused."""
    nb = nbformat.read(paths.notebooks / "00_workloads.ipynb", as_version=4)
    nbformat.validate(nb)
    nb.cells[0]["cell_type"] = "no such type"
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError:
        return
    raise AssertionError("a cell of an unknown type validated")
