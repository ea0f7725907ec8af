"""The notebook's closing text, rendered from its tables at every scale (no number typed by hand)."""

from __future__ import annotations

import polars as pl

from ...prose import counts, num, pct


def _worst(d: pl.DataFrame, err: str) -> dict | None:
    if not d.height:
        return None
    return d.with_columns(share=(pl.col(err).abs() / pl.col("tolerance"))).sort("share").row(-1, named=True)


def findings(claims: pl.DataFrame, cache: pl.DataFrame, ftl: pl.DataFrame | None) -> str:
    """What agrees with theory, by how much, and what does not and why."""
    out = ["## What agrees with theory", "", f"Theory rows of the ledger: {counts(claims)}.", ""]
    models = cache.filter(pl.col("theory").is_not_null())
    for case, name in (("lru", "LRU against Che's approximation"),
                       ("fifo", "FIFO against the characteristic-time approximation"),
                       ("random", "RANDOM against the characteristic-time approximation")):
        d = models.filter(case=case)
        if not d.height:
            continue
        w = _worst(d, "abs_err")
        out.append(f"* **{name}**: {int(d['within'].sum())} of {d.height} cases within their tolerance; the largest "
                   f"error is {num(w['abs_err'])} in hit ratio ({pct(w['rel_err'], 2)} of the model's "
                   f"{num(w['theory'], 4)}, {num(w['share'], 2)} of its tolerance) at Zipf {w['alpha']:g} and a "
                   f"{pct(w['cache_fraction'], 1, False)} cache.")
    fr = models.filter(case="fifo").join(models.filter(case="random"), on=["alpha", "cache_fraction"], suffix="_r")
    if fr.height:
        gap = (fr["ours"] - fr["ours_r"]).abs().max()
        out.append(f"* FIFO and RANDOM have the same hit ratio under independent references (their stationary "
                   f"laws are equal): ours differ by at most {num(gap)}.")
    for case, name in (("clock", "The textbook CLOCK (a new page enters referenced)"),
                       ("clock-unreferenced", "The package's default CLOCK (a new page enters unreferenced)")):
        d = cache.filter(case=case)
        if not d.height:
            continue
        pos = d.group_by("position").len().sort("position")
        where = ", ".join(f"{r['position']} in {r['len']}" for r in pos.iter_rows(named=True))
        out.append(f"* **{name}** lies between FIFO and LRU in {int((d['position'] == 'between').sum())} of "
                   f"{d.height} cases ({where})"
                   + ("; entering unreferenced makes it a frequency filter, which beats LRU when references are "
                      "independent, so above LRU is what it should do." if case == "clock-unreferenced" else "."))
    if ftl is not None and ftl.height:
        out += ["", "## The FTL under uniform random writes", ""]
        for rule, d in ftl.group_by("rule", maintain_order=True):
            if "textbook" in d.columns and not d["textbook"].all():
                out.append(f"* **{rule[0]}** is not compared: the kernel refuses a first victim with no invalid "
                           "page, so the rule redraws and runs as FEMU's random in law (its rows are not comparable).")
                continue
            w = _worst(d, "error")
            out.append(f"* **{rule[0]}** against {d['model'][0]}: {int(d['within'].sum())} of {d.height} cases "
                       f"within their tolerance; the largest error is {pct(w['rel_error'], 2)} of the model's WAF "
                       f"{num(w['theory'])} ({num(w['share'], 2)} of its tolerance) at alpha {w['alpha']:g} with "
                       f"{w['pages_per_line']} pages per line.")
    return "\n".join(out) + "\n"
