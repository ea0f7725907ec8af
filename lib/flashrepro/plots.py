"""Figure helpers: a fixed style and deterministic, atomic PNG + PDF output under figures/.

The backend is not forced here, so figures show inline in JupyterLab; batch runs (``make``, tests) set
``MPLBACKEND=Agg``."""

from __future__ import annotations

import matplotlib.pyplot as plt

from . import paths, report
from .tempfiles import atomic_path

STYLE = {"figure.dpi": 100, "savefig.dpi": 150, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
         "axes.spines.top": False, "axes.spines.right": False, "svg.hashsalt": "flashrepro"}
plt.rcParams.update(STYLE)


def savefig(fig, name: str, formats=("png", "pdf")) -> list[str]:
    """Save ``fig`` as ``figures/<name>.<fmt>`` for each format (``figures`` being the run's folder,
    :func:`paths.outputs_for`; under the runner through its staging folder); metadata carries no date, so the
    bytes depend only on the figure."""
    out = []
    for fmt in formats:
        target = paths.figures / f"{name}.{fmt}"
        meta = {"Software": None} if fmt == "png" else {"Creator": None, "Producer": None, "CreationDate": None}
        with atomic_path(paths.write_path(target)) as tmp:
            fig.savefig(tmp, format=fmt, metadata=meta, bbox_inches="tight")
        report.WRITTEN.add(target.name)
        out.append(str(target))
    return out
