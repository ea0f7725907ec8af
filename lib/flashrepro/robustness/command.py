"""``flashrepro robustness`` and ``python -m flashrepro.robustness``."""

from __future__ import annotations

import math

from . import MAPS, PAPERS, load, module_name


# --- the command line ------------------------------------------------------------------------------------------
def add_arguments(ap) -> None:
    from ..cli import count_type
    from ..sweep import EXECUTORS

    ap.add_argument("--map", default="reduced", choices=MAPS, help="reduced (make; 32 points per paper) or full "
                    "(make robustness; 256 points per paper)")
    ap.add_argument("--paper", nargs="+", default=None, metavar="N",
                    help="paper numbers (default: every paper with a robustness module) or module paths")
    ap.add_argument("--notebook", default=None, metavar="NAME",
                    help="only the papers (of --paper, or all) whose notebook is NAME, e.g. 01_bs_clock; none is not "
                    "an error (make runs each notebook's map as soon as the notebook is done)")
    ap.add_argument("--points", type=count_type("--points"), default=None,
                    help="points per paper (default: 32 reduced, 256 full)")
    ap.add_argument("--seed", type=count_type("--seed", 0), default=0)
    ap.add_argument("--executor", default="local", choices=EXECUTORS)
    ap.add_argument("--workers", type=count_type("--workers"), default=None,
                    help="processes for 'process' and the Dask LocalCluster")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address, e.g. tcp://host:8786 (implies dask)")
    ap.add_argument("--out", default=None, help="folder of the CSVs (default: results/, or results/robustness_full/)")
    ap.add_argument("--figures", default=None, help="folder of the figures (default: figures/, or "
                    "figures/robustness_full/)")
    ap.add_argument("--no-figures", action="store_true", help="write the CSVs only")
    ap.add_argument("--ledger", default=None, metavar="DIR", help="read the default point at the claims' scale from "
                    "the papers' ledgers in DIR (make: results/, just written by its notebooks) instead of running it")
    ap.add_argument("--texts", default=None, metavar="DIR", help="add each paper's headline rows to its notebook's "
                    "generated text, DIR/<notebook>_text.md (make: results/)")
    ap.add_argument("--no-bias", action="store_true", help="do not run the default point at the claims' scale "
                    "(default_verdict is then the map scale's and bias is empty)")


def add_parser(sub) -> None:
    """The ``flashrepro robustness`` subcommand."""
    s = sub.add_parser("robustness", help="judge every headline claim across its paper's space (robustness maps)",
                       description="Sample each paper's declared space (seeded Latin hypercube), run every point, "
                       "and write robustness.csv, robustness_points.csv, headline.csv, robustness_sensitivity.csv "
                       "and one figure per paper figure or table.")
    add_arguments(s)


def _papers(given: list[str] | None) -> list:
    """``--paper`` values as paper numbers or module paths; a module path that is not there is an error (a
    paper number whose module is not written yet is skipped by :func:`.maps.run_map`, and says so)."""
    if not given:
        return list(PAPERS)
    out = []
    for p in given:
        try:
            if p.isdigit():
                module_name(int(p))  # a number that is no paper's
            elif load(p) is None:
                raise ValueError(f"no module {p} (give a paper number, {', '.join(map(str, PAPERS))}, or an "
                                 "importable module path)")
        except (ValueError, ImportError) as e:
            raise ValueError(f"--paper {p}: {e}") from None
        out.append(int(p) if p.isdigit() else p)
    return out


def main(a) -> int:
    """Run ``flashrepro robustness``; errors propagate to :func:`flashrepro.cli.run_command`, which prints
    them."""
    import sys

    from ..notebooks import cpu_seconds
    from .maps import run_map

    papers = _papers(a.paper)
    if a.notebook is not None:
        from .maps import _notebook_of

        papers = [p for p in papers if (mod := load(p)) is not None and _notebook_of(mod) == a.notebook]
        if not papers:
            print(f"flashrepro robustness: no paper's map belongs to notebook {a.notebook}", file=sys.stderr)
            return 0
    c0 = cpu_seconds()
    try:
        res = run_map(papers, a.map, n=a.points, seed=a.seed, executor=a.executor, workers=a.workers,
                      scheduler=a.scheduler, progress=None, out_dir=a.out, bias=not a.no_bias,
                      figures=not a.no_figures, figures_dir=a.figures, ledger=a.ledger,
                      log=lambda m: print(m, file=sys.stderr))
    except TypeError as e:  # a paper module that does not follow the robustness contract
        raise ValueError(str(e)) from None
    if a.out is None and not a.paper:  # the package's own maps: their wall time beside the notebooks'
        from ..notebooks import record_time

        record_time("robustness" if a.notebook is None else f"robustness/{a.notebook}", a.map, res.wall_s,
                    cpu_seconds() - c0)
    if a.texts:
        from .maps import add_to_texts

        for f in add_to_texts(papers, a.texts, res.out_dir,
                              res.map):
            print(f"added the headline rows to {f}", file=sys.stderr)
    for f in res.failures:
        print(f"flashrepro robustness: point failed: {f}", file=sys.stderr)
    for r in res.headline.iter_rows(named=True):
        share = "n/a" if not math.isfinite(r["holds_share"]) else f"{r['holds_share']:.0%}"
        print(f"paper {r['paper']}: {r['claim']} [{r['workload']}]: default {r['default_verdict'] or 'n/a'}, "
              f"holds on {share} of {r['n_points']} points, top axis {r['top_axis'] or 'n/a'}")
    for paper, sec in res.seconds.items():
        print(f"paper {paper}: {sec:.1f} s of point runs (summed over workers)")
    print(f"wrote {res.out_dir} ({res.map} map, {len(res.headline)} headline rows, {len(res.figures)} figures, "
          f"{res.wall_s:.1f} s; skipped: {', '.join(res.skipped) or 'none'})")
    return 1 if res.failures else 0


def _cli(argv=None) -> int:
    from ..cli import Parser, flags_of, run_command

    ap = Parser(prog="python -m flashrepro.robustness", description=main.__doc__)
    add_arguments(ap)
    return run_command(ap.prog, main, ap.parse_args(argv), flags_of(ap))
