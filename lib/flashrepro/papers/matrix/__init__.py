"""Notebook 06, the cross-paper matrix: every registered cache policy from papers 1, 2, 3 and 5 on every
catalog workload present, at three buffer sizes, through the sweep runner (:mod:`flashrepro.sweep`). No
single paper makes these comparisons, so there are no claims; the notebook reports what it finds.

* :mod:`.workloads`: which workloads and policies, at which sizes
* :mod:`.experiments`: the sweep, the per-metric pivots and the table of winners
* :mod:`.figures`: one heat map per metric
* :mod:`.text`: the findings, rendered from the matrix
"""

from ..layout import Output
from ..spec import Paper
from . import experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="06_matrix", ledger=None,
              title="The cross-paper matrix: every registered cache policy on every catalog workload present",
              outputs=[
    Output("the matrix: one row per policy x workload x size", experiments.matrix, "06_matrix_runs.csv"),
    Output("which policy wins where", experiments.winners, "06_matrix_winners.csv"),
    Output("wins per policy", experiments.win_counts, "06_matrix_win_counts.csv"),
    Output("heat map: hit ratio", figures.plot_heat, "06_matrix_hit_ratio.png"),
    Output("heat map: device reads", figures.plot_heat, "06_matrix_device_reads.png"),
    Output("heat map: device writes", figures.plot_heat, "06_matrix_device_writes.png"),
    Output("heat map: device write requests", figures.plot_heat, "06_matrix_device_write_requests.png"),
    Output("heat map: modelled device time", figures.plot_heat, "06_matrix_device_time.png"),
    Output("findings (generated)", text.findings, "06_matrix_text.md"),
])

__all__ = ["PAPER", "experiments", "figures", "text", "workloads"]
