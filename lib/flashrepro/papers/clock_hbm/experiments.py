"""Paper 3 experiments: the four policies on every workload (Figs. 4-6), the readings the paper leaves open,
and two labelled extensions (buffer latency and flash traffic from Table 1, and a 20 GB FTL).

**Runs.** Every workload runs under six policy variants: ``lru`` and ``clock`` over one 32 MB pool (an
assumption: the paper does not say how its baselines use the hybrid buffer), each with and without caching
reads (``cache_reads``), ``clock_dnv`` and ``clock_hbm`` over 6.4 MB DRAM + 25.6 MB NVM (Table 3). A *reading*
is a choice of the two open questions that decide Figs. 4-6: whether the baselines cache reads (``on``/``off``;
CLOCK-DNV caches reads in DRAM in both, as described) and what a buffer operation is:

* ``(a)``: a host page request served from the buffer, i.e. a hit in DRAM or NVM;
* ``(b)``: every DRAM and NVM access: host writes (hits and allocations), pages read from flash into the
  buffer, read hits, both sides of every migration copy, and dirty pages read out to be written to flash.

**Swaps** (``swap``, :data:`SWAPS`). The paper calls a swap the operation "that exchanges pages between the
hybrid buffer and the SSD" (Sec. I) and says that "pages allocated by a swap are allocated to DRAM differently
by read or write" (Fig. 3): a write miss is a swap too, so by default a swap is every miss (``"miss"``), a
page the buffer must bring in. The earlier reading, a miss read from flash (``"read_miss"``, the device reads:
a read miss, or a write miss with ``write_miss_read``), leaves the write-only workloads (WebSearch as printed,
home4) without swaps under every policy; ``"flash_io"`` counts every page moved either way, write-backs
included. Each is a row of the ambiguity table.

**Pricing** (``pricing``, :data:`PRICINGS`). Table 3 gives one buffer, 6.4 MB of DRAM and 25.6 MB of NVM, and
the paper counts every policy's operations "in the hybrid buffer" (Figs. 4-6): LRU and CLOCK run over the
same 8,191 frames, so by default (``"hybrid"``) each of their buffer operations is priced at the frames'
shares (20% DRAM, 80% NVM: a one-pool policy places a page in whichever frame its victim leaves, whatever its
tier). ``"dram"``, the earlier reading, prices their pool as DRAM. Only the labelled latency extension and the
DRAM/NVM split columns depend on it; a row of the ambiguity table shows by how much.

**Averages.** "X% more than the other policies on average": the mean over the group's workloads and the three
baselines of ``hbm / baseline - 1`` (a workload where the baseline's count is 0 drops out); the conclusion's
figure is the mean of the UMass and FIU averages, and the workload-weighted mean is shown beside it.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ...cache import simulate
from ...traces import Trace
from . import workloads as W

BASELINES = ("lru", "clock", "clock_dnv")
# The control (review 3, finding 1): CLOCK-HBM with both of its mechanisms off, Table 2's levels and the NVM ->
# DRAM move. What is left is the two-tier structure: a FIFO DRAM whose victims migrate to an NVM clock, which
# alone evicts to flash. A number the control reaches as well is the structure's, not CLOCK-HBM's rules'.
CONTROL = "hbm_control"
CONTROL_PARAMS = {"levels": False, "nvm_to_dram": False}
KERNELS = {CONTROL: "clock_hbm"}  # variant -> the registered policy it runs
SUBJECT = ("clock_hbm", "n/a")  # (policy, cache_reads) compared with the baselines in :func:`pairs`
# (policy, cache_reads) of every run; None: the policy has no switch (CLOCK-DNV and CLOCK-HBM cache reads)
PAPER_VARIANTS = (("lru", True), ("lru", False), ("clock", True), ("clock", False), ("clock_dnv", None),
                  ("clock_hbm", None))
VARIANTS = PAPER_VARIANTS + ((CONTROL, None),)
LABELS = {("lru", True): "LRU", ("lru", False): "LRU, reads not cached", ("clock", True): "CLOCK",
          ("clock", False): "CLOCK, reads not cached", ("clock_dnv", None): "CLOCK-DNV",
          ("clock_hbm", None): "CLOCK-HBM", (CONTROL, None): "control: CLOCK-HBM, levels and NVM->DRAM off"}
# (LRU/CLOCK cache reads, operation reading); reading (a), host hits, first: it is the paper's argument (Sec. IV
# looks in Figs. 5-6 for "the grounds on which CLOCK-HBM reduced swaps", and only hits can reduce swaps)
READINGS = [("on", "a"), ("off", "a"), ("on", "b"), ("off", "b")]
GROUPS = ("UMass", "FIU")


@dataclasses.dataclass(frozen=True)
class Latency:
    """Table 1, in nanoseconds per 4 KiB page operation."""

    dram_read: float
    dram_write: float
    nvm_read: float
    nvm_write: float
    flash_read: float
    flash_write: float
    flash_erase: float

    @classmethod
    def table1(cls) -> Latency:
        v = W.paper_value
        return cls(v("dram_read_ns"), v("dram_write_ns"), v("nvm_read_ns"), v("nvm_write_ns"),
                   v("flash_read_us") * 1e3, v("flash_write_ms") * 1e6, v("flash_erase_ms") * 1e6)


def select_variants(policies: list[str] | None = None) -> tuple:
    """The variants of :data:`VARIANTS` whose policy is in ``policies`` (None: all); LRU and CLOCK bring both
    of their read-caching variants."""
    if policies is None:
        return VARIANTS
    known = {p for p, _ in VARIANTS}
    if set(policies) - known:
        raise ValueError(f"unknown policies {sorted(set(policies) - known)}; known: {sorted(known)}")
    return tuple(v for v in VARIANTS if v[0] in policies)


def tiers(reading: str | dict = W.TIER_READING) -> dict[str, int]:
    """Table 3's tiers in pages: ``"binary"`` or ``"decimal"`` units, or ``{"dram_pages": D, "nvm_pages": N}``
    given directly (the single-pool baselines hold ``D + N``)."""
    if isinstance(reading, dict):
        return {"dram_pages": int(reading["dram_pages"]), "nvm_pages": int(reading["nvm_pages"])}
    return dict(W.TIERS[reading])


# --- one run --------------------------------------------------------------------------------------------------
SWAPS = {"miss": "every miss (a page brought in from the SSD, read or write)",
         "read_miss": "a miss read from flash (read misses; write misses too with write_miss_read)",
         "flash_io": "every page moved between the buffer and flash (reads and write-backs)"}
SWAP = "miss"  # Sec. I and Fig. 3's text: a write miss allocates "by a swap" too (see the module docstring)
PRICINGS = ("hybrid", "dram")
PRICING = "hybrid"  # Table 3's one buffer: the one-pool baselines' frames are 20% DRAM, 80% NVM
ONE_POOL = ("lru", "clock")
COUNTS = ["references", "write_references", "hits", "write_hits", "read_hits", "misses", "read_misses",
          "device_reads", "device_writes", "evictions"]
COLUMNS = COUNTS + ["swaps", "writes_a", "reads_a", "writes_b", "reads_b", "dram_reads", "dram_writes", "nvm_reads",
                    "nvm_writes", "migrations_dram_nvm", "migrations_nvm_dram", "buffer_ms", "flash_ms",
                    "latency_us_per_reference"]


def dram_share(tier_reading: str | dict = W.TIER_READING) -> float:
    """The DRAM share of the buffer's frames (Table 3: 20%)."""
    t = tiers(tier_reading)
    return t["dram_pages"] / max(t["dram_pages"] + t["nvm_pages"], 1)


def counts(c: dict, policy: str, cache_reads: bool | None) -> dict:
    """A run's counts from its counters: host hits (reading (a)), every buffer access (reading (b)), and for the
    two-tier policies the DRAM/NVM split (the one-pool baselines' split is :func:`costed`'s, by ``pricing``)."""
    out = {k: c[k] for k in COUNTS}
    if policy in ONE_POOL:
        writes_b = c["write_references"] + (c["read_misses"] if cache_reads else 0)
        reads_b = c["read_hits"] + c["device_writes"]
        dram_r = dram_w = nvm_r = nvm_w = mig_dn = mig_nd = 0
    else:
        wh_n = c["write_hits_nvm"]
        rh_d = c["hits_dram"] - (c["write_hits"] - wh_n)
        rh_n = c["hits_nvm"] - wh_n
        mig_dn, mig_nd = c["migrations_dram_nvm"], c["migrations_nvm_dram"]
        dram_w = c["writes_dram"] + c["fills_dram"] + mig_nd
        nvm_w = c["writes_nvm"] + c["fills_nvm"] + mig_dn
        dram_r = rh_d + mig_dn + c["writebacks_dram"]
        nvm_r = rh_n + mig_nd + c["writebacks_nvm"]
        writes_b, reads_b = dram_w + nvm_w, dram_r + nvm_r
    out.update(writes_a=c["write_hits"], reads_a=c["read_hits"], writes_b=writes_b, reads_b=reads_b,
               dram_reads=dram_r, dram_writes=dram_w, nvm_reads=nvm_r, nvm_writes=nvm_w,
               migrations_dram_nvm=mig_dn, migrations_nvm_dram=mig_nd)
    return out


def costed(runs: pl.DataFrame, swap: str = SWAP, pricing: str = PRICING, share: float | None = None) -> pl.DataFrame:
    """``runs`` (one row per run with :func:`counts`' columns and ``policy``) with the swaps of definition
    ``swap``, the one-pool baselines' DRAM/NVM split priced by ``pricing`` (``share``: DRAM's share of the
    frames, default Table 3's), and Table 1's time: buffer (reading (b)) and flash (reads and write-backs, no GC).
    Recomputes those columns from the counts, so a table can be re-read under another definition or pricing."""
    if swap not in SWAPS:
        raise ValueError(f"swap must be one of {list(SWAPS)}, got {swap!r}")
    if pricing not in PRICINGS:
        raise ValueError(f"pricing must be one of {PRICINGS}, got {pricing!r}")
    s = 1.0 if pricing == "dram" else (dram_share() if share is None else share)
    one = pl.col("policy").is_in(ONE_POOL)
    lat = Latency.table1()
    swaps = {"miss": pl.col("misses"), "read_miss": pl.col("device_reads"),
             "flash_io": pl.col("device_reads") + pl.col("device_writes")}[swap]
    d = runs.with_columns(
        swaps=swaps,
        dram_reads=pl.when(one).then(pl.col("reads_b") * s).otherwise(pl.col("dram_reads")).cast(pl.Float64),
        dram_writes=pl.when(one).then(pl.col("writes_b") * s).otherwise(pl.col("dram_writes")).cast(pl.Float64),
        nvm_reads=pl.when(one).then(pl.col("reads_b") * (1 - s)).otherwise(pl.col("nvm_reads")).cast(pl.Float64),
        nvm_writes=pl.when(one).then(pl.col("writes_b") * (1 - s)).otherwise(pl.col("nvm_writes")).cast(pl.Float64))
    d = d.with_columns(
        buffer_ms=(lat.dram_read * pl.col("dram_reads") + lat.dram_write * pl.col("dram_writes")
                   + lat.nvm_read * pl.col("nvm_reads") + lat.nvm_write * pl.col("nvm_writes")) / 1e6,
        flash_ms=(lat.flash_read * pl.col("device_reads") + lat.flash_write * pl.col("device_writes")) / 1e6)
    d = d.with_columns(latency_us_per_reference=(pl.col("buffer_ms") + pl.col("flash_ms")) * 1e3
                       / pl.max_horizontal(pl.col("references"), 1))
    labels = [c for c in d.columns if c not in COLUMNS]
    return d.select(*labels, *COLUMNS)


def metrics(c: dict, policy: str, cache_reads: bool | None, swap: str = SWAP, pricing: str = PRICING,
            share: float | None = None) -> dict:
    """Swaps and buffer operations under both readings, per tier, and Table 1's time, from a run's counters."""
    row = costed(pl.DataFrame([{"policy": policy, **counts(c, policy, cache_reads)}]), swap, pricing, share)
    return row.drop("policy").row(0, named=True)


def run(trace: Trace, policy: str, cache_reads: bool | None, tier_reading: str | dict = W.TIER_READING,
        log_io: bool = False, swap: str = SWAP, pricing: str = PRICING, **params):
    """One policy variant on one trace: ``(row, SimResult)``. The control (:data:`CONTROL`) runs ``clock_hbm``
    with ``params`` and :data:`CONTROL_PARAMS`."""
    t = tiers(tier_reading)
    if policy in ONE_POOL:
        res = simulate(trace, policy, sum(t.values()), cache_reads=bool(cache_reads), log_io=log_io, **params)
    else:
        if policy == CONTROL:
            params = {**params, **CONTROL_PARAMS}
        res = simulate(trace, KERNELS.get(policy, policy), log_io=log_io, **t, **params)
    row = {"workload": trace.name.removeprefix("clockhbm/"), "group": W.group(trace.name), "policy": policy,
           "cache_reads": "n/a" if cache_reads is None else ("on" if cache_reads else "off"),
           "label": LABELS[(policy, cache_reads)],
           **metrics(res.counters, policy, cache_reads, swap, pricing, dram_share(tier_reading))}
    return row, res


def run_metrics(res, trace: Trace) -> dict:
    """:func:`counts` of a run, as a sweep metric ``(SimResult, Trace) -> dict`` (the one-pool baselines are
    ``lru``/``clock`` runs whose ``cache_reads`` is in their parameters)."""
    return counts(res.counters, res.policy, getattr(res.params, "cache_reads", None))


def _case(trace: Trace, policy: str, cache_reads: bool | None, tier_reading, params: dict) -> tuple:
    """The sweep case ``(trace, kernel, parameters, capacity)`` of :func:`run`'s simulation."""
    t = tiers(tier_reading)
    if policy in ONE_POOL:
        return trace, policy, {"cache_reads": bool(cache_reads), **params}, sum(t.values())
    if policy == CONTROL:
        params = {**params, **CONTROL_PARAMS}
    return trace, KERNELS.get(policy, policy), {**t, **params}, sum(t.values())


def compare(traces: dict[str, Trace], variants=VARIANTS, tier_reading: str | dict = W.TIER_READING,
            dnv_params: dict | None = None, executor: str = "local", workers: int | None = None, *,
            swap: str = SWAP, pricing: str = PRICING, **hbm_params) -> pl.DataFrame:
    """Every policy variant on every workload: one row per run. ``hbm_params`` go to CLOCK-HBM and its control
    (whose two switches :data:`CONTROL_PARAMS` override), ``dnv_params`` to CLOCK-DNV; ``swap`` and ``pricing``
    to :func:`costed`. The runs go through the sweep runner (:func:`flashrepro.sweep.run_cases` on ``executor``:
    "local", "process" or "dask" with ``workers``); the rows are exactly :func:`run`'s."""
    from ... import sweep

    cases, labels = [], []
    for tr in traces.values():
        for policy, cr in variants:
            params = hbm_params if policy in ("clock_hbm", CONTROL) else (dnv_params or {}) if policy == "clock_dnv" \
                else {}
            cases.append(_case(tr, policy, cr, tier_reading, params))
            labels.append({"workload": tr.name.removeprefix("clockhbm/"), "group": W.group(tr.name), "policy": policy,
                           "cache_reads": "n/a" if cr is None else ("on" if cr else "off"),
                           "label": LABELS[(policy, cr)]})
    if not cases:
        return pl.DataFrame()
    res = sweep.run_cases(cases, metrics=(run_metrics,), log_io=False, executor=executor, workers=workers)
    if res.failures:
        raise RuntimeError(f"{len(res.failures)} runs failed, first: {res.failures[0]}\n{res.failures[0].traceback}")
    keys = list(counts(collections.defaultdict(int), "lru", True))
    raw = pl.DataFrame([{**lab, **m} for lab, m in zip(labels, res.table.select(keys).iter_rows(named=True),
                                                          strict=True)])
    return costed(raw, swap, pricing, dram_share(tier_reading))


def _compare_loop(traces: dict[str, Trace], variants=VARIANTS, tier_reading: str | dict = W.TIER_READING,
                  dnv_params: dict | None = None, *, swap: str = SWAP, pricing: str = PRICING,
                  **hbm_params) -> pl.DataFrame:
    """:func:`compare` one simulation at a time, outside the sweep runner (what the tests compare the sweep path
    with; the costing is the same :func:`costed` on the whole table)."""
    rows = []
    for tr in tqdm(traces.values(), desc="runs", leave=False):
        for policy, cr in variants:
            params = hbm_params if policy in ("clock_hbm", CONTROL) else (dnv_params or {}) if policy == "clock_dnv" \
                else {}
            row, res = run(tr, policy, cr, tier_reading, swap=swap, pricing=pricing, **params)
            rows.append({k: row[k] for k in ("workload", "group", "policy", "cache_reads", "label")}
                        | counts(res.counters, policy, cr))
    return costed(pl.DataFrame(rows), swap, pricing, dram_share(tier_reading))


# --- Figs. 4-6 --------------------------------------------------------------------------------------------------
def _pick(runs: pl.DataFrame, cache_reads: str) -> pl.DataFrame:
    """The four policies of one reading: the baselines with or without read caching, CLOCK-DNV and CLOCK-HBM."""
    return runs.filter(pl.col("cache_reads").is_in([cache_reads, "n/a"]))


def fig4(runs: pl.DataFrame) -> pl.DataFrame:
    """Fig. 4: swaps per workload and policy normalised to LRU of the same reading, under the run's definition
    (``swaps``) and under both readings the text leaves (every miss; a miss read from flash). A ratio is NaN
    where LRU has none (0/0: no reads under the second)."""
    out = []
    for cr in ("on", "off"):
        d = _pick(runs, cr)
        lru = d.filter(pl.col("policy") == "lru").select("workload", lru_swaps="swaps", lru_misses="misses",
                                                         lru_reads="device_reads")
        out.append(d.join(lru, on="workload").select(
            "workload", "group", "policy", "label", pl.lit(cr).alias("baselines_cache_reads"), "swaps", "misses",
            pl.col("device_reads").alias("flash_reads"), swaps_vs_lru=pl.col("swaps") / pl.col("lru_swaps"),
            misses_vs_lru=pl.col("misses") / pl.col("lru_misses"),
            flash_reads_vs_lru=pl.col("device_reads") / pl.col("lru_reads")))
    return pl.concat(out)


def no_lru_swaps(f4: pl.DataFrame, col: str = "flash_reads") -> list[str]:
    """The workloads where LRU has none of ``col`` (``"swaps"``, ``"misses"`` or ``"flash_reads"``) under
    either read-caching reading, so Fig. 4 has no bar for them (0/0)."""
    d = f4.filter((pl.col("policy") == "lru") & (pl.col(col) == 0))
    return d["workload"].unique(maintain_order=True).to_list()


def fig56(runs: pl.DataFrame) -> pl.DataFrame:
    """Figs. 5-6: buffer write and read operations per workload and policy, under both readings."""
    return runs.select("workload", "group", "policy", "cache_reads", "label", "writes_a", "writes_b", "reads_a",
                       "reads_b", "dram_writes", "nvm_writes", "dram_reads", "nvm_reads", "migrations_dram_nvm",
                       "migrations_nvm_dram")


def pairs(runs: pl.DataFrame, subject: tuple[str, str] = SUBJECT) -> pl.DataFrame:
    """CLOCK-HBM (or another ``subject``, a (policy, cache_reads) of the runs, e.g. the control ``(CONTROL,
    "n/a")`` or LRU caching reads ``("lru", "on")``) against each baseline, per workload and baselines' read
    caching: the relative changes of swaps (the run's definition; every miss; the misses read from flash), of
    buffer operations and of Table 1's time per reference (NaN where the baseline's count is 0). A subject is
    never its own baseline."""
    out = []
    cols = ["swaps", "misses", "device_reads", "writes_a", "writes_b", "reads_a", "reads_b",
            "latency_us_per_reference"]
    hbm = runs.filter((pl.col("policy") == subject[0]) & (pl.col("cache_reads") == subject[1])).select(
        "workload", "group", *[pl.col(c).alias(f"hbm_{c}") for c in cols])
    for cr in ("on", "off"):
        base = _pick(runs, cr).filter(pl.col("policy").is_in(BASELINES)
                                      & ~((pl.col("policy") == subject[0]) & (pl.col("cache_reads") == subject[1])))
        j = base.join(hbm, on=["workload", "group"])

        def rel(c):
            return pl.when(pl.col(c) > 0).then(pl.col(f"hbm_{c}") / pl.col(c) - 1).otherwise(None)

        out.append(j.select("workload", "group", pl.col("policy").alias("baseline"),
                            pl.lit(cr).alias("baselines_cache_reads"),
                            swap_reduction=-rel("swaps"), miss_reduction=-rel("misses"),
                            flash_read_reduction=-rel("device_reads"),
                            writes_a=rel("writes_a"), writes_b=rel("writes_b"), reads_a=rel("reads_a"),
                            reads_b=rel("reads_b"), latency_change=rel("latency_us_per_reference")))
    return pl.concat(out)


def _mean(d: pl.DataFrame, col: str) -> float:
    v = d[col].drop_nulls().drop_nans()
    return float(v.mean()) if len(v) else float("nan")


def averages(pr: pl.DataFrame) -> dict:
    """The paper's averages under each reading: ``{(cache_reads, reading): {...}}``."""
    out = {}
    for cr, rd in READINGS:
        d = pr.filter(pl.col("baselines_cache_reads") == cr)
        g = {k: d.filter(pl.col("group") == k) for k in ("UMass", "FIU", "UMass (corrected)")}
        both = d.filter(pl.col("group").is_in(GROUPS))
        corrected = pl.concat([g["UMass"].filter(~pl.col("workload").str.starts_with("websearch")),
                               g["UMass (corrected)"]])
        r = {c: _mean(both, c) for c in ("swap_reduction", "miss_reduction", "flash_read_reduction",
                                         "latency_change")}
        for op in ("writes", "reads"):
            col = f"{op}_{rd}"
            u, f = _mean(g["UMass"], col), _mean(g["FIU"], col)
            r[f"{op}_umass"], r[f"{op}_fiu"] = u, f
            r[f"{op}_mean_of_groups"] = (u + f) / 2
            r[f"{op}_workload_weighted"] = _mean(both, col)
            r[f"{op}_umass_corrected"] = _mean(corrected, col)
        out[(cr, rd)] = r
    return out


def standins(runs: pl.DataFrame, subject: tuple[str, str] = SUBJECT) -> pl.DataFrame:
    """CLOCK-HBM (or another ``subject``, as in :func:`pairs`) against the baselines on each real stand-in, per
    reading of the baselines' read caching: the mean over the three baselines of each relative change
    (``baseline="mean"``) and each baseline's own."""
    pr = pairs(runs.filter(pl.col("group") == "real"), subject)
    cols = ["swap_reduction", "miss_reduction", "flash_read_reduction", "writes_a", "writes_b", "reads_a", "reads_b",
            "latency_change"]
    mean = (pr.group_by("workload", "baselines_cache_reads", maintain_order=True)
            .agg(*[pl.col(c).drop_nans().mean() for c in cols]).with_columns(baseline=pl.lit("mean")))
    one = pr.select("workload", "baselines_cache_reads", "baseline", *cols)
    order = {b: i for i, b in enumerate(("mean", *BASELINES))}
    return (pl.concat([mean.select(one.columns), one])
            .with_columns(k=pl.col("baseline").replace_strict(order, return_dtype=pl.Int64))
            .sort("workload", "baselines_cache_reads", "k").drop("k"))


def interpretation(runs: pl.DataFrame) -> pl.DataFrame:
    """The interpretation table: LRU/CLOCK caching reads or not x operations read as (a) host hits or (b) every
    DRAM/NVM access, with the paper's numbers in the first row; for CLOCK-HBM and, when it ran, the control
    (:data:`CONTROL`, CLOCK-HBM's mechanisms off) in CLOCK-HBM's place: what the two-tier structure alone gives."""
    v = W.paper_value
    rows = [{"policy": "paper", "baselines_cache_reads": "paper", "operations": "paper",
             "swap_reduction": v("swap_reduction", "all"), "miss_reduction": None, "flash_read_reduction": None,
             "latency_change": None, "writes_umass": v("buffer_write_increase", "umass"),
             "writes_fiu": v("buffer_write_increase", "fiu"),
             "writes_mean_of_groups": v("buffer_write_increase", "all"), "writes_workload_weighted": None,
             "writes_umass_corrected": None, "reads_umass": v("buffer_read_increase", "umass"),
             "reads_fiu": v("buffer_read_increase", "fiu"), "reads_mean_of_groups": v("buffer_read_increase", "all"),
             "reads_workload_weighted": None, "reads_umass_corrected": None}]
    subjects = [("CLOCK-HBM", SUBJECT)]
    if (runs["policy"] == CONTROL).any():
        subjects.append(("control", (CONTROL, "n/a")))
    for name, subject in subjects:
        for (cr, rd), r in averages(pairs(runs, subject)).items():
            rows.append({"policy": name, "baselines_cache_reads": cr, "operations": rd, **r})
    return pl.DataFrame(rows)


# --- extensions: latency and flash ---------------------------------------------------------------------------
def latency(runs: pl.DataFrame) -> pl.DataFrame:
    """Extension (not in the paper's figures): the time Table 1 implies, summed over every operation with no
    overlap, buffer (reading (b)) and the flash reads and write-backs the buffer issues, and the write-backs as a
    share of the host space of Table 3's SSD (:func:`flash_geometry`).

    No GC time, WAF or erases: the write-backs of every run fill less than the host space the 20 GB SSD leaves
    (``host_space_written`` < 1, so an empty drive never reaches its GC trigger), and a drive preconditioned to
    make GC run (tried: the host space filled sequentially, then each run's write-backs) gives a WAF in the
    tens for every policy alike, the transient of a freshly filled drive's greedy GC rather than anything the
    buffer decides, at seconds per run: numbers that would measure our choice of preconditioning, so none are
    reported."""
    host = flash_geometry()[0].logical_pages
    return runs.select("workload", "group", "policy", "cache_reads", "label", "buffer_ms", "flash_ms",
                       "latency_us_per_reference", "device_reads", "device_writes",
                       host_space_written=pl.col("device_writes") / host)


def flash_geometry(physical_bytes: int = 20 * 2**30, pages_per_block: int = 64, free_fraction: float = 0.2):
    """Table 3's SSD: 20 GiB of flash in blocks of 64 pages, GC when free blocks fall under 20%. The paper gives
    no other over-provisioning, so the host sees what GC's reserve leaves: the blocks beyond the 20% kept free
    and the FTL's open frontiers (about 16 GiB). Returns ``(Geometry, GCTrigger)``; the trigger runs GC before a
    host write while free blocks are under 20%."""
    from ...ftl import GCTrigger, Geometry
    from ...ftl import _kernel as K

    n = physical_bytes // 4096 // pages_per_block
    below = int(np.ceil(free_fraction * n)) - 1  # GC runs while free blocks <= this, i.e. < 20%
    logical = (n - below - K.N_KINDS - 1) * pages_per_block
    trigger = GCTrigger("paper3", reserve_lines=0, forced_free=(below + 0.5) / n,
                        description="GC before a host write while free blocks < 20% (Table 3)")
    return Geometry(pages_per_block, n, logical), trigger


# --- the open choices ------------------------------------------------------------------------------------------
# Who is right on each row of the ambiguity table: the paper's text settles the point for the default (the row's
# reading is not the paper's: the clean-room review found one such default, CLOCK-DNV's clean victims, and the
# default now follows the text), or the text allows both the default and the row's reading.
TEXT = "the text (the default)"
BOTH = "both allowed"
# parameters that order the I/O log and change no count (tests/test_clock_hbm.py shows it on every rule): their
# rows are the default runs' numbers, not re-run (the runs here keep no log)
LOG_ONLY = frozenset({"incoming_first", "pad_order"})
LOG_NOTE = "log order only: no count depends on it, so the default run's numbers (not re-run)"
HBM_CHOICES = [
    ("default: rotation=page, levels 1/2 (read/write miss), promote 2, respectively, test before, no DRAM bit, "
     "a write miss's write counted, Table 2 before the victim test, migrated pages unreferenced, Algorithm 1's "
     "log order", {}, ""),
    ("rotation=sweep (all DRAM pages re-evaluated when the hand wraps)", {"rotation": "sweep"}, BOTH),
    ("read and write misses both start at level 1", {"read_level": 1, "write_level": 1}, BOTH),
    ("read miss level 2, write miss level 3", {"read_level": 2, "write_level": 3}, BOTH),
    ("pages moved up from NVM start at level 4", {"promote_level": 4}, BOTH),
    ("nvm_classes=swapped (level 1 eviction, level 2 migration candidate)", {"nvm_classes": "swapped"}, BOTH),
    ("promote_test=after (every write to an NVM page moves it)", {"promote_test": "after"}, BOTH),
    ("DRAM pages have a reference bit too", {"dram_ref_bit": True}, BOTH),
    ("DRAM pages enter unreferenced (insert_referenced=False with a DRAM reference bit, against the row above: "
     "SetPageBitFlags, line 7, sets the bits of the page just allocated)",
     {"dram_ref_bit": True, "insert_referenced": False}, TEXT),
    ("levels off (Table 2 not applied)", {"levels": False}, TEXT),
    ("no NVM -> DRAM migration", {"nvm_to_dram": False}, TEXT),
    ("nvm_second_chance=False (the NVM victim ignores writes: only reads spare a page)",
     {"nvm_second_chance": False}, BOTH),
    ("write_miss_read (a write miss reads its page first, read-modify-write; in every policy)",
     {"write_miss_read": True}, BOTH),
    ("miss_write_counts=False (the write that brings a page into DRAM, a miss or a move up, does not count toward "
     "its first rotation)", {"miss_write_counts": False}, BOTH),
    ("evaluate_first=False (Table 2 applied after the victim test: a page leaves at the level it had)",
     {"evaluate_first": False}, BOTH),
    ("migrated_referenced=True (a page moved to NVM arrives referenced)", {"migrated_referenced": True}, BOTH),
    ("migrated_referenced and migrated_read (a page moved to NVM arrives referenced and counted as read: the "
     "clean-room review's reading; the NVM classes follow reads after allocation, and a move is no read)",
     {"migrated_referenced": True, "migrated_read": True}, TEXT),
    ("promote_write_tier=nvm (the write that moves a page up counted in NVM, where line 7 sets its bits)",
     {"promote_write_tier": "nvm"}, BOTH),
    ("incoming_first=True (the new page's row logged before the victim's; Algorithm 1 frees the frame, line 3, "
     "before it allocates it, line 5)", {"incoming_first": True}, TEXT),
]
DNV_CLEAN_CHOICE = ("CLOCK-DNV keeps clean DRAM victims in free NVM frames (clean_to_free_nvm=True, the default "
                    "before the clean-room review; the text: it discards them)")
DNV_CHOICES = [
    ("CLOCK-DNV padding=nvm (NVM block-mates only)", {"padding": "nvm"}, BOTH),
    ("CLOCK-DNV padding=buffer_evict (the DRAM block-mates leave too, as BPLRU evicts whole blocks)",
     {"padding": "buffer_evict"}, BOTH),
    ("CLOCK-DNV padding=none", {"padding": "none"}, TEXT),
    (DNV_CLEAN_CHOICE, {"clean_to_free_nvm": True}, TEXT),
    ("CLOCK-DNV cache_reads=False (a write buffer: read misses are not kept)", {"cache_reads": False}, BOTH),
    ("CLOCK-DNV insert_referenced=False (a new page enters unreferenced)", {"insert_referenced": False}, BOTH),
    ("CLOCK-DNV migrated_referenced=True (a page moved to NVM arrives referenced)", {"migrated_referenced": True},
     BOTH),
    ("CLOCK-DNV nvm_free=lowest (a page moving into NVM takes the lowest free frame, not the one freed last)",
     {"nvm_free": "lowest"}, BOTH),
    ("CLOCK-DNV pad_order=page (a padded block's writes logged in page order, not the victim first)",
     {"pad_order": "page"}, BOTH),
    ("CLOCK-DNV incoming_first=True (the new page's read logged before the victim's rows; the text: it migrates, "
     "then allocates)", {"incoming_first": True}, TEXT),
]
BASELINE_CHOICES = [
    ("CLOCK baselines insert pages referenced (as CLOCK-DNV and CLOCK-HBM do)", {"insert_referenced": True}, BOTH),
]
SWAP_CHOICES = {"miss": "swap = every miss, read or write (the text's reading)",
                "read_miss": "swap = a miss read from flash (read misses only)",
                "flash_io": "swap = every page moved between buffer and flash (reads and write-backs)"}
PRICING_CHOICES = {"hybrid": "LRU and CLOCK priced at the hybrid buffer's frames (20% DRAM, 80% NVM)",
                   "dram": "LRU and CLOCK priced as one DRAM pool"}


def _summary(runs: pl.DataFrame, controls: bool = False) -> dict:
    """The headline numbers of CLOCK-HBM against the baselines; with ``controls`` also, in CLOCK-HBM's place,
    the control (``control_*``: its mechanisms off) and LRU caching reads against the baselines that do not
    (``lru_cached_*``: how much the baselines' read bypass alone gives)."""
    a = averages(pairs(runs))
    out = {}
    for cr in ("on", "off"):
        out[f"swap_reduction_{cr}"] = a[(cr, "a")]["swap_reduction"]
        out[f"miss_reduction_{cr}"] = a[(cr, "a")]["miss_reduction"]
        for rd in ("a", "b"):
            out[f"writes_{rd}_{cr}"] = a[(cr, rd)]["writes_mean_of_groups"]
            out[f"reads_{rd}_{cr}"] = a[(cr, rd)]["reads_mean_of_groups"]
        out[f"latency_{cr}"] = a[(cr, "a")]["latency_change"]
    if controls:
        c = averages(pairs(runs, (CONTROL, "n/a")))
        lru = averages(pairs(runs, ("lru", "on")))
        for cr in ("on", "off"):
            out[f"control_swap_reduction_{cr}"] = c[(cr, "a")]["swap_reduction"]
            out[f"control_reads_a_{cr}"] = c[(cr, "a")]["reads_mean_of_groups"]
        out["lru_cached_swap_reduction_off"] = lru[("off", "a")]["swap_reduction"]
        out["lru_cached_reads_a_off"] = lru[("off", "a")]["reads_mean_of_groups"]
    return out


AMBIGUITY_REQUESTS = {"ci": None, "quick": 50_000, "paper": 150_000}


def ambiguities(traces: dict[str, Trace], scale: str = "paper", tier_reading: str | dict = W.TIER_READING,
                hbm_params: dict | None = None, dnv_params: dict | None = None, swap: str = SWAP,
                pricing: str = PRICING) -> pl.DataFrame:
    """What each open choice changes in the paper's headline numbers (swap reduction; buffer write and read
    increases as the mean of the UMass and FIU averages; Table 1's time per reference against the baselines)
    under each reading. Baselines are run once; each CLOCK-HBM or CLOCK-DNV choice re-runs that policy; the
    Table 3 sizes' decimal reading re-runs all; the swap definitions and the baselines' pricing re-read the
    default runs (:func:`costed`). Runs on the first :data:`AMBIGUITY_REQUESTS` requests of each workload (the
    rows stay comparable with each other), at ci on :data:`~.workloads.CI_SUBSET` only.
    ``hbm_params``/``dnv_params``/``swap``/``pricing`` change the default the rows start from (each row's own
    choice on top). Each row says who is right on it (``who_is_right``: :data:`TEXT`, the paper's text settles
    the point for the default, or :data:`BOTH`) and gives CLOCK-HBM's and CLOCK-DNV's mean hit ratios over the
    models (``hit_clock_hbm``, ``hit_clock_dnv``); a choice that only orders the I/O log (:data:`LOG_ONLY`) is
    not re-run (``note``)."""
    requests = AMBIGUITY_REQUESTS[scale]
    keep = [f"clockhbm/{w}" for w in W.CI_SUBSET] if scale == "ci" else list(traces)
    tr = {k: (v.head(requests) if requests else v) for k, v in traces.items() if W.group(k) in GROUPS and k in keep}
    hbm_params, dnv_params = dict(hbm_params or {}), dict(dnv_params or {})
    share = dram_share(tier_reading)
    cost = {"swap": swap, "pricing": pricing}
    base = compare(tr, PAPER_VARIANTS, tier_reading, dnv_params, **cost, **hbm_params)
    rows = [_amb_row("default", "", base)]
    others = base.filter(pl.col("policy") != "clock_hbm")
    for label, params, right in HBM_CHOICES[1:]:
        if set(params) <= LOG_ONLY:
            rows.append(_amb_row(f"CLOCK-HBM {label}", right, base, LOG_NOTE))
            continue
        hbm = compare(tr, (("clock_hbm", None),), tier_reading, **cost, **{**hbm_params, **params})
        d = pl.concat([others, hbm])
        if "write_miss_read" in params:  # in every policy: CLOCK-DNV runs with it; LRU and CLOCK have no switch,
            # but reading a page before writing it changes nothing they decide, so their flash reads are their misses
            d = pl.concat([d.filter(pl.col("policy") != "clock_dnv"),
                           compare(tr, (("clock_dnv", None),), tier_reading, {**dnv_params, **params}, **cost)])
            d = costed(d.with_columns(device_reads=pl.when(pl.col("policy").is_in(ONE_POOL)).then(pl.col("misses"))
                                      .otherwise(pl.col("device_reads"))), swap, pricing, share)
        rows.append(_amb_row(f"CLOCK-HBM {label}", right, d))
    keep = base.filter(pl.col("policy") != "clock_dnv")
    for label, params, right in DNV_CHOICES:
        if set(params) <= LOG_ONLY:
            rows.append(_amb_row(label, right, base, LOG_NOTE))
            continue
        dnv = compare(tr, (("clock_dnv", None),), tier_reading, {**dnv_params, **params}, **cost)
        rows.append(_amb_row(label, right, pl.concat([keep, dnv])))
    keep = base.filter(pl.col("policy") != "clock")
    for label, params, right in BASELINE_CHOICES:
        raw = []
        for t in tr.values():
            for cr in (True, False):
                row, res = run(t, "clock", cr, tier_reading, **params)
                raw.append({k: row[k] for k in ("workload", "group", "policy", "cache_reads", "label")}
                           | counts(res.counters, "clock", cr))
        clk = costed(pl.DataFrame(raw), swap, pricing, share)
        rows.append(_amb_row(label, right, pl.concat([keep, clk])))
    for other, label in SWAP_CHOICES.items():
        if other != swap:
            rows.append(_amb_row(label, BOTH, costed(base, other, pricing, share)))
    for other, label in PRICING_CHOICES.items():
        if other != pricing:
            rows.append(_amb_row(label, BOTH, costed(base, swap, other, share)))
    if tiers(tier_reading) == tiers(W.TIER_READING):
        rows.append(_amb_row("Table 3 sizes read in decimal units (1,600 + 6,400 pages; pool 8,000)", BOTH,
                             compare(tr, PAPER_VARIANTS, "decimal", dnv_params, **cost, **hbm_params)))
    return pl.DataFrame(rows)


def _amb_row(choice: str, right: str, runs: pl.DataFrame, note: str = "") -> dict:
    """One row of :func:`ambiguities`: the choice, who is right on it (:data:`TEXT` or :data:`BOTH`), the headline
    numbers of ``runs`` and, as the choice's own measured effect, CLOCK-HBM's and CLOCK-DNV's mean hit ratios."""
    h = hit_ratios(runs)
    return {"choice": choice, "who_is_right": right, **_summary(runs),
            "hit_clock_hbm": h.get("hit_clock_hbm_n/a"), "hit_clock_dnv": h.get("hit_clock_dnv_n/a"), "note": note}


SWEEP_REQUESTS = {"ci": 5_000, "quick": 50_000, "paper": 100_000}


def sweep_points() -> list[tuple[int, float, str]]:
    """(footprint, skew, hot sets): the footprint at the default skew, the skew at the default footprint, and
    the skew again with reads and writes on hot sets of their own."""
    pts = [(fp, W.ALPHA, W.HOT_SETS) for fp in W.FOOTPRINTS]
    pts += [(W.FOOTPRINT_PAGES, a, W.HOT_SETS) for a in W.ALPHAS if a != W.ALPHA]
    pts += [(W.FOOTPRINT_PAGES, a, "separate") for a in W.ALPHAS]
    return pts


def assumption_sweep(scale: str, seed: int = 0, tier_reading: str | dict = W.TIER_READING,
                     hbm_params: dict | None = None, dnv_params: dict | None = None,
                     names: list[str] | None = None, swap: str = SWAP, pricing: str = PRICING) -> pl.DataFrame:
    """The declared workload assumptions swept (:func:`sweep_points`), each point all fifteen workloads (as
    printed; :data:`SWEEP_REQUESTS` requests each, at ci :data:`~.workloads.CI_SUBSET` only, or ``names``)
    under every policy variant and the control: the headline numbers of :func:`ambiguities` and, beside them,
    what the control and LRU caching reads get in CLOCK-HBM's place (an exploratory sweep: its points were
    looked at after the claims' defaults were set, and no point of it is a claim)."""
    n = SWEEP_REQUESTS[scale]
    names = names or (W.CI_SUBSET if scale == "ci" else W.TABLE4)
    rows = []
    for fp, alpha, hot in tqdm(sweep_points(), desc="assumptions", leave=False):
        tr = {f"clockhbm/{w}": W.generate(W.model(w, fp, alpha, hot), n, seed) for w in names}
        runs = compare(tr, VARIANTS, tier_reading, dnv_params, swap=swap, pricing=pricing, **(hbm_params or {}))
        rows.append({"footprint_pages": fp, "footprint_mib": fp * 4 // 1024, "alpha": alpha, "hot_sets": hot,
                     "requests": n, **_summary(runs, controls=True), **hit_ratios(runs)})
    return pl.DataFrame(rows)


def hit_ratios(runs: pl.DataFrame) -> dict:
    """Each policy variant's mean hit ratio over the UMass and FIU workloads (``hit_<policy>_<cache_reads>``) and
    their spread across the four policies the paper compares with the baselines caching reads
    (``hit_spread_on``: the largest minus the smallest): how far the workloads let the policies differ."""
    m = runs.filter(pl.col("group").is_in(GROUPS)).with_columns(h=pl.col("hits") / pl.col("references"))
    g = m.group_by("policy", "cache_reads", maintain_order=True).agg(pl.col("h").mean())
    out = {f"hit_{p}_{c}": float(h) for p, c, h in g.iter_rows()}
    on = g.filter(pl.col("cache_reads").is_in(["on", "n/a"]) & (pl.col("policy") != CONTROL))["h"]
    out["hit_spread_on"] = float(on.max() - on.min()) if len(on) else float("nan")
    return out
