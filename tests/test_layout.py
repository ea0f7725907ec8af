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
    """File names a notebook writes: savefig(..., "name"), write_table(..., "name"), write_claims(..., "nb")
    (with ``measured=True``: ``nb_claims_measured.csv``), write_timings(..., "nb"), write_text(..., "nb")."""
    suffix = {"savefig": ".png", "write_table": ".csv", "write_claims": "_claims.csv",
              "write_timings": "_timings.csv", "write_text": "_text.md"}
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in suffix:
            last = node.args[-1]
            assert isinstance(last, ast.Constant), f"{node.func.attr} with a computed name: {ast.unparse(node)}"
            measured = any(k.arg == "measured" and isinstance(k.value, ast.Constant) and k.value.value
                           for k in node.keywords)
            out.add(last.value + ("_claims_measured.csv" if node.func.attr == "write_claims" and measured
                                  else suffix[node.func.attr]))
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


def test_stored_outputs_name_no_machine_path():
    """A checked output that prints a path under this clone (e.g. a function returning where it wrote) would fail
    on any other clone, as CI's: the notebooks must not store one."""
    for nb in sorted(paths.notebooks.glob("*.ipynb")):
        assert str(paths.root) not in nb.read_text(), f"{nb.name} stores a path under {paths.root}"


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (at the top or inside a function), from the source alone."""
    from pathlib import Path

    root = Path(flashrepro.papers.__file__).resolve().parents[1]

    def name(p):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    mods = {name(p): p for p in root.rglob("*.py")}
    graph = {}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                deps |= {c for c in [target] + [f"{target}.{a.name}" for a in node.names] if c in mods}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name in mods}
        graph[m] = deps - {m}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycle_between_modules():
    """No module imports, even inside a function, a module that imports it back through any path; a package
    and its own submodules (an ``__init__`` re-exporting them) do not count."""
    def related(a, b):
        return a.startswith(b + ".") or b.startswith(a + ".")

    graph = {m: {d for d in deps if not related(m, d)} for m, deps in _import_graph().items()}
    assert graph["flashrepro.report"] and "flashrepro.claims" in graph["flashrepro.report"]  # the graph is read
    assert _cycles(graph) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]  # and cycles are seen


def test_paper_numbers_answer_one_row_or_say_why(tmp_path, monkeypatch):
    from flashrepro.papers.layout import PaperNumbers

    (tmp_path / "p.csv").write_text("key,workload,policy,value,source\nwaf,tpcc,2r,3.5,T3\nwaf,tpcc,,4.0,T3\n"
                                    "waf,fio,2r,2.0,T3\nwaf,fio,2r,2.5,T3\nn,,,7,S1\nall,all,,9,S2\n")
    monkeypatch.setattr(paths, "paper", tmp_path)
    v = PaperNumbers("p.csv", ("workload", "policy"))
    assert v("waf", "tpcc", "2r") == 3.5 and v("waf", workload="tpcc", policy="2r") == 3.5
    assert v("waf", "tpcc") == 4.0  # a column not asked for matches its empty cell only
    assert v("n") == 7.0
    with pytest.raises(KeyError, match=r"p.csv: 2 rows for key 'waf' with workload='fio', policy='2r'"):
        v("waf", "fio", "2r")
    with pytest.raises(KeyError, match="0 rows for key 'nope'"):
        v("nope", "tpcc")
    with pytest.raises(KeyError, match="no column"):
        v("waf", colour="red")
    with pytest.raises(TypeError, match="at most 2 values"):
        v("waf", "a", "b", "c")
    assert PaperNumbers("p.csv", workload="all")("all") == 9.0  # a default for a column left out
    assert v.table().height == 6
