"""The theory checks' workloads: the models' own assumptions, no trace. Caches see independent references
(IRM) with Zipf popularity (:func:`flashrepro.theory.cache.irm_stream`); the FTL sees uniform random
single-page writes after an in-order fill (:func:`flashrepro.theory.ftl.run_steady`). :func:`table` lists
them at a scale."""

from __future__ import annotations

import polars as pl

from ...theory import cache as cache_theory
from ...theory import ftl as ftl_theory


def table(scale: str = "paper") -> pl.DataFrame:
    """One row per workload family at ``scale``: what it is and its sizes."""
    c, f = cache_theory.SCALES[scale], ftl_theory.SCALES[scale]
    return pl.DataFrame([
        {"workload": "IRM Zipf", "for": "lru, fifo, random, clock",
         "sizes": f"{c['n']:,} pages; alpha {', '.join(f'{a:g}' for a in c['alphas'])}; cache "
                  f"{', '.join(f'{x:.1%}' for x in c['fractions'])} of the pages; >= {c['measured']:,} measured "
                  f"requests in {c['batches']} batches"},
        {"workload": "uniform random page writes", "for": ", ".join(ftl_theory.RULES),
         "sizes": f"{f['physical_pages']:,} physical pages; alpha {', '.join(f'{a:g}' for a in f['alphas'])}; "
                  f"{', '.join(str(p) for p in f['pages'])} pages per line; {f['warmup']} logical spaces of warm-up, "
                  f"{f['batches']} batches of half a space"},
    ])
