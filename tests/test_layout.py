"""Every paper package has the one layout, and its ``PAPER.outputs`` name exactly what its notebook writes.

(The notebooks also check the outputs at run time against the files they wrote: ``PAPER.check()``.)
"""

import ast
import importlib
import importlib.util
import json
import pkgutil

import matplotlib.figure
import polars as pl
import pytest

import flashrepro.papers
from flashrepro import paths, report
from flashrepro.papers.layout import Output
from flashrepro.papers.spec import Paper

PACKAGES = sorted(m.name for m in pkgutil.iter_modules(flashrepro.papers.__path__) if m.ispkg)
NO_CLAIMS = {"workloads", "matrix"}  # notebooks 00 and 06 are about no single paper


def test_every_notebook_has_a_package_and_back():
    notebooks = {p.stem for p in paths.notebooks.glob("*.ipynb")}
    declared = {importlib.import_module(f"flashrepro.papers.{p}").PAPER.notebook for p in PACKAGES}
    assert declared == notebooks


@pytest.mark.parametrize("package", PACKAGES)
def test_package_layout(package):
    mod = importlib.import_module(f"flashrepro.papers.{package}")
    names = {m.name for m in pkgutil.iter_modules(mod.__path__)}
    need = {"workloads", "experiments", "figures"} | ({"claims"} if package not in NO_CLAIMS else set())
    assert need <= names, f"{package} lacks {need - names}"
    assert len(mod.PAPER.outputs) > 0
    for out in mod.PAPER.outputs:
        assert callable(out.function) and out.function.__module__.startswith(mod.__name__ + "."), out
        assert out.file.startswith(mod.PAPER.notebook) and out.file.endswith((".csv", ".png", "_text.md")), out


def _table(n):
    return pl.DataFrame({"x": list(range(n))})


def _figure(df):
    fig = matplotlib.figure.Figure()
    fig.add_subplot().plot(df["x"])
    return fig


def _shout(text):
    return text.upper()


@pytest.fixture
def toy_outputs(tmp_path, monkeypatch):
    """A paper ``99_toy`` with a table, a figure, wall times and a text, writing under ``tmp_path``."""
    monkeypatch.setattr(paths, "results", tmp_path / "results")
    monkeypatch.setattr(paths, "figures", tmp_path / "figures")
    monkeypatch.setattr(paths, "staging", None)
    monkeypatch.setattr(paths, "current", None)
    monkeypatch.setattr(report, "WRITTEN", set())
    for d in (paths.results, paths.figures):
        d.mkdir()
    paper = Paper("tests.toy", notebook="99_toy", title="a toy", outputs=[
        Output("Table 1", _table, "99_toy_table.csv"), Output("Fig. 1", _figure, "99_toy_fig.png"),
        Output("wall times", _table, "99_toy_timings.csv", always=False),
        Output("text", _shout, "99_toy_text.md", always=False)])
    return paper, report


def test_an_output_is_made_and_saved_by_its_name(toy_outputs):
    paper, _ = toy_outputs
    df = paper.make("table.csv", 3)  # runs the declared function, writes and returns what it returned
    assert df.equals(_table(3)) and pl.read_csv(paths.results / "99_toy_table.csv").equals(df)
    paper.make("fig", df)  # the figure's name without its suffix: one output has it
    assert (paths.figures / "99_toy_fig.png").stat().st_size > 0 and (paths.figures / "99_toy_fig.pdf").exists()
    paper.save("timings.csv", _table(2))  # a table the cell assembled: written, not computed
    assert pl.read_csv(paths.results / "99_toy_timings.csv")["x"].to_list() == [0, 1]
    assert paper.make("text.md", "holds") == "HOLDS"
    assert (paths.results / "99_toy_text.md").read_text() == "HOLDS\n"
    assert paper.check()["written"].all()
    with pytest.raises(KeyError, match="0 outputs called 'table2.csv'.*outputs: table.csv, fig.png"):
        paper.save("table2.csv", df)


WRITERS = {"savefig", "write_table", "write_claims", "write_timings", "write_text"}  # report's and plots'


def _written_names(source: str, paper) -> set[str]:
    """The files a notebook writes: ``PAPER.make("name", ...)`` and ``PAPER.save("name", ...)``, each name
    resolved by ``paper.output`` (which fails on a name the paper does not declare). A direct call of a
    writer (``report.write_table(df, "...")``) fails the test: a notebook writes only through its PAPER."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        assert node.func.attr not in WRITERS, f"a write not through PAPER: {ast.unparse(node)}"
        if isinstance(node.func.value, ast.Name) and node.func.value.id == "PAPER" and node.func.attr in (
                "make", "save"):
            name = node.args[0]
            assert isinstance(name, ast.Constant), f"an output named by a computed value: {ast.unparse(node)}"
            out.add(paper.output(name.value).file)
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_index_matches_the_notebook_source(package):
    mod = importlib.import_module(f"flashrepro.papers.{package}")
    nb = json.loads(mod.PAPER.notebook_path.read_text())
    source = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert _written_names(source, mod.PAPER) == {o.file for o in mod.PAPER.outputs}
    assert "PAPER.check()" in source


def test_the_index_check_sees_a_write_outside_the_paper(toy_outputs):
    """The static check above fails on a direct writer call; this is its ground truth at run time."""
    paper, report = toy_outputs
    paper.make("table.csv", 3)
    with pytest.raises(AssertionError, match="declared but not written: \\['99_toy_fig.png'\\]"):
        paper.check()
    report.write_table(pl.DataFrame({"x": [1]}), "99_toy_extra")
    with pytest.raises(AssertionError, match="written but not declared: \\['99_toy_extra.csv'\\]"):
        paper.check()


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
