"""Paper 4 claims: every number of the paper in ../shared/papers/INDEX.md against ours, through the ledger."""

from __future__ import annotations

import polars as pl

from ... import claims as L
from .experiments import OLTP_WRITES, _waf, region_table, table3, table4
from .workloads import paper_value

PAPER = 4


def claims(s: pl.DataFrame, fit: pl.DataFrame) -> pl.DataFrame:
    """Every paper-4 number of ../shared/papers/INDEX.md against ours (``s``: :func:`experiments.summary`;
    ``fit``: the Fig. 1-2 statistics of :func:`workloads.skew_and_frozen`)."""
    out = []
    t3 = table3(s)
    for r in t3.iter_rows(named=True):
        w = r["workload"]
        for p in ("2r", "2r++"):
            out.append(L.value(PAPER, f"Table 3: WAF of {p.upper()}", w, r[f"paper_{p}"], r[p], 0.15, "WAF",
                               source="Table 3"))
        out.append(L.value(PAPER, "Table 3: 2R++ improvement over 2R (Eq. 1)", w, r["paper_improvement_pct"],
                           r["improvement_pct"], 0.25, "percent", source="Table 3"))
        out.append(L.direction(PAPER, "Table 3: 2R++ has a lower WAF than 2R", w, "positive", r["improvement_pct"],
                               paper_value=r["paper_improvement_pct"], unit="percent (Eq. 1)", source="Table 3",
                               detail=f"WAF {r['2r']:.4f} vs {r['2r++']:.4f}"))
    out.append(L.direction(PAPER, "Table 3: the improvement grows with skew", "fio", "increasing",
                           t3["improvement_pct"].to_list(), x=[f"zipf {t}" for t in (0.5, 0.9, 1.1)],
                           source="Table 3"))
    g, a, b = (_waf(s, "fio-zipf0.9", p) for p in ("greedy", "2r", "2r++"))
    out.append(L.direction(PAPER, "Fig. 9A: greedy has the highest WAF at zipf 0.9", "fio-zipf0.9", "positive",
                           g - max(a, b), unit="WAF difference", source="Fig. 9A",
                           detail=f"greedy {g:.4f}, 2R {a:.4f}, 2R++ {b:.4f}"))
    t4 = table4(s)
    for r in t4.iter_rows(named=True):
        w = r["workload"]
        for p in ("greedy", "2r", "2r++"):
            out.append(L.value(PAPER, f"Table 4: WAF of {p.upper() if p != 'greedy' else p}", w, r[f"paper_{p}"],
                               r[p], 0.15, "WAF", source="Table 4"))
        out.append(L.value(PAPER, "Table 4: 2R++ improvement over 2R (Eq. 1)", w, r["paper_improvement_vs_2r_pct"],
                           r["improvement_vs_2r_pct"], 0.25, "percent", source="Table 4"))
        out.append(L.direction(PAPER, "Table 4: 2R++ has a lower WAF than 2R", w, "positive",
                               r["improvement_vs_2r_pct"], paper_value=r["paper_improvement_vs_2r_pct"],
                               unit="percent (Eq. 1)", source="Table 4",
                               detail=f"WAF {r['2r']:.4f} vs {r['2r++']:.4f}"))
    reg = region_table(s)
    for w in OLTP_WRITES:
        a = reg.filter(workload=w, policy="2r").row(0, named=True)
        b = reg.filter(workload=w, policy="2r++").row(0, named=True)
        for r in (a, b):
            out.append(L.value(PAPER, f"Figs. 4/12: share of cold pages returning to normal, {r['policy'].upper()}", w,
                               r["paper_returned_share"], r["returned_share"], 0.15, "fraction", source="Figs. 4, 12"))
        out.append(L.value(PAPER, "Fig. 5: C->C share of 2R copybacks", w, paper_value("c2c_share", w, "2r"),
                           a["cold_to_cold_share"], 0.15, "fraction", source="Fig. 5"))
        out.append(L.direction(PAPER, "Fig. 13: the cold-to-cold share is lower under 2R++", w, "negative",
                               b["cold_to_cold_share"] - a["cold_to_cold_share"], unit="fraction difference",
                               source="Fig. 13",
                               detail=f"2R {a['cold_to_cold_share']:.4f}, 2R++ {b['cold_to_cold_share']:.4f}"))
        paper_cut = 100 * (1 - b["paper_copybacks"] / a["paper_copybacks"])
        our_cut = 100 * (1 - b["copybacks"] / a["copybacks"])
        detail = f"copybacks {a['copybacks']} vs {b['copybacks']}"
        out.append(L.value(PAPER, "Sec. 5.4: copybacks saved by 2R++ over 2R", w, paper_cut, our_cut, 0.25, "percent",
                           source="Sec. 5.4", detail=detail))
        out.append(L.direction(PAPER, "Sec. 5.4: 2R++ copies fewer pages than 2R", w, "positive", our_cut,
                               paper_value=paper_cut, unit="percent", source="Sec. 5.4", detail=detail))
    for r in fit.filter(pl.col("top20_paper").is_not_null()).iter_rows(named=True):
        out.append(L.calibration(PAPER, "Fig. 1: share of writes on the 20% most-written pages", r["workload"],
                                 r["top20_paper"], r["top20"], "fraction", source="Fig. 1",
                                 note="the model is fitted to it"))
        out.append(L.calibration(PAPER, "Fig. 2: share of the space frozen at 60% progress", r["workload"],
                                 r["frozen60_paper"], r["frozen60"], "fraction", source="Fig. 2",
                                 note="the model is fitted to it"))
    return L.table(out)
