"""Notebook 07's library side: the ledger's theory rows follow the case tables by the ledger's one rule, and
the generated text counts what the tables say."""

import polars as pl
import pytest

from flashrepro.claims import table
from flashrepro.papers.theory import claims as CL
from flashrepro.papers.theory import text as T


def cache_case(case, ours, theory=0.5, tol=0.01, lower=None, upper=None, position=None):
    return {"case": case, "policy": case, "model": {"lru": "che"}.get(case, "ttl"), "alpha": 0.8,
            "catalogue_pages": 1000, "capacity_pages": 10, "cache_fraction": 0.01, "theory": theory, "ours": ours,
            "abs_err": None if theory is None else ours - theory,
            "rel_err": None if theory is None else ours / theory - 1,
            "sampling_tol": tol / 2, "model_tol": tol / 2, "tolerance": tol, "batches": 20,
            "within": True if theory is None else abs(ours - theory) <= tol, "lower": lower, "upper": upper,
            "position": position, "note": "n"}


def test_cache_rows_hold_exactly_within_their_tolerance():
    cases = pl.DataFrame([cache_case("lru", 0.509), cache_case("fifo", 0.511), cache_case("random", 0.491),
                          cache_case("clock", 0.45, None, lower=0.44, upper=0.46, position="between"),
                          cache_case("clock-unreferenced", 0.475, None, lower=0.44, upper=0.46, position="above lru")],
                         infer_schema_length=None)
    t = table(CL.cache_claims(cases))
    assert (t["paper"] == 0).all()
    got = dict(zip(t["claim"], t["verdict"], strict=True))
    assert got["LRU hit ratio = Che's approximation"] == "holds"
    assert got["FIFO hit ratio = the characteristic-time approximation"] == "does not hold"  # 0.011 > 0.01
    assert got["RANDOM hit ratio = the characteristic-time approximation"] == "holds"
    clock = t.filter(pl.col("claim").str.starts_with("CLOCK (a new"))
    assert clock.height == 2 and (clock["verdict"] == "holds").all()
    default = t.filter(pl.col("claim").str.starts_with("CLOCK (package"))
    assert default.height == 1 and default["verdict"][0] == "does not hold"  # 0.475 > 0.46 + 0.01
    md = T.findings(t, cases, None)
    assert "2 of 3" not in md and "1 of 1 cases within" in md and "0 of 1 cases" in md


@pytest.mark.parametrize("textbook,verdict", [(True, "holds"), (False, "not comparable")])
def test_ftl_rows(textbook, verdict):
    row = {"rule": "random-all", "d": None, "alpha": 1.1, "alpha_geometry": 1.1, "pages_per_line": 16, "lines": 100,
           "model": "1 / (1 - rho)", "theory": 11.0, "ours": 11.05, "error": 0.05, "rel_error": 0.05 / 11,
           "tol_finite": 0.05, "tol_sampling": 0.05, "tolerance": 0.1, "within": True, "batches": 16,
           "textbook": textbook}
    t = table(CL.ftl_claims(pl.DataFrame([row])))
    assert t["verdict"].to_list() == [verdict]
    assert t["paper_value"][0] == 11.0 and t["our_value"][0] == 11.05
