"""Paper 2, segment prefetching with fixed and adaptive cache culling for personal SSDs (Baek 2011).
notebooks/02_ssd_prefetch.ipynb calls these modules and plots:

* :mod:`.workloads`: PCMark05 T1-T4 as seeded models, the real personal-PC stand-ins, the paper's numbers
* :mod:`.experiments`: bandwidth through the segment policies on Fig. 4's read-time curves (Figs. 4, 6-8)
* :mod:`.claims`: the claims ledger rows (and the measured ones: Fig. 4 on this machine)
* :mod:`.figures`: the plots
* :mod:`.text`: the closing sections, rendered from the tables
"""

from ..layout import Output
from ..spec import Paper
from . import claims, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="02_ssd_prefetch", ledger=2, catalog="pcmark",
              title="Segment prefetching and adaptive cache culling for personal SSDs (Baek, 2011)",
              outputs=[
    Output("workloads (read shares)", workloads.table, "02_ssd_prefetch_workloads.csv"),
    Output("Fig. 4", experiments.fig4_model, "02_ssd_prefetch_fig4.csv"),
    Output("Fig. 4", figures.plot_fig4, "02_ssd_prefetch_fig4.png"),
    Output("Fig. 4 on this machine (wall times)", experiments.fig4_replay, "02_ssd_prefetch_timings.csv",
           always=False),
    Output("Fig. 4 on this machine beside the models", figures.plot_fig4, "02_ssd_prefetch_fig4_timings.png",
           always=False),
    Output("Fig. 4 on this machine: the measured ledger", claims.measured_claims,
           "02_ssd_prefetch_claims_measured.csv", always=False),
    Output("Fig. 6", experiments.fig6, "02_ssd_prefetch_fig6.csv"),
    Output("Fig. 6", experiments.baselines, "02_ssd_prefetch_fig6_improvement.csv"),
    Output("Fig. 6: the proposal's parts", experiments.improvements, "02_ssd_prefetch_fig6_parts.csv"),
    Output("Fig. 6", figures.plot_fig6, "02_ssd_prefetch_fig6.png"),
    Output("Fig. 7", experiments.fig7, "02_ssd_prefetch_fig7.csv"),
    Output("Fig. 7", experiments.improvement, "02_ssd_prefetch_fig7_improvement.csv"),
    Output("Fig. 7", figures.plot_fig7, "02_ssd_prefetch_fig7.png"),
    Output("Fig. 8 (and a 128 MiB sensitivity run)", experiments.fig8, "02_ssd_prefetch_fig8.csv"),
    Output("Fig. 8", experiments.fig8_ratios, "02_ssd_prefetch_fig8_ratios.csv"),
    Output("Fig. 8", figures.plot_fig8, "02_ssd_prefetch_fig8.png"),
    Output("Fig. 8: list overhead as counts", experiments.overhead, "02_ssd_prefetch_overhead.csv"),
    Output("adaptive culling: N1 over time", experiments.n1_trajectory, "02_ssd_prefetch_n1.csv"),
    Output("open choice: S", experiments.s_sweep, "02_ssd_prefetch_s_sweep.csv"),
    Output("adaptive culling and the S sweep", figures.plot_n1, "02_ssd_prefetch_n1.png"),
    Output("open choices", experiments.ambiguities, "02_ssd_prefetch_ambiguities.csv"),
    Output("claims", claims.claims, "02_ssd_prefetch_claims.csv"),
    Output("what holds (generated)", text.what_holds, "02_ssd_prefetch_text.md"),
    Output("why it does not reproduce (generated)", text.why_not, "02_ssd_prefetch_why_text.md"),
])

__all__ = ["PAPER", "claims", "experiments", "figures", "text", "workloads"]
