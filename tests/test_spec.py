"""One spec per paper: every paper package declares ``PAPER`` (:mod:`flashrepro.papers.spec`), and the Makefile, the
claims ledger's headline tags, the robustness maps and the report find the papers through it, so a new paper is
one package and one notebook (the toy paper below is added from a test and shows up with no other edit)."""

import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest

import flashrepro
import flashrepro.papers
from flashrepro import claims as ledger
from flashrepro import headline, paths, site
from flashrepro.papers import Paper, Spec, all_papers, find, specs
from flashrepro.traces import catalog

PACKAGES = sorted(m.name for m in pkgutil.iter_modules(flashrepro.papers.__path__) if m.ispkg)


def test_every_package_and_every_notebook_has_a_paper():
    notebooks = {p.stem for p in paths.notebooks.glob("*.ipynb")}
    assert {s.key for s in specs()} == set(PACKAGES)
    assert {s.notebook for s in specs()} == notebooks
    for package in PACKAGES:
        mod = importlib.import_module(f"flashrepro.papers.{package}")
        assert isinstance(mod.PAPER, Paper) and mod.PAPER.key == package
        if hasattr(mod, "claims") and hasattr(mod.claims, "PAPER"):
            assert mod.claims.PAPER == mod.PAPER.ledger, "the ledger rows carry the spec's ledger number"


def test_the_source_reading_equals_the_imported_papers():
    """specs() reads the packages' source (no import); it must say what the imported PAPERs say."""
    imported = all_papers()
    assert [Spec(p.package, p.notebook, p.title, p.ledger, p.catalog) for p in imported] == list(specs())
    assert [p.number for p in imported] == sorted(p.number for p in imported)
    assert find(4).notebook == "04_2rpp" and find("twor").number == 4 and find("04").key == "twor"
    assert find("07_theory").ledger == 0
    with pytest.raises(KeyError, match="no paper 99"):
        find(99)


@pytest.mark.parametrize("package", PACKAGES)
def test_settings_are_the_notebooks_parameters_cell(package):
    from flashrepro.notebooks import declared_parameters

    spec = find(package)
    assert spec.settings == declared_parameters(spec.notebook_path)
    assert spec.settings["scale"] == "paper" and "seed" in spec.settings


def test_headline_papers_come_from_the_specs():
    here = Path(flashrepro.papers.__file__).parent
    want = {s.ledger: s.key for s in specs() if s.ledger is not None and (here / s.key / "robustness.py").is_file()}
    assert headline.PAPERS == want and 0 not in headline.PAPERS and set(want) >= {1, 2, 3, 4, 5}
    assert list(headline.PAPERS) == sorted(headline.PAPERS)


def test_an_output_by_its_name():
    paper = importlib.import_module("flashrepro.papers.bs_clock").PAPER
    assert paper.output("fig2.png").file == "01_bs_clock_fig2.png"
    assert paper.output("table2").stem == "01_bs_clock_table2"
    assert paper.output("01_bs_clock_policies.csv").function.__name__ == "compare"
    with pytest.raises(KeyError, match="2 outputs called 'fig2'"):
        paper.output("fig2")  # a table and a figure
    with pytest.raises(KeyError, match="0 outputs"):
        paper.output("fig99")


def test_make_fit_runs_a_papers_refit_by_its_number(capsys):
    from flashrepro.papers import main

    assert main(["fit", "4", "--help"]) == 0  # the refit's own --help: its package's __main__ ran
    assert "usage: python -m flashrepro.papers.twor" in capsys.readouterr().out
    assert main(["fit", "2"]) == 2
    assert "paper 2 (02_ssd_prefetch) has no refit" in capsys.readouterr().err
    assert main(["fit", "99"]) == 2 and "no paper 99" in capsys.readouterr().err


def test_a_spec_says_what_is_wrong():
    with pytest.raises(ValueError, match="two digits"):
        Spec("flashrepro.papers.x", "toy", "a toy")
    with pytest.raises(ValueError, match="papers sharing a number: 1: a, b"):
        flashrepro.papers._checked([Spec("p.a", "01_a", "A"), Spec("p.b", "01_b", "B")])
    with pytest.raises(ValueError, match="papers sharing a ledger: 3"):
        flashrepro.papers._checked([Spec("p.a", "01_a", "A", 3), Spec("p.b", "02_b", "B", 3)])


@pytest.mark.skipif(shutil.which("make") is None or not (paths.root / ".venv" / "bin" / "python").exists(),
                    reason="needs make and the repository's .venv (make install)")
def test_make_resolves_each_paper_number_to_its_notebook():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(flashrepro.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]))
    targets = [f"paper{s.number}" for s in specs()]
    # -B: every target out of date, as on a fresh clone (after `make`, -n alone would print no notebook run)
    out = subprocess.run(["make", "-n", "-B", *targets], cwd=paths.root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    runs = re.findall(r"-m flashrepro\.notebooks run notebooks/(\S+)\.ipynb build/paper/(\S+)\.ipynb -p scale paper",
                      out.stdout)
    assert runs == [(s.notebook, s.notebook) for s in specs()]
    bad = subprocess.run(["make", "-n", "paper99"], cwd=paths.root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert bad.returncode != 0 and "no paper 99" in bad.stderr


TOY = '''
"""A paper added by a test: one package (this file) and, in a real repository, one notebook."""

from ...traces import catalog, synthetic
from ..layout import Output
from ..spec import Paper


def table(n=3):
    return list(range(n))


def model(n, seed):
    return synthetic.uniform(100, n, seed=seed)


catalog.add(catalog.Workload("toy/uniform", "a toy model over 100 pages", model=model, papers=(98,)))

PAPER = Paper(__name__, notebook="98_toy", ledger=98, catalog="toy", title="Toy: a paper added by a test",
              outputs=[Output("Fig. 1", table, "98_toy_fig1.csv"), Output("Fig. 1", table, "98_toy_fig1.png")])
'''


@pytest.fixture
def toy_paper(tmp_path, monkeypatch):
    """A package ``flashrepro.papers.toy_paper`` in a folder of its own, added to the papers' package path."""
    root = tmp_path / "more_papers"
    (root / "toy_paper").mkdir(parents=True)
    (root / "toy_paper" / "__init__.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setattr(flashrepro.papers, "__path__", [*flashrepro.papers.__path__, str(root)])
    yield "flashrepro.papers.toy_paper"
    sys.modules.pop("flashrepro.papers.toy_paper", None)
    catalog.CATALOG.pop("toy/uniform", None)


def test_the_catalog_imports_a_paper_for_its_workloads(toy_paper):
    assert toy_paper not in sys.modules and "toy/uniform" not in catalog.CATALOG
    assert catalog.origin("toy/uniform") == "model" and toy_paper in sys.modules  # asked by name: imported
    assert len(catalog.get("toy/uniform", scale="ci", seed=1)) == catalog.SCALES["ci"]
    assert "toy/uniform" in catalog.names("toy/") and not catalog.known("toy/none")
    with pytest.raises(ValueError, match="unknown workload 'toy/none'"):
        catalog.get("toy/none")


def test_listing_the_catalog_imports_only_the_papers_with_workloads():
    """Asking for one paper's workload imports that paper alone; listing the catalog, those that add workloads."""
    code = ("import json, sys; from flashrepro.traces import catalog\n"
            "def papers(): return sorted(m.rpartition('.')[2] for m in sys.modules if m.count('.') == 2 and "
            f"m.startswith('flashrepro.papers.') and m.rpartition('.')[2] in {PACKAGES!r})\n"
            "a = catalog.known('pcmark/T4-virus-scan'); one = papers(); n = len(catalog.names())\n"
            "print(json.dumps([a, one, n, papers()]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    known, one, n, listed = json.loads(out.stdout)
    assert known and one == ["ssd_prefetch"]
    assert n > 60 and listed == sorted(s.key for s in specs() if s.catalog) == sorted(
        ["bs_clock", "clock_hbm", "ssd_prefetch", "write_once"])


def test_a_new_package_is_a_paper_everywhere(toy_paper, tmp_path):
    assert find(98).key == "toy_paper" and [s.number for s in specs()][-1] == 98
    paper = next(p for p in all_papers() if p.number == 98)
    assert paper.package == toy_paper and paper.output("fig1.csv")(2) == [0, 1]
    assert paper.outputs.files() == {"98_toy_fig1.csv", "98_toy_fig1.png", "98_toy_fig1.pdf"}
    # the report lists it: its title and notebook, its claims count, its rows in the filter, its figures
    results, figures = tmp_path / "results", tmp_path / "figures"
    results.mkdir()
    figures.mkdir()
    ledger.table([ledger.value(98, "toy claim", "-", 1.0, 1.0, ledger.PRINTED, "units"),
                  ledger.value(1, "hit ratio", "web", 0.5, 0.52, ledger.PRINTED, "ratio")]).write_csv(
        results / "claims.csv")
    pl.DataFrame({"x": [1]}).write_csv(results / "98_toy_fig1.csv")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1, 1))
    fig.savefig(figures / "98_toy_fig1.png")
    plt.close(fig)
    text = site.build(tmp_path / "site", results, figures, tmp_path / "no_notebooks").read_text()
    counts = re.search(r"<table id=papers>.*?</table>", text, re.S).group(0)
    assert "<td class=num>98</td><td>Toy: a paper added by a test</td><td>98_toy</td><td class=num>1</td>" in counts
    assert '<option value="98">paper 98</option>' in text
    assert "<h3>notebook 98</h3>" in text and "figures/98_toy_fig1.png" in text
    assert "<h1>flashrepro: six papers, reproduced</h1>" in text


def test_a_declaration_that_is_not_literal_is_read_by_importing_it(tmp_path, monkeypatch):
    root = tmp_path / "more_papers"
    for name, body in (("toy_computed", 'from ..spec import Paper\n\nPAPER = Paper(__name__, notebook="97_toy", '
                                        'ledger=None, title="Toy " + "computed")\n'),
                       ("toy_helpers", '"""Shared code of some papers: no PAPER, so no paper."""\n')):
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(body)
    monkeypatch.setattr(flashrepro.papers, "__path__", [*flashrepro.papers.__path__, str(root)])
    try:
        assert find(97).title == "Toy computed" and "flashrepro.papers.toy_computed" in sys.modules
        assert "toy_helpers" not in {s.key for s in specs()}
    finally:
        sys.modules.pop("flashrepro.papers.toy_computed", None)
