"""A map's four CSVs: their names and columns, how cells are written (byte-identical from run to run) and
read back. :mod:`.maps` writes them, :mod:`.figures` and the texts read them."""

from __future__ import annotations

import math

import numpy as np

LONG_COLUMNS = ("paper", "claim", "workload", "point", "our_value", "verdict")
POINT_COLUMNS = ("paper", "point", "axis", "value", "u")
HEADLINE_COLUMNS = ("paper", "claim", "workload", "kind", "expected", "paper_value", "unit", "source",
                    "default_verdict", "default_value", "map_default_value", "bias", "holds_share", "holds_ci_low",
                    "holds_ci_high", "partly_share", "not_comparable_share", "n_points", "n_nan", "n_failed",
                    "nearest_point", "nearest_value", "nearest_distance", "top_axis", "sensitivity_method",
                    "stand_in_verdicts", "map_scale", "claims_scale")
SENSITIVITY_COLUMNS = ("paper", "claim", "workload", "axis", "rbd_fast_s1", "delta", "spearman_rho", "spearman_p")
FILES = {"robustness.csv": LONG_COLUMNS, "robustness_points.csv": POINT_COLUMNS, "headline.csv": HEADLINE_COLUMNS,
         "robustness_sensitivity.csv": SENSITIVITY_COLUMNS}


def _fmt(x) -> str:
    """Every cell as a string: floats with 10 significant digits ('' for NaN or None), the rest as str."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        return "" if math.isnan(x) else format(x, ".10g")
    if isinstance(x, (np.floating,)):
        return _fmt(float(x))
    return str(x)


def _strings(df):
    import polars as pl

    return pl.DataFrame({c: [_fmt(x) or None for x in df[c].to_list()] for c in df.columns},
                        schema={c: pl.String for c in df.columns})


def _write_all(frames, out_dir, papers) -> None:
    """Write the four CSVs atomically; rows of papers not in this run (already in the files) are kept,
    sorted by paper, each paper's rows in input order: so maps of one paper at a time give the same files as
    one map of all. Maps that finish at once (``make -j`` runs each paper's after its notebook) take turns:
    each reads, merges and writes the files under an exclusive lock on ``out_dir`` itself."""
    import fcntl
    import os

    out_dir.mkdir(parents=True, exist_ok=True)
    lock = os.open(out_dir, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        _merge_all(frames, out_dir, papers)
    finally:
        os.close(lock)


def _merge_all(frames, out_dir, papers) -> None:
    import polars as pl

    from .._io import atomic_path

    ran = {str(p) for p in papers}
    for (name, cols), df in zip(FILES.items(), frames, strict=True):
        new = _strings(df)
        path = out_dir / name
        if path.exists():
            old = pl.read_csv(path, infer_schema_length=0)
            if tuple(old.columns) == cols:
                new = pl.concat([old.filter(~pl.col("paper").is_in(list(ran))), new])
        new = new.with_columns(pl.col("paper").cast(pl.Int64).alias("_p")).sort("_p", maintain_order=True).drop("_p")
        with atomic_path(path) as tmp:
            new.write_csv(tmp, null_value="")


def _map_dir(out_dir, map: str):
    """``out_dir`` as a Path, or the map's own folder: ``results/`` (reduced) or ``results/robustness_full/``."""
    from pathlib import Path

    from .. import paths

    if out_dir is not None:
        return Path(out_dir)
    return paths.results if map == "reduced" else paths.results / "robustness_full"


def read(out_dir=None, map: str = "reduced") -> dict:
    """The four CSVs of a map as polars frames (numbers parsed), keyed by file name."""
    import polars as pl

    out = {}
    for name in FILES:
        df = pl.read_csv(_map_dir(out_dir, map) / name, infer_schema_length=0)
        num = [c for c in df.columns if c in _NUMERIC]
        out[name] = df.with_columns([pl.col(c).cast(pl.Float64) for c in num])
    return out


_NUMERIC = {"our_value", "u", "paper_value", "default_value", "map_default_value", "bias", "holds_share",
            "holds_ci_low", "holds_ci_high", "partly_share", "not_comparable_share", "nearest_value",
            "nearest_distance", "rbd_fast_s1", "delta", "spearman_rho", "spearman_p"}
