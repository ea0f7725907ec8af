"""Paper 3's robustness space: the Figs. 4-6 headline claims judged across what the paper leaves open.

The paper gives Table 4's read shares and mean request sizes and Table 3's buffer, and nothing else about its
workloads: footprint, skew, whether the pages read most are the pages written most, how sequential the requests
are, and several rules of CLOCK-HBM and CLOCK-DNV are the models' choices (:mod:`.workloads`, the ambiguity
table of :mod:`.experiments`). :data:`SPACE` declares those choices with plausible ranges; :func:`point` runs
the fifteen Table 4 models at one point of it and returns the :data:`HEADLINE` rows through the paper's own
claims code (:func:`.claims._magnitudes` and :func:`.claims.against_control`, the control run too), so every
verdict is the ledger's.

The space and the headline were declared (committed) before any point of the space was run.
"""

from __future__ import annotations

import functools
import math
import zlib

import numpy as np
import polars as pl

from ... import claims as L
from ...robustness import Axis, Space
from ...traces import Trace, catalog
from ...traces.synthetic import inverse_cdf
from ...traces.trace import Op
from . import claims as C
from . import experiments as E
from . import workloads as W

PAPER = 3
BUFFER_PAGES = 1638 + 6553  # Table 3 in binary units (the claims' reading); held fixed, split by dram_share


def _key(prefix: str, params: dict) -> str:
    return prefix + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def _open_choices() -> dict[str, tuple[dict, dict, dict]]:
    """The ambiguity table's rows that both the text and the default allow and that change a count (rows that
    only order the I/O log, :data:`.experiments.LOG_ONLY`, change nothing): key -> (CLOCK-HBM params, CLOCK-DNV
    params, CLOCK baselines' params), applied one at a time as the table applies them."""
    out = {"default": ({}, {}, {})}
    for _, p, right in E.HBM_CHOICES[1:]:
        if right == E.BOTH and not set(p) <= E.LOG_ONLY:
            out[_key("hbm", p)] = (dict(p), {}, {})
    for _, p, right in E.DNV_CHOICES:
        if right == E.BOTH and not set(p) <= E.LOG_ONLY:
            out[_key("dnv", p)] = ({}, dict(p), {})
    for _, p, right in E.BASELINE_CHOICES:
        if right == E.BOTH and not set(p) <= E.LOG_ONLY:
            out[_key("clock", p)] = ({}, {}, dict(p))
    return out


OPEN_CHOICES = _open_choices()

SPACE = Space(paper=PAPER, axes=(
    Axis("footprint_mib", 64.0, 4096.0, 1024.0,
         "The paper gives no footprint; the real stand-ins present span 72 MiB to 1 GiB "
         "(results/00_workloads_summary.csv) and the package's declared sweep 256 MiB to 4 GiB, so 2x to 128x the "
         "32 MB buffer covers both.", scale="log"),
    Axis("alpha", 0.5, 1.3, 0.9,
         "The paper gives no popularity skew; the package's declared assumption sweep spans Zipf 0.6-1.2, widened "
         "by 0.1 each way (from nearly flat to strongly skewed)."),
    Axis("hot_overlap", 0.0, 1.0, 1.0,
         "CLOCK-HBM's mechanism (write-hot pages to DRAM, read-hot to NVM) depends on whether the pages read most "
         "are the pages written most, which Table 4 does not say: 1 is the models' shared ranking, 0 their "
         "'separate' setting, between them the share of reads that follow the writes' ranking."),
    Axis("write_shift", -2.0, 2.0, 0.0,
         "Table 4's shares are whole-trace averages while a run replays a prefix, and a real prefix can differ "
         "widely (FIU mail-02's first 9,998 records have 11% writes against Table 4's 83%, a log-odds move of "
         "-3.7), so each workload's write share moves by up to +-2 in log-odds (all-write workloads stay so)."),
    Axis("seq_share", 0.0, 0.5, 0.0,
         "Sec. IV says CLOCK-HBM wins 'regardless of random/sequential workloads' but gives no sequential share "
         "and the models have none; up to half the requests continue where the previous request ended."),
    Axis("dram_share", 0.1, 0.4, 0.2,
         "Table 3 fixes one DRAM:NVM split (20% of the 32 MB) without a reason; half to double DRAM's share of "
         "the same 8,191 pages."),
    Axis("open_choice", 0.0, 0.0, "default",
         "The rows of the ambiguity table (results/03_clock_hbm_ambiguities.csv) that the text allows as well as "
         "the default and that change a count, one at a time as the table applies them.",
         scale="choice", choices=tuple(OPEN_CHOICES)),
    Axis("websearch", 0.0, 0.0, "printed",
         "Table 4 prints WebSearch1-3 as 100% writes but the UMass WebSearch traces are almost all reads (the "
         "ambiguity table; MQSim's wsrch has 4 writes in 24,783 requests), so the UMass averages may be over "
         "either.", scale="choice", choices=("printed", "corrected")),
))

# Figs. 4-6 under the runs' swap definition (every miss, the text's reading) and operations read as host hits
# (reading (a), the paper's argument), with the baselines caching reads and not (the two readings of the ledger)
_R = "[swap = every miss; LRU/CLOCK cache reads: {cr}]"
_O = "[LRU/CLOCK cache reads: {cr}; operations (a)]"
EXPLAIN = ("footprint_mib", "alpha", "hot_overlap")  # the notebook's assumption grid's axes, seen across the map

HEADLINE = tuple(
    s.format(cr=cr) for cr in ("on", "off") for s in (
        "Fig. 4: CLOCK-HBM cuts swaps by 43.5% on average vs LRU, CLOCK, CLOCK-DNV " + _R,
        "Fig. 4: fewer swaps than each baseline on every workload " + _R,
        "Fig. 5(a): buffer write operations +49.96% vs the other policies " + _O,
        "Fig. 5(b): buffer write operations +70.54% vs the other policies " + _O,
        "Fig. 6(a): buffer read operations +106.90% vs the other policies " + _O,
        "Fig. 6(b): buffer read operations +911.58% vs the other policies " + _O,
    ))

MAP_SCALE = {"reduced": "ci", "full": "quick"}


def _write_share(read_share: float, shift: float) -> float:
    """The read share after moving the write share by ``shift`` in log-odds (0 and 1 stay)."""
    w = 1.0 - read_share
    if shift == 0.0 or w <= 0.0 or w >= 1.0:
        return read_share
    return 1.0 - 1.0 / (1.0 + math.exp(-(math.log(w / (1.0 - w)) + shift)))


@functools.lru_cache(maxsize=2)
def _zipf_cdf(n_items: int, alpha: float) -> np.ndarray:
    """:func:`flashrepro.traces.synthetic.zipf_ranks`' CDF, computed as it computes it."""
    w = np.arange(1, n_items + 1, dtype=np.float64) ** -alpha
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    cdf.setflags(write=False)
    return cdf


def generate(m: W.Table4Model, n_requests: int, seed: int, hot_overlap: float = 1.0, seq_share: float = 0.0,
             name: str | None = None) -> Trace:
    """:func:`.workloads.generate` with two more knobs, drawn exactly as it draws (the same requests at
    ``hot_overlap=1, seq_share=0`` as its ``hot_sets="shared"``, and at ``hot_overlap=0`` as its
    ``"separate"``): each read follows the reads' own popularity ranking with probability ``1 - hot_overlap``
    (from a stream of its own), and each request after the first continues where the previous one ended with
    probability ``seq_share`` (another stream), its size and operation as drawn. The Zipf CDF is kept between
    calls (every workload of a point shares it)."""
    if m.hot_sets != "shared":
        raise ValueError("give the overlap as hot_overlap (the model's hot_sets must be 'shared')")
    n = int(n_requests)
    crc = zlib.crc32(m.workload.encode())
    rng = np.random.default_rng([seed, crc])
    n_reads = int(round(m.read_share * n))
    is_read = np.zeros(n, bool)
    is_read[rng.permutation(n)[:n_reads]] = True
    units_mean = m.mean_request_bytes / m.unit_bytes
    size_units = rng.geometric(min(1.0, 1.0 / units_mean), n)
    rank = inverse_cdf(_zipf_cdf(m.footprint_pages, m.alpha), rng.random(n))  # zipf_ranks, its CDF kept
    page = rng.permutation(m.footprint_pages)[rank]
    if hot_overlap < 1.0:
        reads_order = np.random.default_rng([seed, crc, 1]).permutation(m.footprint_pages)
        own = np.random.default_rng([seed, crc, 2]).random(n) >= hot_overlap
        page = np.where(is_read & own, reads_order[rank], page)
    per_page = W.PAGE // m.unit_bytes
    start_unit = page * per_page + (rng.integers(0, per_page, n) if per_page > 1 else 0)
    gaps = rng.exponential(1e-3, n)
    gaps[0] = 0.0
    if seq_share > 0.0:
        seq = np.random.default_rng([seed, crc, 3]).random(n) < seq_share
        seq[0] = False
        head = np.flatnonzero(~seq)
        g = np.cumsum(~seq) - 1  # the run each request belongs to
        before = np.cumsum(size_units) - size_units  # units before each request
        start_unit = start_unit[head][g] + before - before[head][g]
    return Trace(np.cumsum(gaps), np.where(is_read, Op.READ, Op.WRITE).astype(np.int8), start_unit * m.unit_bytes,
                 size_units * m.unit_bytes, name=name or f"clockhbm/{m.workload}",
                 source=f"clock_hbm.robustness.generate({m}, n_requests={n}, seed={seed}, "
                        f"hot_overlap={hot_overlap}, seq_share={seq_share})")


def requests(scale: str) -> int:
    """Requests per model at ``scale``: the catalog's (so the default point is the claims' traces)."""
    return min(catalog._SYNTH_REQUESTS[scale], W.PAPER_REQUESTS)


def traces(scale: str = "ci", seed: int = 0, **values) -> dict[str, Trace]:
    """The fifteen Table 4 models and the three corrected WebSearch runs at the point ``values``."""
    v = {**SPACE.default(), **values}
    unknown = set(v) - set(SPACE.default())
    if unknown:
        raise TypeError(f"not axes of paper 3's space: {sorted(unknown)}")
    n = requests(scale)
    fp = int(round(float(v["footprint_mib"]) * 2**20 / W.PAGE))
    out = {}
    for w in W.TABLE4 + W.CORRECTED:
        src = f"{w}-corrected" if v["websearch"] == "corrected" and w.startswith("websearch") \
            and not w.endswith("-corrected") else w
        m = W.model(src, fp, float(v["alpha"]), "shared")
        m = m.with_(read_share=_write_share(m.read_share, float(v["write_shift"])))
        out[f"clockhbm/{w}"] = generate(m, n, seed, float(v["hot_overlap"]), float(v["seq_share"]),
                                        name=f"clockhbm/{w}")
    return out


def _tiers(dram_share: float) -> dict[str, int]:
    d = int(round(float(dram_share) * BUFFER_PAGES))
    return {"dram_pages": d, "nvm_pages": BUFFER_PAGES - d}


def runs(trs: dict[str, Trace], dram_share: float = 0.2, open_choice: str = "default") -> pl.DataFrame:
    """Every policy variant and the control on ``trs`` with the buffer split ``dram_share`` and one open choice
    applied as the ambiguity table applies it (:func:`.experiments.ambiguities`)."""
    hbm_p, dnv_p, clock_p = OPEN_CHOICES[open_choice]
    tier = _tiers(dram_share)
    if "write_miss_read" in hbm_p:  # "in every policy", as the ambiguity table runs it
        dnv_p = {**dnv_p, "write_miss_read": hbm_p["write_miss_read"]}
    variants = tuple(x for x in E.VARIANTS if not (clock_p and x[0] == "clock"))
    d = E.compare(trs, variants, tier, dnv_p, swap=E.SWAP, pricing=E.PRICING, **hbm_p)
    if clock_p:
        raw = []
        for t in trs.values():
            for cr in (True, False):
                row, res = E.run(t, "clock", cr, tier, **clock_p)
                raw.append({k: row[k] for k in ("workload", "group", "policy", "cache_reads", "label")}
                           | E.counts(res.counters, "clock", cr))
        d = pl.concat([d, E.costed(pl.DataFrame(raw), E.SWAP, E.PRICING, E.dram_share(tier))])
    if "write_miss_read" in hbm_p:  # LRU and CLOCK read a page before writing it: their flash reads are misses
        d = E.costed(d.with_columns(device_reads=pl.when(pl.col("policy").is_in(E.ONE_POOL)).then(pl.col("misses"))
                                    .otherwise(pl.col("device_reads"))), E.SWAP, E.PRICING, E.dram_share(tier))
    return d


def headline_rows(r: pl.DataFrame) -> pl.DataFrame:
    """The :data:`HEADLINE` rows of runs ``r`` through the paper's claims code: CLOCK-HBM's rows judged against
    the control's (:func:`.claims.against_control`), as :func:`.claims.claims` builds them."""
    built = C._magnitudes(r, E.SUBJECT, E.SWAP)
    control = {(c.claim, c.workload): c for c in C._magnitudes(r, (E.CONTROL, "n/a"), E.SWAP)}
    rows = [C.against_control(c, control.get((c.claim, c.workload))) for c in built if c.claim in HEADLINE]
    order = {h: i for i, h in enumerate(HEADLINE)}
    return L.table(sorted(rows, key=lambda c: order[c.claim]))


def point(scale: str = "ci", **values) -> pl.DataFrame:
    """Ledger rows of every :data:`HEADLINE` claim at the point ``values`` (missing axes take their default): the
    Table 4 models (always models, also where a user has the originals: the space is over the models) at
    ``scale``'s length, every policy variant and the control, judged by the paper's claims code."""
    v = {**SPACE.default(), **values}
    trs = traces(scale, **v)
    return headline_rows(runs(trs, v["dram_share"], v["open_choice"]))


def _present_standins(scale: str) -> dict[str, Trace]:
    import warnings

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # p2pdownload's bogus records are dropped with a warning
        for n in W.REAL_STANDINS:
            if catalog.real_path(n) is not None:
                out[n] = catalog.get(n, scale=scale)
    return out


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    """Ledger rows of the :data:`HEADLINE` claims on each real stand-in trace present (:data:`.workloads.
    REAL_STANDINS`, capped at ``scale``'s length; workload = the trace's name), at the default settings. A
    stand-in is one trace, so it enters each group's average alone: the UMass and the FIU rows are both its
    number, and "every workload" is every baseline on it. An empty ledger frame when none is present."""
    out = []
    for name, tr in _present_standins(scale).items():
        r = runs({name: tr})
        r = pl.concat([r.with_columns(group=pl.lit(g)) for g in E.GROUPS])
        out.append(headline_rows(r).with_columns(workload=pl.lit(name)))
    return pl.concat(out) if out else L.table([])
