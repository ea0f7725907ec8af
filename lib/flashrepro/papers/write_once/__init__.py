"""Paper 5, write-only-once (Kim and Bahn 2016): a smartphone buffer cache that, at each flush, evicts the blocks
written once and never read since they entered, after writing them back. notebooks/05_write_once.ipynb calls:

* :mod:`.workloads`: Table 2's nine apps as calibrated models, the SQLite replays and the Mobibench log,
  the Figs. 3-4 timeline, Figs. 1-2's statistics
* :mod:`.experiments`: Fig. 5's curves, Fig. 6's equal-miss sizes, Figs. 7-8's time and energy (Table 1),
  the history and replay-setting sweeps, the open choices
* :mod:`.claims`: the claims ledger rows
* :mod:`.figures`: the plots
* :mod:`.text`: the closing text, generated from the tables (what holds and why; why it does not reproduce)

The policies are ``lru_flush`` and ``write_once`` (:mod:`flashrepro.cache.write_once`); blocks are 4 KiB and
dirty blocks are flushed every 5 s (Sec. II.2).
"""

from ..layout import Output
from ..spec import Paper
from . import claims, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="05_write_once", ledger=5, catalog="writeonce",
              title="Smartphone buffer cache exploiting write-only-once references (Kim, Bahn, 2016)",
              outputs=[
    Output("Table 2, Figs. 1-2 (statistics)", workloads.table2, "05_write_once_table2.csv"),
    Output("open choices (models): the public traces' shares and syncs", workloads.public_trace_stats,
           "05_write_once_trace_stats.csv"),
    Output("Figs. 1-2", figures.plot_fig1_fig2, "05_write_once_fig1_fig2.png"),
    Output("Figs. 3-4", experiments.timeline, "05_write_once_fig3_fig4.csv"),
    Output("Figs. 3-4", figures.plot_timeline, "05_write_once_fig3_fig4.png"),
    Output("Fig. 5", experiments.miss_curves, "05_write_once_fig5.csv"),
    Output("Fig. 5", figures.plot_fig5, "05_write_once_fig5.png"),
    Output("Fig. 6", experiments.equal_miss_sizes, "05_write_once_fig6.csv"),
    Output("Fig. 6", figures.plot_fig6, "05_write_once_fig6.png"),
    Output("Fig. 6 (real traces)", experiments.equal_miss_sizes, "05_write_once_fig6_real.csv", always=False),
    Output("Figs. 7-8", experiments.quarter_cache, "05_write_once_fig7_fig8.csv"),
    Output("Figs. 7-8", figures.plot_fig7_fig8, "05_write_once_fig7_fig8.png"),
    Output("extension: history size (real traces)", experiments.history_sweep, "05_write_once_history.csv",
           always=False),
    Output("extension: history size (real traces)", figures.plot_history, "05_write_once_history.png",
           always=False),
    Output("extension: SQLite replay settings", experiments.pragma_sweep, "05_write_once_pragmas.csv", always=False),
    Output("extension: SQLite replay settings", figures.plot_pragmas, "05_write_once_pragmas.png", always=False),
    Output("extension: Mobibench reader settings", experiments.mobibench_sweep, "05_write_once_mobibench.csv",
           always=False),
    Output("open choices: write misses", experiments.write_miss_reads, "05_write_once_write_misses.csv"),
    Output("open choices", experiments.ambiguities, "05_write_once_ambiguities.csv"),
    Output("open choices (models)", experiments.model_ambiguities, "05_write_once_model_inputs.csv"),
    Output("why it does not reproduce: the large-cache loss", experiments.why_loss, "05_write_once_why.csv"),
    Output("claims", claims.claims, "05_write_once_claims.csv"),
    Output("what holds and why (generated text)", text.closing, "05_write_once_text.md"),
])

__all__ = ["PAPER", "claims", "experiments", "figures", "text", "workloads"]
