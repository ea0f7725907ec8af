"""Stable table printing, deterministic figures, outputs kept apart by scale."""

import polars as pl
import pytest

from flashrepro import paths, plots, report


@pytest.fixture
def out_dirs(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "results", tmp_path / "results")
    monkeypatch.setattr(paths, "figures", tmp_path / "figures")
    return tmp_path


def test_show_rounds_floats(capsys):
    report.show(pl.DataFrame({"w": ["a"], "x": [0.123456789]}))
    out = capsys.readouterr().out
    assert "0.1235" in out and "0.123456" not in out and out.startswith("| w")


def test_figures_are_byte_identical(out_dirs):
    import matplotlib.pyplot as plt

    def draw():
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [3, 1, 2])
        files = plots.savefig(fig, "det")
        plt.close(fig)
        return [open(f, "rb").read() for f in files]

    first, second = draw(), draw()
    assert first == second and len(first) == 2


def test_outputs_for_scale_keeps_paper_results_apart(monkeypatch):
    monkeypatch.setattr(paths, "results", paths.results)
    monkeypatch.setattr(paths, "figures", paths.figures)
    paths.outputs_for("quick")
    assert paths.results == paths.root / "results" / "quick" and paths.figures == paths.root / "figures" / "quick"
    paths.outputs_for("paper")
    assert paths.results == paths.root / "results" and paths.figures == paths.root / "figures"
