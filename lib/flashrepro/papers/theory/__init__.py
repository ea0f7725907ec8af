"""Theory: the package's kernels against the analytic models of their simplest cases, under the
models' own assumptions. notebooks/07_theory.ipynb calls these modules and plots:

* :mod:`.workloads`: the models' assumptions as workloads (no trace)
* :mod:`.experiments`: the cases (runs beside the models of :mod:`flashrepro.theory`)
* :mod:`.claims`: the ledger's theory rows (paper id 0)
* :mod:`.figures`: ours as points, the models as lines
* :mod:`.text`: the closing text, rendered from the tables
"""

from ..layout import Output
from ..spec import Paper
from . import claims, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="07_theory", ledger=0,
              title="Theory: the kernels against the analytic models (Che; Martina et al.; Desnoyers; Van Houdt)",
              outputs=[
    Output("the workloads: the models' assumptions", workloads.table, "07_theory_workloads.csv"),
    Output("LRU, FIFO, RANDOM, CLOCK against Che and the characteristic time", experiments.cache_cases,
           "07_theory_cache.csv"),
    Output("LRU, FIFO, RANDOM, CLOCK against Che and the characteristic time", figures.plot_cache,
           "07_theory_cache.png"),
    Output("the FTL's victim rules against Desnoyers, the random victim and Van Houdt", experiments.ftl_cases,
           "07_theory_ftl.csv"),
    Output("the FTL's victim rules against Desnoyers, the random victim and Van Houdt", figures.plot_ftl,
           "07_theory_ftl.png"),
    Output("claims (theory rows, paper 0)", claims.claims, "07_theory_claims.csv"),
    Output("what agrees with theory (generated)", text.findings, "07_theory_text.md"),
])

__all__ = ["PAPER", "claims", "experiments", "figures", "text", "workloads"]
