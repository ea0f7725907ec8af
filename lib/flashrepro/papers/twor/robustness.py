"""Paper 4's robustness space (issue 23): the settings paper 4 leaves open and the models decide, each with a
range and why, the headline claims (Tables 3-4 and the copyback counts of section 5.4), and ``point``: those
claims' ledger rows at one point of the space, through the paper's own claims code (:func:`.claims.claims`).

The space's ranges come from the paper's text (Tables 1-2, sections 4-5), the notebook's ambiguity table
(``results/04_2rpp_ambiguity.csv``: the open choices) and the models' own unfitted settings; never from the
claims. The default point is the claims' point (the notebook's parameters cell).
"""

from __future__ import annotations

import polars as pl

from ._space_stub import Axis, Space  # replaced by flashrepro.robustness on merge

PAPER = 4

SPACE = Space(paper=PAPER, axes=(
    Axis("trigger", 0, 1, "femu", "The paper ran its FTLs inside FEMU but never states the GC thresholds, and its "
         "Fig. 7 (GET_NEW_BLOCK) reads as GC at one free line: the ambiguity table's largest open choice.",
         scale="choice", choices=("femu", "reserve")),
    Axis("fallback", 0, 1, "least-valid", "The paper gives 2R and 2R++ no victim when no old line is under the "
         "40% threshold, and the ambiguity table shows such fallback victims are most first victims.",
         scale="choice", choices=("least-valid", "fifo", "global")),
    Axis("spare_factor", 0.8, 1.25, 1.0, "Over-provisioning as a factor on Table 1's geometries (12.5% for 8 GB, "
         "10% for 10 GB), which disagree with Table 2's stated 10%: the range spans Table 2's reading for fio "
         "(0.8) and the same ratio above.", scale="log"),
    Axis("prefilled", 0, 1, True, "Section 5.1 says fio runs 'with the space all in use' but not whether fio laid "
         "its file out before the measured writes (the ambiguity table's fio prefill).", scale="choice",
         choices=(True, False)),
    Axis("footprint", 0.8, 1.0, 1.0, "Table 2 puts an 8 GB fio file and a database growing to 10 GB on 8 GB and "
         "10 GB devices, which a file system's metadata and free space keep somewhat below the whole logical "
         "space: the share of the logical space the workload writes."),
    Axis("greedy_rule", 0, 1, "greedy", "The paper does not say which FEMU it modified nor how greedy breaks ties "
         "(the ambiguity table's 'greedy's ties' and 'FEMU's version of greedy'): least valid line with ties to "
         "the least recently changed, FEMU's victim heap, or FEMU's pre-2021-10-04 heap not reordered on page "
         "loss.", scale="choice", choices=("greedy", "greedy-heap", "greedy-heap-stale")),
    Axis("hot_share", 0.0125, 0.2, 0.05, "The OLTP life-cycle model's share of writes that update recently "
         "inserted pages is a setting the fit to Figs. 1-2 does not touch and the paper gives no statistic "
         "of: a factor of 4 either way around its 5%.", scale="log"),
    Axis("window", 0.005, 0.08, 0.02, "How long an inserted OLTP page stays hot (mean age, as a share of the final "
         "database) is likewise an unfitted model setting with no statistic in the paper: a factor of 4 either "
         "way around its 2%.", scale="log"),
))

# the claims a reader remembers: Tables 3-4 (the abstract's 57.8% / 13.8%), the improvement over greedy
# (sections 5.2-5.3) and the copyback counts (section 5.4); exact ledger claim strings
HEADLINE = (
    "Table 3: WAF of 2R",
    "Table 3: WAF of 2R++",
    "Table 3: 2R++ improvement over 2R (Eq. 1)",
    "Table 3: 2R++ has a lower WAF than 2R",
    "Table 3: the improvement grows with skew",
    "Table 4: WAF of greedy",
    "Table 4: WAF of 2R",
    "Table 4: WAF of 2R++",
    "Table 4: 2R++ improvement over 2R (Eq. 1)",
    "Table 4: 2R++ has a lower WAF than 2R",
    "Secs. 5.2-5.3: 2R++ improvement over greedy (Eq. 1)",
    "Sec. 5.4: copybacks of 2R over 2R++, minus 1",
    "Sec. 5.4: 2R++ copies fewer pages than 2R",
)

MAP_SCALE = {"reduced": "tiny", "full": "ci"}  # provisional until measured


def point(scale: str = "ci", **values) -> pl.DataFrame:
    """Ledger rows of every HEADLINE claim at the point ``values`` (missing axes take their default)."""
    raise NotImplementedError


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    """Ledger rows of the HEADLINE claims on each real stand-in trace present."""
    raise NotImplementedError
