"""Generated prose: numbers formatted one way everywhere, ledger rows looked up exactly, text written atomically."""

import math

import pytest

from flashrepro import claims as L
from flashrepro import paths, prose, report


def _ledger():
    return L.table([L.value(2, "Fig. 6: T1 gains up to 26%", "T1", 0.26, 0.054, L.APPROX, "fraction", same_sign=True),
                    L.direction(2, "Fig. 6: 8 KiB never loses", "T1", "at least", 0.07, paper_value=0.0),
                    L.direction(2, "Fig. 6: 8 KiB never loses", "T2", "at least", -0.01, paper_value=0.0)])


def test_numbers_and_counts():
    assert prose.pct(0.054) == "+5.4%" and prose.pct(-0.0249, 2) == "-2.49%" and prose.pct(0.5, 0, False) == "50%"
    assert prose.pct(float("nan")) == "n/a" and prose.num(None) == "n/a"
    assert prose.num(12345.0) == "12,345" and prose.num(1.01583) == "1.02" and prose.num(math.pi, 4) == "3.142"
    assert prose.counts(_ledger()) == "3 rows: 1 hold, 0 partly, 2 do not hold, 0 not comparable"


def test_rows_are_found_exactly_or_not_at_all():
    df = _ledger()
    assert prose.verdict(df, "Fig. 6: T1 gains") == "does not hold"
    assert prose.row(df, "Fig. 6: 8 KiB", "T2")["our_value"] == -0.01
    with pytest.raises(KeyError, match="2 ledger rows"):
        prose.row(df, "Fig. 6: 8 KiB")
    with pytest.raises(KeyError, match="0 ledger rows"):
        prose.row(df, "Fig. 7")
    both = L.table([L.value(4, "Table 3: WAF of 2R", "zipf", 4.2, 4.1, L.PRINTED, "WAF"),
                    L.value(4, "Table 3: WAF of 2R++", "zipf", 3.9, 3.8, L.PRINTED, "WAF")])
    assert prose.row(both, "Table 3: WAF of 2R")["paper_value"] == 4.2  # the exact claim, not its prefix
    assert prose.row(both, "Table 3: WAF of 2R+")["paper_value"] == 3.9


def test_table_and_write_text(tmp_path, monkeypatch, capsys):
    t = prose.table([{"cause": "model", "run": "T1 at 32 MiB"}, {"cause": "choice", "run": "S = 0"}])
    assert t.splitlines() == ["| cause | run |", "|---|---|", "| model | T1 at 32 MiB |", "| choice | S = 0 |"]
    monkeypatch.setattr(paths, "results", tmp_path)
    assert report.write_text("# what holds\n" + t, "99_test") is None  # a notebook cell shows no machine's path
    assert (tmp_path / "99_test_text.md").read_text().endswith("|\n")
    assert "| model | T1 at 32 MiB |" in capsys.readouterr().out and "99_test_text.md" in report.WRITTEN
    report.WRITTEN.discard("99_test_text.md")
