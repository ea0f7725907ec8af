"""``python -m flashrepro.papers.bs_clock``: refit the S-Clock workload models (writes data/paper)."""

import argparse
import json

from ... import paths
from ..._io import write_text_atomic
from ...traces.sclock import TABLE2
from .workloads import FAMILY_FILE, MODEL_FILE, calibrate, fit_family


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers.bs_clock",
                                 description="calibrate the S-Clock workload models (writes data/paper)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", action="store_true",
                    help="instead: every hot-set size with its best share, and which fits are equally good "
                         "(writes data/paper/bs_clock_fit_family.json; a few minutes)")
    a = ap.parse_args(argv)
    if a.family:
        rows = [r for w in TABLE2 for r in fit_family(w, a.seed)]
        for r in rows:
            print(json.dumps(r))
        write_text_atomic(paths.paper / FAMILY_FILE, json.dumps(rows, indent=1) + "\n")
        return
    rows = [calibrate(w, a.seed) for w in TABLE2]
    for r in rows:
        print(json.dumps(r))
    write_text_atomic(paths.paper / MODEL_FILE, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
