"""Claims-table schema, stable table printing, deterministic figures."""

import polars as pl
import pytest

from flashrepro import paths, plots, report


@pytest.fixture
def out_dirs(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "results", tmp_path / "results")
    monkeypatch.setattr(paths, "figures", tmp_path / "figures")
    return tmp_path


def _claims(verdict="holds"):
    return pl.DataFrame({"claim": ["Fig 6: hit ratio drop at 4 MB"], "workload": ["web"], "paper_value": ["0.3%"],
                         "our_value": ["0.2%"], "tolerance": ["0.5 pt"], "verdict": [verdict]})


def test_write_claims(out_dirs):
    path = report.write_claims(_claims(), "01_bs_clock")
    assert pl.read_csv(path).columns == report.CLAIM_COLUMNS
    with pytest.raises(ValueError, match="unknown verdicts"):
        report.write_claims(_claims("mostly"), "01_bs_clock")
    with pytest.raises(ValueError, match="columns"):
        report.write_claims(_claims().drop("tolerance"), "01_bs_clock")


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
