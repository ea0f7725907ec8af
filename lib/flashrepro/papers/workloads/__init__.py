"""Notebook 00, the workloads: every catalog workload characterised (counts, read/write mix, footprint,
request sizes, LRU miss-ratio curve). No paper, so no claims.

* :mod:`.workloads`: which workloads, loaded at a scale
* :mod:`.experiments`: the statistics, as polars tables
* :mod:`.figures`: the plots
"""

from ..layout import Output
from ..spec import Paper
from . import experiments, figures, workloads

PAPER = Paper(__name__, notebook="00_workloads", ledger=None,
              title="Workloads: every catalog workload characterised (read/write mix, footprint, sizes, LRU curve)",
              outputs=[
    Output("workload summary", experiments.summary, "00_workloads_summary.csv"),
    Output("LRU hit ratio at fixed sizes", experiments.mrc, "00_workloads_lru_hit_ratio.csv"),
    Output("LRU miss-ratio curves", experiments.mrc, "00_workloads_lru_mrc.csv"),
    Output("LRU miss-ratio curves", figures.plot_mrc, "00_workloads_mrc.png"),
    Output("request sizes", experiments.size_histogram, "00_workloads_request_sizes.csv"),
    Output("request sizes", figures.plot_sizes, "00_workloads_request_sizes.png"),
])

__all__ = ["PAPER", "experiments", "figures", "workloads"]
