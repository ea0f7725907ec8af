"""The theory rows of the claims ledger (paper id :data:`PAPER` = 0): each kernel's number beside the
analytic model's, under the model's own assumptions, judged by the ledger's one rule. The "paper value" is
the model's; the tolerance is the one the case table derives (the model's own accuracy at that size plus
the run's sampling error, see :mod:`flashrepro.theory.cache` and :mod:`flashrepro.theory.ftl`), relative to
the model's value as the ledger takes it."""

from __future__ import annotations

import polars as pl

from ... import claims as C

PAPER = 0
CACHE_SOURCES = {"che": "Che, Tung, Wang 2002 (Che's approximation)",
                 "ttl": "Martina, Garetto, Leonardi 2014 (characteristic time of FIFO / RANDOM)"}
CACHE_NAMES = {"lru": "LRU", "fifo": "FIFO", "random": "RANDOM"}


def _workload(r: dict) -> str:
    return (f"IRM Zipf {r['alpha']:g}, {r['catalogue_pages']:,} pages, cache {r['cache_fraction']:.1%} "
            f"({r['capacity_pages']:,} pages)")


def _tol_note(r: dict) -> str:
    return (f"tolerance = {r['sampling_tol']:.2g} (4 batch-means standard errors over {r['batches']} batches) "
            f"+ {r['model_tol']:.2g} (the model's O(1/C) accuracy at this size), absolute hit ratio")


def cache_claims(cases: pl.DataFrame) -> list[C.Claim]:
    """One row per LRU / FIFO / RANDOM case (hit ratio against its model), and CLOCK's bracket: the textbook
    CLOCK (a new page enters referenced) at least FIFO's and at most LRU's hit ratio (ours for both), and the
    package's default CLOCK (unreferenced insertion) at most LRU's."""
    out = []
    for r in cases.iter_rows(named=True):
        w = _workload(r)
        if r["case"] in CACHE_NAMES:
            name = CACHE_NAMES[r["case"]]
            model = "Che's approximation" if r["model"] == "che" else "the characteristic-time approximation"
            out.append(C.value(PAPER, f"{name} hit ratio = {model}", w, r["theory"], r["ours"],
                               r["tolerance"] / r["theory"], "hit ratio", source=CACHE_SOURCES[r["model"]],
                               detail=f"ours - model = {r['abs_err']:+.2e} (tolerance {r['tolerance']:.2e})",
                               note=_tol_note(r)))
        elif r["case"] in ("clock", "clock-unreferenced"):
            textbook = r["case"] == "clock"
            label = ("CLOCK (a new page enters referenced)" if textbook
                     else "CLOCK (package default: enters unreferenced)")
            note = f"tolerance {r['tolerance']:.2e} absolute (4 standard errors of the difference); {r['note']}"
            if textbook:
                out.append(C.direction(PAPER, f"{label} at least FIFO's hit ratio", w, "at least", r["ours"],
                                       paper_value=r["lower"], tolerance=r["tolerance"] / r["lower"],
                                       unit="hit ratio", source="CLOCK approximates LRU from above FIFO",
                                       detail=f"FIFO {r['lower']:.4f}, CLOCK {r['ours']:.4f}", note=note))
            out.append(C.direction(PAPER, f"{label} at most LRU's hit ratio", w, "at most", r["ours"],
                                   paper_value=r["upper"], tolerance=r["tolerance"] / r["upper"], unit="hit ratio",
                                   source="CLOCK approximates LRU from above FIFO",
                                   detail=f"CLOCK {r['ours']:.4f}, LRU {r['upper']:.4f} ({r['position']})", note=note))
    return out


FTL_NAMES = {"fifo": "FIFO victims", "random-all": "a uniformly random closed line",
             "random": "FEMU's random (a random line with an invalid page)", "greedy": "greedy",
             "d-choice": "d-choice"}


def ftl_claims(cases: pl.DataFrame) -> list[C.Claim]:
    """One row per FTL case: the WAF under uniform random single-page writes against the rule's model."""
    out = []
    for r in cases.iter_rows(named=True):
        rule = FTL_NAMES.get(r["rule"], r["rule"]) + (f" (d = {r['d']})" if r.get("d") is not None else "")
        w = (f"uniform random writes, alpha {r['alpha']:g} (device {r['alpha_geometry']:.3f}), "
             f"{r['pages_per_line']} pages per line, {r['lines']:,} lines")
        claim = f"WAF of {rule} = {r['model']}"
        if r.get("textbook") is False:
            out.append(C.not_comparable(PAPER, claim, w, "the kernel refuses a first victim with no invalid page, "
                                        "so this rule is not the textbook one here", paper_value=r["theory"],
                                        our_value=r["ours"], unit="WAF", source=r["model"]))
            continue
        out.append(C.value(PAPER, claim, w, r["theory"], r["ours"], r["tolerance"] / r["theory"], "WAF",
                           source=r["model"],
                           detail=f"ours - model = {r['error']:+.3g} (tolerance {r['tolerance']:.3g})",
                           note=(f"tolerance = {r['tol_finite']:.2g} (the model's change over the reserve's one line) "
                                 f"+ {r['tol_sampling']:.2g} (Student's t over {r['batches']} batch means, "
                                 f"family-wise 1%)")))
    return out


def claims(cache: pl.DataFrame, ftl: pl.DataFrame | None) -> list[C.Claim]:
    return cache_claims(cache) + ([] if ftl is None else ftl_claims(ftl))
