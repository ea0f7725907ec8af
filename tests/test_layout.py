"""Every paper package has the one layout, and its FIGURES index names exactly what its notebook writes.

(The notebooks also check the index at run time against the files they wrote: ``FIGURES.check()``.)
"""

import ast
import importlib
import importlib.util
import json
import pkgutil

import pytest

import flashrepro.papers
from flashrepro import paths

PACKAGES = sorted(m.name for m in pkgutil.iter_modules(flashrepro.papers.__path__) if m.ispkg)
NO_CLAIMS = {"workloads", "matrix"}  # notebooks 00 and 06 are about no single paper


def test_every_notebook_has_a_package_and_back():
    notebooks = {p.stem for p in paths.notebooks.glob("*.ipynb")}
    declared = {importlib.import_module(f"flashrepro.papers.{p}").NOTEBOOK for p in PACKAGES}
    assert declared == notebooks


@pytest.mark.parametrize("package", PACKAGES)
def test_package_layout(package):
    mod = importlib.import_module(f"flashrepro.papers.{package}")
    names = {m.name for m in pkgutil.iter_modules(mod.__path__)}
    need = {"workloads", "experiments", "figures"} | ({"claims"} if package not in NO_CLAIMS else set())
    assert need <= names, f"{package} lacks {need - names}"
    assert len(mod.FIGURES) > 0
    for out in mod.FIGURES:
        assert callable(out.function) and out.function.__module__.startswith(mod.__name__ + "."), out
        assert out.file.startswith(mod.NOTEBOOK) and out.file.endswith((".csv", ".png", "_text.md")), out


def _written_names(source: str) -> set[str]:
    """File names a notebook writes: savefig(..., "name"), write_table(..., "name"), write_claims(..., "nb"),
    write_timings(..., "nb"), write_text(..., "nb")."""
    suffix = {"savefig": ".png", "write_table": ".csv", "write_claims": "_claims.csv",
              "write_timings": "_timings.csv", "write_text": "_text.md"}
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in suffix:
            last = node.args[-1]
            assert isinstance(last, ast.Constant), f"{node.func.attr} with a computed name: {ast.unparse(node)}"
            out.add(last.value + suffix[node.func.attr])
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_index_matches_the_notebook_source(package):
    mod = importlib.import_module(f"flashrepro.papers.{package}")
    nb = json.loads((paths.notebooks / f"{mod.NOTEBOOK}.ipynb").read_text())
    source = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert _written_names(source) == {o.file for o in mod.FIGURES}
    assert "FIGURES.check()" in source


@pytest.mark.parametrize("package", PACKAGES)
def test_every_relative_import_resolves(package):
    """Imports inside functions are not run by the ci-scale notebooks (the Fig. 2 replay only runs at
    quick and paper scale), so resolve every one here."""
    mod = importlib.import_module(f"flashrepro.papers.{package}")
    for info in pkgutil.iter_modules(mod.__path__):
        sub = importlib.import_module(f"{mod.__name__}.{info.name}")
        tree = ast.parse(open(sub.__file__).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), sub.__package__)
                importlib.import_module(base)
