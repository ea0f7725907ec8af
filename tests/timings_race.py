"""The worker of test_report's race on results/notebook_timings.csv: a module of its own, so that each spawned
process imports only what recording a time needs (unpickling a function defined in the test module imported that
module, and with it pytest and matplotlib: about a second of CPU in each of the four processes)."""

import os
from pathlib import Path


def record_many(args) -> None:
    """Record 15 notebooks' times, one after another, into ``results`` as worker number ``worker``."""
    from flashrepro import notebooks, paths

    worker, results = args
    paths.results = Path(results)
    os.environ["FLASHREPRO_TRACE_DIRS"] = ""
    for i in range(15):
        notebooks.record_time(f"{worker:02d}_nb{i:02d}", "paper", float(i))
