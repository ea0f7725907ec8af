"""Paper 1, BS-CLOCK (Lee, Lee, Park 2016): Spatial Clock with bulk writes of sequential dirty pages, timed
on microSD card models. notebooks/01_bs_clock.ipynb calls these modules and plots:

* :mod:`.workloads`: Table 2's workloads as calibrated models, the real stand-ins, the paper's numbers
* :mod:`.experiments`: the runs (bulk sweep, policy comparison, buffer sweep, open choices, the range over
  equally good workload fits, the Figs. 4-5 example, the after-cache replays)
* :mod:`.costmodel`: what the affine card model allows (ceiling, implied bulk size, position penalty)
* :mod:`.claims`: the claims ledger rows (and the rows measured here, on wall times)
* :mod:`.figures`: the plots
* :mod:`.text`: the closing text, generated from the tables

Buffer 4 MB = 1024 pages of 4 KiB, maximum bulk 16 pages unless swept (paper Sec. 4).
"""

from ..layout import Doc, Output
from ..spec import Paper
from . import claims, costmodel, experiments, figures, text, workloads

PAPER = Paper(__name__, notebook="01_bs_clock", ledger=1, catalog="bsclock",
              title="BS-CLOCK: bulk-write buffer replacement for flash DB systems (Lee, Lee, Park, 2016)",
              outputs=[
    Output("Table 2", workloads.table2, "01_bs_clock_table2.csv"),
    Output("calibration (Tables 4-5, Spatial Clock)", workloads.calibration_table, "01_bs_clock_calibration.csv",
           doc=Doc("calibration-paper1",
                   "Each workload model's fitted parameters and Spatial Clock's numbers against Tables 4-5 ({name}):",
                   {"workload": "workload", "kind": "model", "share": "fitted share", "hot": "hot set",
                   "hot_unit": "unit", "sc_hit_ratio": "hit ratio", "sc_hit_ratio_target": "paper",
                   "sc_pages_written": "pages written", "sc_pages_written_target": "paper", "hit_error": "hit error",
                   "written_error": "written error"}, about="paper 1's workload fits")),
    Output("Fig. 2", experiments.fig2_model, "01_bs_clock_fig2.csv"),
    Output("Fig. 2", figures.plot_fig2, "01_bs_clock_fig2.png"),
    Output("Figs. 4-5", experiments.worked_example, "01_bs_clock_figs4_5.csv"),
    Output("Figs. 4-5", figures.plot_worked_example, "01_bs_clock_figs4_5.png"),
    Output("Figs. 6-7", experiments.bulk_sweep, "01_bs_clock_bulk_sweep.csv"),
    Output("Figs. 6-7", figures.plot_bulk_sweep, "01_bs_clock_fig6_fig7.png"),
    Output("Tables 4-5, Figs. 8-9", experiments.compare, "01_bs_clock_policies.csv"),
    Output("Figs. 8-9", figures.plot_policies, "01_bs_clock_fig8_fig9.png"),
    Output("Figs. 8-9: the ceiling of Fig. 2's fit", experiments.ceiling_table, "01_bs_clock_ceiling.csv",
           doc=Doc("ceiling-paper1", "The card models' ceilings ({name}; shares of the write time):", {"card": "card",
                   "request_ms": "a (ms per request)", "page_ms": "b (ms per page)", "ceiling": "ceiling",
                   "max_bulk_pages": "bulk pages", "ceiling_at_cap": "ceiling at that size"},
                   about="paper 1's card-model ceilings")),
    Output("Figs. 8-9: implied bulk and position penalty", experiments.implied_table, "01_bs_clock_implied.csv"),
    Output("Figs. 8-9: range over workload fits", experiments.fit_range, "01_bs_clock_fit_range.csv"),
    Output("Figs. 8-9: range over workload fits", figures.plot_fit_range, "01_bs_clock_fit_range.png"),
    Output("Figs. 8-9: write requests of the models", experiments.write_request_shapes,
           "01_bs_clock_write_shapes.csv"),
    Output("Figs. 8-9 replayed here (the paper's method)", experiments.replay_logs,
           "01_bs_clock_replay_timings.csv", always=False),
    Output("extension: buffer sizes", experiments.buffer_sweep, "01_bs_clock_buffer_sweep.csv"),
    Output("extension: buffer sizes", figures.plot_buffer_sweep, "01_bs_clock_buffer_sweep.png"),
    Output("open choices", experiments.ambiguities, "01_bs_clock_ambiguities.csv"),
    Output("open choices: reference bit", experiments.refbit_conventions, "01_bs_clock_refbit.csv"),
    Output("Table 5, Fig. 6: every reading of the hand", experiments.hand_readings, "01_bs_clock_hand_readings.csv"),
    Output("claims", claims.claims, "01_bs_clock_claims.csv"),
    Output("claims measured here (the paper's method; wall times)", claims.measured,
           "01_bs_clock_claims_measured.csv", always=False),
    Output("what holds and why (generated from the tables)", text.text, "01_bs_clock_text.md"),
    Output("Fig. 2 on this machine (wall times)", experiments.fig2_replay, "01_bs_clock_timings.csv", always=False),
])
NOTEBOOK = PAPER.notebook
FIGURES = PAPER.outputs

__all__ = ["FIGURES", "NOTEBOOK", "PAPER", "claims", "costmodel", "experiments", "figures", "text", "workloads"]
