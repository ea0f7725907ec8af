"""``python -m flashrepro.papers.twor`` (``make fit4``): refit the OLTP write-stream models to Figs. 1-2."""

import argparse
import json

from ... import paths
from ..._io import write_text_atomic
from .workloads import MODEL_FILE, fit_models


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashrepro.papers.twor",
                                 description="Fit paper 4's OLTP write-stream models to Figs. 1-2.")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = fit_models(args.seed)
    write_text_atomic(paths.paper / MODEL_FILE, json.dumps(rows, indent=1) + "\n")
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
