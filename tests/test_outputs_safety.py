"""`make`'s outputs are safe from every other run (issue "Front door", item 4).

* a notebook run outside the runner (JupyterLab: here an IPython shell running the notebook's cells) whose
  parameters differ from the defaults its parameters cell declares writes to its variant folder, with a
  ``params.json``, and nothing into results/; at its defaults it writes where ``make`` does;
* a knob changed after the setup cell chose the folder (a cell re-run) makes the next write fail, writing nothing;
* the runner stages a run's outputs and moves them into place only when the notebook completes: a run that
  fails leaves the previous outputs as they were, no partial table, and keeps its executed notebook.

Every run here writes under a temporary folder of pytest's, ``tmp_path`` or the module's :func:`good_run`
(``paths.root`` there, ``FLASHREPRO_HOME`` for the kernels).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import nbformat
import pytest

import flashrepro
from flashrepro import notebooks, paths

LIB = Path(flashrepro.__file__).resolve().parents[1]


def _toy(path: Path, params: str, body: str) -> Path:
    """A notebook: a tagged parameters cell, then ``body`` (one cell per ``# ---``-separated part)."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(params)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell] + [nbformat.v4.new_code_cell(part.strip()) for part in body.split("# ---")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


PARAMS = 'scale = "paper"\nknob = 1\n'
BODY = """
import os

from flashrepro import paths, plots, report
import polars as pl
import matplotlib.pyplot as plt

paths.outputs_for(scale)
report.write_table(pl.DataFrame({"knob": [knob], "failing": [os.environ.get("TOY_FAIL", "no")]}), "90_toy_first")
# ---
if os.environ.get("TOY_FAIL"):  # not a parameter: the same run, failing
    raise RuntimeError("the toy notebook fails here")
# ---
report.write_table(pl.DataFrame({"knob": [knob], "n": [2]}), "90_toy_second")
fig, ax = plt.subplots()
ax.plot([1, 2], [knob, knob])
plots.savefig(fig, "90_toy_fig", formats=("png",))
"""


def _home(root: Path, monkeypatch) -> Path:
    """``paths`` rooted at ``root`` here and in the kernels the runner starts; notebooks/90_toy.ipynb."""
    for name in ("results", "figures", "build", "notebooks"):
        monkeypatch.setattr(paths, name, root / name)
    monkeypatch.setattr(paths, "root", root)
    monkeypatch.setattr(paths, "staging", None)
    monkeypatch.setattr(paths, "current", None)
    monkeypatch.setenv("FLASHREPRO_HOME", str(root))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(LIB), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for var in (paths.VARIANT_ENV, paths.STAGING_ENV, paths.NOTEBOOK_ENV):
        monkeypatch.delenv(var, raising=False)
    _toy(root / "notebooks" / "90_toy.ipynb", PARAMS, BODY)
    return root


@pytest.fixture
def home(tmp_path, monkeypatch):
    """``paths`` rooted at ``tmp_path`` here and in the kernels the runner starts; notebooks/90_toy.ipynb."""
    return _home(tmp_path, monkeypatch)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- interactive: an IPython shell running the cells as JupyterLab's kernel does ------------------------------------
@pytest.fixture
def shell(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    sh.user_ns["PAPER"] = types.SimpleNamespace(notebook="90_toy")  # what each paper notebook imports
    yield sh
    InteractiveShell.clear_instance()
    monkeypatch.setattr(paths, "_pending_snapshot", None)


def _cells(shell, params: str, body: str = BODY):
    """Run the parameters cell (as edited) and the notebook's cells; the results of the latter."""
    assert shell.run_cell(params).success
    return [shell.run_cell(part.strip()) for part in body.split("# ---")]


def test_interactive_run_at_the_defaults_writes_where_make_does(home, shell, capsys):
    assert all(r.success for r in _cells(shell, PARAMS))
    assert sorted(_files(home / "results")) == ["90_toy_first.csv", "90_toy_second.csv"]
    assert sorted(_files(home / "figures")) == ["90_toy_fig.png"]
    assert "every parameter at its default: tables go to results/, figures to figures/" in capsys.readouterr().out


def test_interactive_run_with_a_changed_knob_writes_to_its_variant_folder(home, shell, capsys):
    (home / "results").mkdir()
    (home / "results" / "90_toy_first.csv").write_text("make's\n")
    before = _files(home / "results")
    assert all(r.success for r in _cells(shell, PARAMS.replace("knob = 1", "knob = 7")))
    variant = home / "results" / "variants" / "90_toy" / "knob=7"
    assert {k: v for k, v in _files(home / "results").items() if not k.startswith("variants/")} == before
    assert sorted(_files(variant)) == ["90_toy_first.csv", "90_toy_second.csv", "params.json"]
    assert sorted(_files(home / "figures")) == ["variants/90_toy/knob=7/90_toy_fig.png",
                                                "variants/90_toy/knob=7/params.json"]
    params = json.loads((variant / "params.json").read_text())
    assert params == {"notebook": "90_toy", "scale": "paper", "changed": {"knob": 7},
                      "defaults": {"knob": 1}, "parameters": {"scale": "paper", "knob": 7}}
    out = capsys.readouterr().out
    assert "90_toy: knob=7 (default 1): a variant; its tables go to results/variants/90_toy/knob=7/" in out


def test_interactive_variant_at_another_scale(home, shell):
    assert all(r.success for r in _cells(shell, 'scale = "quick"\nknob = 7\n'))
    assert (home / "results" / "variants" / "90_toy" / "scale=quick,knob=7" / "90_toy_first.csv").is_file()
    assert not (home / "results" / "quick").exists()


def test_a_knob_changed_after_the_setup_cell_is_refused(home, shell):
    assert all(r.success for r in _cells(shell, PARAMS))
    (home / "results" / "90_toy_second.csv").unlink()
    assert shell.run_cell("knob = 7").success  # the parameters cell edited and re-run, the setup cell not
    r = shell.run_cell('report.write_table(pl.DataFrame({"knob": [knob]}), "90_toy_second")')
    assert isinstance(r.error_in_exec, paths.StaleParameters)
    assert "knob is now 7 (was 1)" in str(r.error_in_exec) and "Run All" in str(r.error_in_exec)
    assert not (home / "results" / "90_toy_second.csv").exists() and not (home / "results" / "variants").exists()
    # running it again from the setup cell puts it where knob=7 belongs
    assert all(r.success for r in _cells(shell, "knob = 7"))
    assert (home / "results" / "variants" / "90_toy" / "knob=7" / "90_toy_second.csv").is_file()


def test_a_parameter_the_setup_cell_itself_rewrites_is_no_change(home, shell):
    """Paper 4's setup cell turns ``grid_scale = ""`` into the scale it stands for, after outputs_for."""
    body = BODY.replace("paths.outputs_for(scale)\n", "paths.outputs_for(scale)\nknob = knob + 1\n")
    assert all(r.success for r in _cells(shell, PARAMS, body))
    assert sorted(_files(home / "results")) == ["90_toy_first.csv", "90_toy_second.csv"]


def test_a_parameter_changed_in_place_is_no_change(home, shell):
    """A list a library function sorts in place is no knob turned; only a name given another value is."""
    params = PARAMS + "sizes = [2, 1]\n"
    _toy(home / "notebooks" / "90_toy.ipynb", params, BODY)
    assert all(r.success for r in _cells(shell, params))
    assert shell.run_cell("sizes.sort()").success
    assert shell.run_cell('report.write_table(pl.DataFrame({"n": sizes}), "90_toy_second")').success


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def test_a_knob_saved_into_the_notebook_is_still_a_variant(home, shell):
    """JupyterLab saves the edited parameters cell (autosave, Ctrl-S): the committed one is the default too."""
    _git(home, "init", "-q")
    _git(home, "add", "notebooks/90_toy.ipynb")
    _git(home, "commit", "-q", "-m", "toy")
    _toy(home / "notebooks" / "90_toy.ipynb", PARAMS.replace("knob = 1", "knob = 7"), BODY)  # saved
    assert all(r.success for r in _cells(shell, PARAMS.replace("knob = 1", "knob = 7")))
    variant = home / "results" / "variants" / "90_toy" / "knob=7"
    assert json.loads((variant / "params.json").read_text())["defaults"] == {"knob": 1}
    assert sorted(p.name for p in (home / "results").iterdir()) == ["variants"]


def test_the_real_notebooks_are_recognised_by_the_figures_they_import(home, monkeypatch, capsys):
    """outputs_for in a notebook's namespace (here a dict, as IPython's user namespace is) finds the paper's
    defaults in notebooks/07_theory.ipynb, the file on disk and the committed one."""
    monkeypatch.setattr(paths, "notebooks", Path(notebooks.__file__).resolve().parents[2] / "notebooks")
    ns = {"PAPER": types.SimpleNamespace(notebook="07_theory"), "scale": "ci", "seed": 0}
    exec("from flashrepro import paths\nrun = paths.outputs_for(scale)", ns)
    assert ns["run"].variant is None and paths.results == home / "results" / "ci"
    ns["seed"] = 3
    exec("run = paths.outputs_for(scale)", ns)
    assert ns["run"].variant == "07_theory/scale=ci,seed=3"
    assert paths.results == home / "results" / "variants" / "07_theory" / "scale=ci,seed=3"
    assert json.loads((paths.results / "params.json").read_text())["parameters"] == {"scale": "ci", "seed": 3}
    assert "07_theory: seed=3 (default 0): a variant" in capsys.readouterr().out


def test_a_caller_that_is_no_known_notebook_keeps_writing_by_scale(home):
    assert paths.outputs_for("quick") is None  # this module's globals: no PAPER, no parameters
    assert paths.results == home / "results" / "quick" and paths.current is None


@pytest.mark.parametrize("changed,name", [
    ({"seed": 1}, "nb/seed=1"),
    ({"front": "none", "flag": False, "x": 0.5, "w": None, "n": -3}, "nb/front=none,flag=False,x=0.5,w=None,n=-3"),
    ({"front": "None"}, None),  # the string "None" is not None: hashed
    ({"workloads": ["a", "b"]}, None),
    ({"p": "x" * 100}, None),
])
def test_variant_folder_names(changed, name):
    got = paths.variant_name("nb", "paper", changed)
    if name is not None:
        assert got == name
    else:
        assert got.startswith("nb/") and len(got.rsplit("-", 1)[1]) == 8 and len(got) < 80
    assert paths.variant_name("nb", "quick", changed).startswith("nb/scale=quick,")
    assert paths.variant_name("nb", "paper", {}) is None
    assert len({paths.variant_name("nb", "paper", c) for c in ({"front": "None"}, {"front": None})}) == 2


# --- the runner: staged outputs, moved into place on success ----------------------------------------------------------
def _run(home: Path, **params):
    src = home / "notebooks" / "90_toy.ipynb"
    return notebooks.run(src, home / "build" / "paper" / "90_toy.ipynb", {"scale": "paper", **params}, progress=False)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    """A home where the runner has run the toy once (a notebook run is a kernel's start: seconds), with a SIGKILLed
    run's staging folder beside the outputs of an earlier run when it started; and what the run and its kernel
    (which inherits file descriptor 2) wrote to stderr."""
    root = tmp_path_factory.mktemp("good_run")
    with pytest.MonkeyPatch.context() as monkeypatch, tempfile.TemporaryFile("w+", errors="replace") as err:
        _home(root, monkeypatch)
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        stale = root / "build" / "staging" / f".90_toy.pid{dead.pid}.abcd1234" / "outputs" / "results" / "90_toy_x.csv"
        stale.parent.mkdir(parents=True)
        stale.write_text("half\n")
        saved = os.dup(2)
        os.dup2(err.fileno(), 2)
        try:
            with contextlib.redirect_stderr(err):
                _run(root)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        return types.SimpleNamespace(root=root, stderr=err.read())


@pytest.fixture
def previous(home, good_run):
    """The outputs of an earlier good run, in place (:func:`good_run`'s, copied: what it left of the SIGKILLed
    run's staging folder too)."""
    for name in ("results", "figures", "build"):
        shutil.copytree(good_run.root / name, home / name, symlinks=True)
    return _files(home / "results"), _files(home / "figures"), (home / "build" / "paper" / "90_toy.ipynb").read_bytes()


def test_runner_moves_outputs_into_place_when_the_notebook_completes(home, previous):
    tables, figures, executed = previous
    assert sorted(tables) == ["90_toy_first.csv", "90_toy_second.csv", "notebook_timings.csv"]
    assert sorted(figures) == ["90_toy_fig.png"]
    assert b"90_toy_second" in executed
    assert list((home / "build" / "staging").iterdir()) == []  # no staging folder left, nor the stale one
    assert not (home / "build" / "failed").exists()


def test_runner_failure_leaves_previous_outputs_and_keeps_the_executed_notebook(home, previous, capsys,
                                                                                 monkeypatch):
    tables, figures, executed = previous
    monkeypatch.setenv("TOY_FAIL", "1")
    with pytest.raises(Exception, match="the toy notebook fails here"):
        _run(home)
    assert _files(home / "results") == tables and _files(home / "figures") == figures  # the first table too
    assert (home / "build" / "paper" / "90_toy.ipynb").read_bytes() == executed
    kept = home / "build" / "failed" / "paper" / "90_toy.ipynb"
    nb = nbformat.read(kept, as_version=4)
    assert any(o.get("ename") == "RuntimeError" for c in nb.cells for o in c.get("outputs", []))
    assert list((home / "build" / "staging").iterdir()) == []
    err = capsys.readouterr().err
    assert f"its executed notebook, with the error, is {kept}" in err
    assert "results/ and figures/ are as they were" in err
    monkeypatch.delenv("TOY_FAIL")
    _run(home)  # the next good run removes it
    assert not kept.exists()


def test_runner_variant_that_fails_leaves_no_partial_table(home, capsys, monkeypatch):
    monkeypatch.setenv("TOY_FAIL", "1")
    with pytest.raises(Exception, match="the toy notebook fails here"):
        _run(home, knob=5)
    assert not (home / "results").exists() or _files(home / "results") == {}
    assert (home / "build" / "failed" / "variants" / "90_toy" / "knob=5" / "90_toy.ipynb").is_file()
    assert "results/variants/90_toy/knob=5/ and figures/variants/90_toy/knob=5/ are as they " \
           "were" in capsys.readouterr().err


def test_runner_variant_writes_params_json(home, capsys):
    _run(home, knob=5)
    variant = home / "results" / "variants" / "90_toy" / "knob=5"
    assert sorted(_files(variant)) == ["90_toy_first.csv", "90_toy_second.csv", "params.json"]
    assert json.loads((variant / "params.json").read_text())["parameters"] == {"scale": "paper", "knob": 5}
    assert (home / "figures" / "variants" / "90_toy" / "knob=5" / "params.json").is_file()
    assert (home / "build" / "variants" / "90_toy" / "knob=5" / "90_toy.ipynb").is_file()
    assert sorted(p.name for p in (home / "results").iterdir()) == ["variants"]  # no timing for a variant
    assert "(variant 90_toy/knob=5: results/variants/90_toy/knob=5/)" in capsys.readouterr().out


def test_runner_talks_to_its_kernel_over_local_sockets(good_run):
    """The kernel listens on IPC sockets, not on TCP ports of localhost, so it prints no warning about
    unencrypted TCP (once per notebook in ``make``'s output before): checked on :func:`good_run`'s run."""
    assert notebooks.ipc_kernel_manager()().transport == "ipc"
    err = good_run.stderr
    assert "without encryption" not in err and "TCP" not in err
