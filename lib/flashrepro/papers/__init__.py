"""One module per notebook: experiment grids -> polars DataFrames, and the papers' own numbers."""
