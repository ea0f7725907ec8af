"""Paper 4, 2R++ (a second chance for warm pages in 2R's cold region): the FTL's GC policies on fio's zipf
streams and on growing-database models. Every run feeds one stream to the paper's three policies (greedy,
2R, 2R++) and to FEMU's other victim policies (cost-benefit, fifo, random, d-choice) under one GC trigger
(FEMU's by default; GC at one free line as the alternative); FEMU's policies are extra columns of Tables 3
and 4 and extra lines of the running-WAF figures, and no claim is about them. The settings the paper does
not state (trigger, fallback victim, fio's starting state, spare space, seed) are
:class:`experiments.Setup` fields, and grids show what each changes. notebooks/04_2rpp.ipynb calls these
modules and plots:

* :mod:`.workloads`: Table 1's geometries at a scale, fio streams, the OLTP models and their Fig. 1-2 statistics
* :mod:`.experiments`: the runs (every policy fed one stream) and Tables 3-4
* :mod:`.claims`: the claims ledger rows
* :mod:`.figures`: the plots
* :mod:`.text`: the closing text, generated from the tables
"""

from ..layout import Doc, Output
from ..spec import Paper
from . import claims, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="04_2rpp", ledger=4,
              title="2R++: warm-page separation in OLTP-aware FTL GC (FEMU study)",
              outputs=[
    Output("Fig. 1", workloads.stats_tables, "04_2rpp_fig1_skew.csv"),
    Output("Fig. 2", workloads.stats_tables, "04_2rpp_fig2_frozen.csv"),
    Output("calibration (Figs. 1-2)", workloads.stats_tables, "04_2rpp_fit.csv",
           doc=Doc("fit-paper4", "The OLTP models against Figs. 1-2 ({name}):", {"workload": "workload",
                   "top20": "top-20% write share", "top20_paper": "paper (Fig. 1)", "frozen60": "frozen at 60%",
                   "frozen60_paper": "paper (Fig. 2)"}, about="paper 4's model fits")),
    Output("Figs. 1-2", figures.plot_skew_frozen, "04_2rpp_fig1_fig2.png"),
    Output("every run", experiments.summary, "04_2rpp_summary.csv"),
    Output("wall time per workload (this machine)", experiments.timings, "04_2rpp_timings.csv",
           doc=Doc("timings-paper4", "Seconds per main run on the machine that ran it ({name}):", digits=3,
                   about="paper 4's seconds per main run")),
    Output("Figs. 9-11", experiments.running_waf, "04_2rpp_running_waf.csv"),
    Output("Fig. 9A", figures.plot_running_waf, "04_2rpp_fig9a.png"),
    Output("Fig. 9B", figures.plot_running_waf, "04_2rpp_fig9b.png"),
    Output("Figs. 10-11", figures.plot_running_waf, "04_2rpp_fig10_fig11.png"),
    Output("Table 3", experiments.table3, "04_2rpp_table3.csv"),
    Output("Table 4", experiments.table4, "04_2rpp_table4.csv"),
    Output("Figs. 4/5/12/13", experiments.region_table, "04_2rpp_regions.csv"),
    Output("Figs. 4/5/12/13", figures.plot_regions, "04_2rpp_fig4_fig5_fig12_fig13.png"),
    Output("open choices: stop rule", experiments.stop_rule_table, "04_2rpp_stop_rule.csv"),
    Output("open choices: fio's generator", experiments.fio_modes_table, "04_2rpp_fio_modes.csv"),
    Output("open choices: fallback victims per run", experiments.fallback_counts, "04_2rpp_fallback_counts.csv",
           doc=Doc("fallback-share-paper4", "2R's and 2R++'s first victims that are fallbacks, per main run ({name}):",
                   {"workload": "workload", "trigger": "trigger", "fallback": "fallback rule", "policy": "policy",
                   "waf": "WAF", "gc_passes": "GC passes", "fallback_share": "fallback share"},
                   about="paper 4's fallback shares")),
    Output("open choices: fallback rule", experiments.grid_table, "04_2rpp_grid_fallback.csv"),
    Output("Tables 3-4 as a band over fallbacks", experiments.fallback_band, "04_2rpp_fallback_band.csv",
           doc=Doc("fallback-band-paper4",
                   "What each WAF spans across the fallback rules, at the grid scale ({name}):",
                   {"workload": "workload", "2r_min": "2R min", "2r_max": "2R max", "2r++_min": "2R++ min",
                   "2r++_max": "2R++ max", "improvement_pct_min": "improvement % min",
                   "improvement_pct_max": "improvement % max"}, about="paper 4's fallback band")),
    Output("open choices: prefill x spare", experiments.grid_table, "04_2rpp_grid_prefill_spare.csv"),
    Output("open choices: greedy's copy destination", experiments.grid_table, "04_2rpp_grid_copy.csv"),
    Output("seeds 0-4", experiments.seed_spread, "04_2rpp_seeds.csv",
           doc=Doc("seeds-paper4", "Seeds 0-4 at the grid scale ({name}):", {"workload": "workload",
                   "quantity": "quantity", "seeds": "seeds", "mean": "mean", "min": "min", "max": "max"},
                   about="paper 4's seed spread")),
    Output("Fig. 11's early gap per seed", experiments.first_tenth_gaps, "04_2rpp_fig11_seeds.csv"),
    Output("grid scale against main scale", experiments.scale_check, "04_2rpp_scale_check.csv",
           doc=Doc("scale-check-paper4", "The grids' scale against the main runs on the default setting ({name}):",
                   {"workload": "workload", "policy": "policy", "waf_grid": "WAF (grid)", "waf_main": "WAF (main)",
                   "grid_scale": "grid scale", "main_scale": "main scale", "relative_difference": "difference",
                   "within": "within 2%"}, about="paper 4's grid scale against full scale")),
    Output("the open choices and their effect on Tables 3-4", experiments.ambiguity, "04_2rpp_ambiguity.csv"),
    Output("extension: the last-write placement oracle", experiments.oracle_table, "04_2rpp_oracle.csv"),
    Output("claims", claims.claims, "04_2rpp_claims.csv"),
    Output("what holds and why; why it does not reproduce", text.closing, "04_2rpp_text.md"),
])
NOTEBOOK = PAPER.notebook
FIGURES = PAPER.outputs

__all__ = ["FIGURES", "NOTEBOOK", "PAPER", "claims", "experiments", "figures", "text", "workloads"]
