"""Running the notebooks: papermill into build/, preparing nbval copies, refreshing checked outputs.

    python -m flashrepro.notebooks run notebooks/00_workloads.ipynb build/00_workloads.ipynb -p scale paper
    python -m flashrepro.notebooks nbval-prepare build/nbval        # copies with scale="ci" injected
    python -m flashrepro.notebooks nbval-refresh                    # store ci outputs of checked cells

Cells whose source contains ``# NBVAL_CHECK_OUTPUT`` are the ones nbval compares (lax mode). Their stored
outputs in notebooks/ are the ``scale="ci"`` results, written by ``nbval-refresh``, never by hand; all
other cells are stored without outputs.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import nbformat

from . import paths
from ._io import atomic_path

CHECK = "# NBVAL_CHECK_OUTPUT"


def _value(text: str):
    """A -p value: int, float, or string."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def run(src, dst, parameters: dict, progress: bool | None = None) -> float:
    """Execute ``src`` with papermill into ``dst`` (atomically); print and return the wall time."""
    import papermill

    src, dst = Path(src), Path(dst)
    t0 = time.perf_counter()
    with atomic_path(dst) as tmp:
        papermill.execute_notebook(str(src), str(tmp), parameters=parameters, cwd=str(paths.notebooks),
                                   progress_bar=sys.stderr.isatty() if progress is None else progress,
                                   kernel_name="python3")
    dt = time.perf_counter() - t0
    args = " ".join(f"{k}={v}" for k, v in parameters.items())
    print(f"{src.stem:<24s} {args:<20s} {dt:7.1f} s -> {dst}", flush=True)
    return dt


def _checked(cell) -> bool:
    return cell.cell_type == "code" and CHECK in cell.source


def nbval_prepare(outdir, scale: str = "ci") -> list[Path]:
    """Copies of every notebook with ``scale`` injected after the parameters cell, for nbval."""
    from papermill.iorw import load_notebook_node  # adds the empty tag lists papermill expects
    from papermill.parameterize import parameterize_notebook

    out = []
    for src in sorted(paths.notebooks.glob("*.ipynb")):
        nb = parameterize_notebook(load_notebook_node(str(src)), {"scale": scale})
        target = Path(outdir) / src.name
        with atomic_path(target) as tmp:
            nbformat.write(nb, tmp)
        out.append(target)
    return out


def nbval_refresh(scale: str = "ci") -> None:
    """Run every notebook at ``scale`` and store the outputs of its checked cells in the source; clear
    the outputs of all other cells."""
    for src in sorted(paths.notebooks.glob("*.ipynb")):
        executed = paths.build / "nbval-refresh" / src.name
        run(src, executed, {"scale": scale})
        done = {c.get("id"): c for c in nbformat.read(executed, as_version=4).cells}
        nb = nbformat.read(src, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            if _checked(cell):
                cell.outputs = copy.deepcopy(done[cell.id].outputs)
                cell.execution_count = done[cell.id].execution_count  # nbval skips cells that look unrun
            else:
                cell.outputs, cell.execution_count = [], None
        with atomic_path(src) as tmp:
            nbformat.write(nb, tmp)
        print(f"refreshed checked outputs of {src.name}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashrepro.notebooks")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("src")
    r.add_argument("dst")
    r.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    p = sub.add_parser("nbval-prepare")
    p.add_argument("outdir")
    p.add_argument("--scale", default="ci")
    f = sub.add_parser("nbval-refresh")
    f.add_argument("--scale", default="ci")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        run(a.src, a.dst, {k: _value(v) for k, v in a.p})
    elif a.cmd == "nbval-prepare":
        for t in nbval_prepare(a.outdir, a.scale):
            print(f"prepared {t}")
    else:
        nbval_refresh(a.scale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
