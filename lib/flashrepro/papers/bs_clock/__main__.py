"""``python -m flashrepro.papers.bs_clock``: refit the S-Clock workload models (writes data/paper)."""

import argparse
import json

from ... import paths
from ..._io import write_text_atomic
from .workloads import FAMILY_FILE, MODEL_FILE, MODELS, calibrate, fit_family


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers.bs_clock",
                                 description="calibrate the S-Clock workload models (writes data/paper)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", action="store_true",
                    help="instead: every hot-set size with its best share, and which fits are equally good "
                         "(writes data/paper/bs_clock_fit_family.json; a few minutes)")
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                    help="refit only these models (the others' committed rows are kept)")
    a = ap.parse_args(argv)
    target = paths.paper / (FAMILY_FILE if a.family else MODEL_FILE)
    old = json.loads(target.read_text()) if target.exists() else []
    new = {}
    for m in a.models:
        new[m] = fit_family(m, a.seed) if a.family else [calibrate(m, a.seed)]
        for r in new[m]:
            print(json.dumps(r))
    rows = []
    for m in MODELS:  # in MODELS order, the refitted models' rows replacing their old ones
        rows += new[m] if m in new else [r for r in old if r.get("model") == m]
    write_text_atomic(target, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
