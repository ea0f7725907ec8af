"""The numbers notebook 03's closing section ("What holds, under which reading, and why") quotes, and the check
that they are the paper-scale run's (review 3, finding 4: the text had drifted from the numbers).

:data:`QUOTED` maps each quoted quantity to its format and the text the section prints. The notebook's check
cell recomputes every quantity with :func:`measured` and, at paper scale (seed 0, default knobs), fails when
one formats differently; ``tests/test_clock_hbm_paper.py`` checks that every quoted text is in the section.
At other scales or with other knobs the table is shown but not enforced (the text is about paper scale).
"""

from __future__ import annotations

import polars as pl

from ...traces import catalog
from . import experiments as E
from . import workloads as W

# quantity -> (format, the text quoted in the notebook's closing section at paper scale, seed 0)
QUOTED: dict[str, tuple[str, str]] = {
    'rows': ('{:d} rows', '75 rows'),
    'verdict holds': ('{:d} hold', '2 hold'),
    'verdict partly': ('{:d} partly', '8 partly'),
    'verdict does not hold': ('{:d} do not hold', '16 do not hold'),
    'verdict not comparable': ('{:d} are', '49 are'),
    'calibration rows': ('{:d} calibration rows', '30 calibration rows'),
    'not evidence (control)': ('{:d} rows the control', '16 rows the control'),
    'CLOCK-HBM swap_reduction on': ('{:+.1%} fewer swaps', '+0.1% fewer swaps'),
    'CLOCK-HBM swap_reduction off': ('{:+.1%} fewer (i.e. more)', '-0.4% fewer (i.e. more)'),
    'swap wins on': ('{} (workload', '21 of 33 (workload'),
    'hit ratio CLOCK-HBM': ('{:.3f} against', '0.295 against'),
    'hit ratio LRU': ("LRU's {:.3f}", "LRU's 0.293"),
    'hit ratio CLOCK': ("CLOCK's {:.3f}", "CLOCK's 0.303"),
    'hit ratio control: CLOCK-HBM, levels and NVM->DRAM off': ('control gets\n  {:.3f}', 'control gets\n  0.282'),
    'hit ratio CLOCK-DNV': ('CLOCK-DNV {:.3f}', 'CLOCK-DNV 0.284'),
    'ambiguity default swap_reduction_on': ('default gives {:+.1%}', 'default gives +0.2%'),
    'ambiguity swap_reduction_on min': ('between {:+.1%}', 'between -1.3%'),
    'ambiguity swap_reduction_on max': ('and {:+.1%}. The', 'and +0.3%. The'),
    'ambiguity ignores writes swap_reduction_on': ('review 3: {:+.1%})', 'review 3: -1.3%)'),
    'ambiguity clock referenced swap_reduction_on': ('reduction to {:+.1%} against', 'reduction to +1.0% against'),
    'ambiguity write_miss_read swap_reduction_on': ('miss\n  reduction ({:+.1%})', 'miss\n  reduction (+0.3%)'),
    'CLOCK-HBM writes_mean_of_groups on (a)': ('serves\n  {:+.1%} more writes', 'serves\n  +0.7% more writes'),
    'CLOCK-HBM reads_mean_of_groups on (a)': ('and {:+.1%} more reads', 'and +0.2% more reads'),
    'CLOCK-HBM writes_umass on (b)': ('writes {:+.1%} (UMass)', 'writes +58.1% (UMass)'),
    'CLOCK-HBM writes_fiu on (b)': ('\n  {:+.1%} (FIU)', '\n  +56.0% (FIU)'),
    'CLOCK-HBM writes_mean_of_groups on (b)': ('(FIU), {:+.1%} on average', '(FIU), +57.1% on average'),
    'CLOCK-HBM reads_umass on (b)': ('reads {:+.1%} /', 'reads +84.5% /'),
    'CLOCK-HBM reads_fiu on (b)': ('/ {:+.1%} /', '/ +80.3% /'),
    'CLOCK-HBM reads_mean_of_groups on (b)': ('/ {:+.1%},', '/ +82.4%,'),
    'control writes_mean_of_groups on (b)': ('gets writes {:+.1%} and', 'gets writes +52.6% and'),
    'control reads_mean_of_groups on (b)': ('and reads {:+.1%} on average', 'and reads +77.2% on average'),
    'sweep separate 1.2 swap_reduction_off': ('has {:.1%} fewer swaps and', 'has 43.9% fewer swaps and'),
    'sweep separate 1.2 reads_a_off': ('{:+.0%} read hits', '+976% read hits'),
    'sweep separate 1.2 control_swap_reduction_off': ('control gets {:.1%} and', 'control gets 39.0% and'),
    'sweep separate 1.2 control_reads_a_off': ('and {:+.0%} there', 'and +953% there'),
    'sweep separate 1.2 lru_cached_swap_reduction_off': ('place {:.1%} and', 'place 38.7% and'),
    'sweep separate 1.2 lru_cached_reads_a_off': ('and {:+.0%}: at', 'and +952%: at'),
    'sweep separate 1.2 swap_reduction_on': ('point gives {:.1%}.', 'point gives 9.4%.'),
    'mayun2 swap_reduction off': ('{:.1%} fewer swaps than baselines', '53.7% fewer swaps than baselines'),
    'mayun2 swap_reduction on': ('and {:.1%} fewer than ones that do', 'and 18.0% fewer than ones that do'),
    'mayun2 swaps CLOCK-HBM': ('\n  {:,} swaps against', '\n  100,001 swaps against'),
    'mayun2 swaps LRU': ('against {:,} for LRU', 'against 102,378 for LRU'),
    'mayun2 swaps CLOCK-DNV': ('has {:,}. This', 'has 197,402. This'),
    'flash waf max': ('(WAF {:.3f} in every run)', '(WAF 1.000 in every run)'),
}


def _interp(interp: pl.DataFrame, policy: str, cr: str, rd: str, col: str) -> float:
    d = interp.filter((pl.col("policy") == policy) & (pl.col("baselines_cache_reads") == cr)
                      & (pl.col("operations") == rd))
    return float(d[col][0]) if d.height else None


def measured(claims: pl.DataFrame, runs: pl.DataFrame, amb: pl.DataFrame, sweep: pl.DataFrame,
             flash: pl.DataFrame | None = None) -> dict:
    """Every quantity of :data:`QUOTED`, from the notebook's tables (``runs`` with the real stand-ins, if any)."""
    real = runs.filter(pl.col("group") == "real")
    runs = runs.filter(pl.col("group") != "real")
    out: dict = {"rows": claims.height}
    v = claims["verdict"]
    for name in ("holds", "partly", "does not hold", "not comparable"):
        out[f"verdict {name}"] = int((v == name).sum())
    out["calibration rows"] = int((claims["kind"] == "calibration").sum())
    out["not evidence (control)"] = int(claims["note"].str.starts_with("not evidence").sum())
    interp = E.interpretation(runs)
    for pol in ("CLOCK-HBM", "control") if (runs["policy"] == E.CONTROL).any() else ("CLOCK-HBM",):
        for cr in ("on", "off"):
            out[f"{pol} swap_reduction {cr}"] = _interp(interp, pol, cr, "a", "swap_reduction")
            for rd in ("a", "b"):
                for c in ("writes_umass", "writes_fiu", "writes_mean_of_groups", "reads_umass", "reads_fiu",
                          "reads_mean_of_groups"):
                    out[f"{pol} {c} {cr} ({rd})"] = _interp(interp, pol, cr, rd, c)
    m = runs.filter(pl.col("group").is_in(E.GROUPS))
    for lab in ("LRU", "CLOCK", "CLOCK-HBM", "CLOCK-DNV", E.LABELS[(E.CONTROL, None)]):
        d = m.filter(pl.col("label") == lab)
        if d.height:
            out[f"hit ratio {lab}"] = float((d["hits"] / d["references"]).mean())
    pr = E.pairs(runs)
    d = pr.filter((pl.col("baselines_cache_reads") == "on") & pl.col("group").is_in(E.GROUPS)).drop_nulls(
        "swap_reduction").drop_nans("swap_reduction")
    out["swap wins on"] = f"{int((d['swap_reduction'] > 0).sum())} of {d.height}"
    hbm_rows = amb.filter(pl.col("choice").str.starts_with("CLOCK-HBM"))
    out["ambiguity swap_reduction_on min"] = float(hbm_rows["swap_reduction_on"].min())
    out["ambiguity swap_reduction_on max"] = float(hbm_rows["swap_reduction_on"].max())
    for label, key in (("nvm_second_chance=False", "ignores writes"), ("write_miss_read", "write_miss_read"),
                       ("insert pages referenced", "clock referenced")):
        r = amb.filter(pl.col("choice").str.contains(label, literal=True))
        if r.height:
            out[f"ambiguity {key} swap_reduction_on"] = float(r["swap_reduction_on"][0])
            out[f"ambiguity {key} swap_reduction_off"] = float(r["swap_reduction_off"][0])
    out["ambiguity default swap_reduction_on"] = float(amb["swap_reduction_on"][0])
    out["ambiguity default swap_reduction_off"] = float(amb["swap_reduction_off"][0])
    pt = sweep.filter((pl.col("hot_sets") == "separate") & (pl.col("alpha") == max(W.ALPHAS))
                      & (pl.col("footprint_pages") == W.FOOTPRINT_PAGES))
    for c in ("swap_reduction_off", "reads_a_off", "control_swap_reduction_off", "control_reads_a_off",
              "lru_cached_swap_reduction_off", "lru_cached_reads_a_off", "swap_reduction_on"):
        if pt.height and c in pt.columns:
            out[f"sweep separate {max(W.ALPHAS)} {c}"] = float(pt[c][0])
    mayun = real.filter(pl.col("workload").str.ends_with("mayun2"))
    for lab in ("LRU", "CLOCK", "CLOCK-DNV", "CLOCK-HBM"):
        d = mayun.filter(pl.col("label") == lab)
        if d.height:
            out[f"mayun2 swaps {lab}"] = int(d["swaps"][0])
    if real.height:
        st = E.standins(pl.concat([runs, real]))
        for cr in ("on", "off"):
            d = st.filter(pl.col("workload").str.ends_with("mayun2") & (pl.col("baselines_cache_reads") == cr))
            if d.height:
                out[f"mayun2 swap_reduction {cr}"] = float(d["swap_reduction"][0])
    if flash is not None and flash.height:
        out["flash waf max"] = float(flash["waf"].max())
    return out


def check(values: dict, quoted: dict | None = None) -> pl.DataFrame:
    """One row per quoted quantity: the text quoted, the measured value in the same format, and whether they
    agree."""
    quoted = QUOTED if quoted is None else quoted
    rows = []
    for key, (fmt, text) in quoted.items():
        got = values.get(key)
        shown = None if got is None or got != got else fmt.format(got)  # missing or NaN
        rows.append({"quantity": key, "quoted": text, "measured": shown, "agrees": shown == text})
    return pl.DataFrame(rows, schema={"quantity": pl.String, "quoted": pl.String, "measured": pl.String,
                                      "agrees": pl.Boolean})


NEEDS_TRACE = {"mayun2": "real/personal_pc/mayun2"}  # quoted quantities (by prefix) measured on a real trace


def enforce(table: pl.DataFrame, scale: str, default_knobs: bool) -> None:
    """At paper scale with the default knobs, every quoted number must agree with the run. A number measured on
    a real trace that is not present here (:data:`NEEDS_TRACE`; the package runs without the trace folder) is
    not checked, and a line says so."""
    if not (scale == "paper" and default_knobs):
        return
    absent = [prefix for prefix, name in NEEDS_TRACE.items() if not catalog.available(name)]
    if absent:
        skip = pl.any_horizontal([pl.col("quantity").str.starts_with(p) for p in absent])
        print(f"not checked: {table.filter(skip).height} quoted numbers from real traces not present here "
              f"({', '.join(NEEDS_TRACE[p] for p in absent)})")
        table = table.filter(~skip)
    if not table["agrees"].all():
        bad = table.filter(~pl.col("agrees"))
        raise AssertionError("the closing section quotes numbers this run does not give:\n" + str(bad))
