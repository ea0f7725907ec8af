"""Paper 3, CLOCK-HBM (Kim et al. 2019): a DRAM + NVM buffer inside an SSD, against LRU, CLOCK and CLOCK-DNV
on models of Table 4's UMass and FIU traces. notebooks/03_clock_hbm.ipynb calls these modules and plots:

* :mod:`.workloads`: Table 4 as calibrated models, the originals through the catalog, the real stand-ins
* :mod:`.experiments`: the runs, Figs. 4-6 under each reading, the open choices, the extensions
* :mod:`.claims`: the claims ledger rows
* :mod:`.figures`: the plots
* :mod:`.text`: the closing text and "Why it does not reproduce", generated from the tables

Buffer 1,638 + 6,553 pages of 4 KiB (Table 3's 6.4 MB + 25.6 MB in binary units); the single-pool
baselines hold the same 8,191 pages.
"""

from ..layout import Doc, Output
from ..spec import Paper
from . import claims, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="03_clock_hbm", ledger=3, catalog="clockhbm",
              title="CLOCK-HBM: hybrid DRAM+NVM buffer for SSDs (Kim et al., 2019)",
              outputs=[
    Output("Table 4", workloads.table4, "03_clock_hbm_table4.csv"),
    Output("calibration (Table 4)", workloads.calibration, "03_clock_hbm_calibration.csv"),
    Output("format tests (FIU prefix, MQSim WebSearch)", workloads.format_tests, "03_clock_hbm_format_tests.csv",
           always=False,
           doc=Doc("format-tests-paper3", "The real traces that only test the readers ({name}):", {"trace": "trace",
                   "requests": "requests", "read_share": "read share", "mean_kib": "mean KiB",
                   "page_references": "page references", "footprint_pages": "footprint pages",
                   "references_per_page": "references per page", "lru_hit_ratio_32MB": "LRU hit ratio, 32 MB"},
                   about="paper 3's reader-test traces")),
    Output("Figs. 4-6 (every run)", experiments.compare, "03_clock_hbm_runs.csv"),
    Output("Fig. 4", experiments.fig4, "03_clock_hbm_fig4.csv"),
    Output("Fig. 4", figures.plot_fig4, "03_clock_hbm_fig4.png"),
    Output("Figs. 5-6", experiments.fig56, "03_clock_hbm_fig5_fig6.csv"),
    Output("Fig. 5", figures.plot_ops, "03_clock_hbm_fig5.png"),
    Output("Fig. 6", figures.plot_ops, "03_clock_hbm_fig6.png"),
    Output("Figs. 4-6: CLOCK-HBM against each baseline", experiments.pairs, "03_clock_hbm_pairs.csv"),
    Output("Figs. 4-6 on the real stand-ins", experiments.standins, "03_clock_hbm_standins.csv", always=False),
    Output("interpretation (Sec. IV-V averages under each reading)", experiments.interpretation,
           "03_clock_hbm_interpretation.csv"),
    Output("extension: latency (Table 1) and write-backs against the SSD's host space", experiments.latency,
           "03_clock_hbm_latency.csv"),
    Output("extensions", figures.plot_extensions, "03_clock_hbm_extensions.png"),
    Output("open choices", experiments.ambiguities, "03_clock_hbm_ambiguities.csv"),
    Output("declared assumptions: footprint and skew", experiments.assumption_sweep, "03_clock_hbm_assumptions.csv"),
    Output("declared assumptions: footprint and skew", figures.plot_assumptions, "03_clock_hbm_assumptions.png"),
    Output("claims", claims.claims, "03_clock_hbm_claims.csv"),
    Output("what holds and why; why it does not reproduce", text.text, "03_clock_hbm_text.md"),
])
NOTEBOOK = PAPER.notebook
FIGURES = PAPER.outputs

__all__ = ["FIGURES", "NOTEBOOK", "PAPER", "claims", "experiments", "figures", "text", "workloads"]
