"""How a table is printed for a reader: one Markdown rendering, the same on every machine.

The notebooks' checked cells (nbval), the claims tables and the reports print through :func:`show`, so a
printed number never depends on the terminal's width or polars' default formatting. It sits below both
:mod:`flashrepro.claims` and :mod:`flashrepro.report`, which use it (and neither imports the other back).
"""

from __future__ import annotations

import polars as pl


def show(df: pl.DataFrame, decimals: int = 4) -> None:
    """Print ``df`` as a Markdown table with floats rounded to ``decimals``, every row and column shown."""
    df = df.with_columns(pl.col(pl.Float64, pl.Float32).round(decimals))
    with pl.Config(tbl_formatting="ASCII_MARKDOWN", tbl_hide_column_data_types=True,
                   tbl_hide_dataframe_shape=True, tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000,
                   fmt_str_lengths=200, float_precision=decimals, thousands_separator=False):
        print(df)
