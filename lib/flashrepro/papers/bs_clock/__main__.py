"""``python -m flashrepro.papers.bs_clock``: refit the S-Clock workload models (writes data/paper)."""

import argparse
import json

from ... import paths
from ..._io import write_text_atomic
from ...traces.sclock import TABLE2
from .workloads import MODEL_FILE, calibrate


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers.bs_clock",
                                 description="calibrate the S-Clock workload models (writes data/paper)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    rows = [calibrate(w, a.seed) for w in TABLE2]
    for r in rows:
        print(json.dumps(r))
    write_text_atomic(paths.paper / MODEL_FILE, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
