"""Paper 3 workloads: Table 4's fifteen traces as models calibrated on their read share and mean request size,
the real originals through the catalog when a user has them, and the real stand-ins.

Table 4 (Sec. IV) gives each trace's read and write percentages and its mean request size, and nothing else.
The models (:class:`Table4Model`) are calibrated on those two numbers only:

* the read share is the printed read percentage over read + write (Financial1 and home3 add to 99%, so
  23/99 and 3/99), exact up to rounding to whole requests;
* request sizes are geometric with the printed mean (KB read as KiB), in 512 B sectors for UMass (SPC
  requests are sector-sized and sector-aligned) and in 4 KiB blocks for FIU, whose records are one 4 KiB
  block each, so Table 4's 6-45 KB FIU sizes are runs of records merged into requests (the FIU reader's
  ``merge_contiguous`` option gives the same reading of the real files).

What the paper does not give is a declared assumption, the same for every workload and swept in the
notebook: the footprint (:data:`FOOTPRINT_PAGES`, 1 GiB = 32 x the 32 MB buffer), the skew (Zipf
:data:`ALPHA` over the footprint's pages, hot pages scattered over it), whether reads and writes share one
popularity ranking (:data:`HOT_SETS`; "separate" gives each its own) and the length
(:data:`PAPER_REQUESTS` requests at paper scale).

Table 4's errors: WebSearch1-3 (printed "WearSearch") have 0% reads and 100% writes, but the UMass WebSearch
traces are almost all reads (the MQSim trace derived from them has 24,779 reads and 4 writes), so the columns
look swapped. They run as printed (``clockhbm/websearch1``) and corrected (``clockhbm/websearch1-corrected``,
100% reads); the paper's UMass averages are over the printed ones.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import polars as pl

from ... import paths
from ...traces import Trace, catalog
from ...traces.synthetic import zipf_ranks
from ...traces.trace import Op
from ..layout import PaperNumbers

PAPER_FILE = "clock_hbm.csv"
KIB = 1024
PAGE = 4096
# --- Table 3: the buffer, in 4 KiB pages ----------------------------------------------------------------
# 6.4 MB and 25.6 MB read in binary units: 6.4 MiB / 4 KiB = 1,638.4 and 25.6 MiB / 4 KiB = 6,553.6, each
# rounded down. The decimal reading (6.4e6 / 4e3 = 1,600 and 6,400) is the other row of the ambiguity table.
TIERS = {"binary": {"dram_pages": 1638, "nvm_pages": 6553}, "decimal": {"dram_pages": 1600, "nvm_pages": 6400}}
TIER_READING = "binary"
# --- declared assumptions (the paper gives none of these) -------------------------------------------------
FOOTPRINT_PAGES = 262_144  # 1 GiB of 4 KiB pages
ALPHA = 0.9
HOT_SETS = "shared"  # reads and writes share one popularity ranking ("separate": one ranking each)
PAPER_REQUESTS = 500_000  # requests per model at paper scale (the catalog's ci and quick caps apply below it)
FOOTPRINTS = (65_536, 262_144, 1_048_576)  # the sweep: 256 MiB, 1 GiB, 4 GiB
ALPHAS = (0.6, 0.9, 1.2)

UMASS = ["financial1", "financial2", "websearch1", "websearch2", "websearch3"]
FIU = ["mail-02", "mail-03", "mail-06", "mail-07", "mail-08", "mail-09", "home1", "home2", "home3", "home4"]
TABLE4 = UMASS + FIU
CORRECTED = [f"{w}-corrected" for w in UMASS if w.startswith("websearch")]
# at ci scale the open-choice table and the assumption sweep run on these only (both groups, the mail outliers)
CI_SUBSET = ["financial1", "financial2", "mail-02", "mail-03", "mail-06", "home2"]
# real traces that re-use pages enough to separate the policies (their reuse: docs/paper3_clock_hbm.md)
REAL_STANDINS = ["real/cloudphysics/io", "real/personal_pc/mayun2", "real/personal_pc/systemdisk1",
                 "real/personal_pc/p2pdownload"]
# real traces of the paper's own families that re-use almost nothing: format tests only
FORMAT_TESTS = {"FIU mail-02, first 9,998 records (merged)": ("fiu/cheetah.cs.fiu.edu-110108-113008.2.blkparse."
                                                              "head9998", "fiu", {"merge_contiguous": True}),
                "MQSim WebSearch (wsrch-small)": ("mqsim/wsrch-small.trace", "mqsim", {})}


paper_value = PaperNumbers(PAPER_FILE)  # paper_value(key, workload, ...): one printed number
paper_numbers = paper_value.table


def group(workload: str) -> str:
    """``"UMass"``, ``"FIU"``, ``"UMass (corrected)"`` or ``"real"`` for a workload name (with or without its
    ``clockhbm/`` prefix)."""
    w = workload.removeprefix("clockhbm/")
    if w in UMASS:
        return "UMass"
    if w in FIU:
        return "FIU"
    if w in CORRECTED:
        return "UMass (corrected)"
    return "real"


# --- the models ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Table4Model:
    """One Table 4 workload: ``read_share`` and ``mean_request_bytes`` from the paper; requests of whole
    ``unit_bytes`` units (512 B sectors for UMass, 4 KiB blocks for FIU) starting at a unit boundary; start
    pages drawn Zipf(``alpha``) over ``footprint_pages`` pages whose popularity ranks are scattered, one
    ranking for reads and writes (``hot_sets="shared"``) or one each (``"separate"``: the pages read most are
    not the pages written most)."""

    workload: str
    read_share: float
    mean_request_bytes: float
    unit_bytes: int
    footprint_pages: int = FOOTPRINT_PAGES
    alpha: float = ALPHA
    hot_sets: str = HOT_SETS

    def with_(self, **changes) -> Table4Model:
        return dataclasses.replace(self, **changes)


def table4() -> pl.DataFrame:
    """Table 4 as printed, one row per workload, with the read share the models use (read / (read + write))."""
    rows = []
    for w in TABLE4:
        r = paper_value("read_pct", w)
        wr = paper_value("write_pct", w)
        rows.append({"workload": w, "group": group(w), "read_pct": r, "write_pct": wr, "sum_pct": r + wr,
                     "mean_request_kb": paper_value("mean_request_kb", w), "model_read_share": r / (r + wr)})
    return pl.DataFrame(rows)


def model(workload: str, footprint_pages: int = FOOTPRINT_PAGES, alpha: float = ALPHA,
          hot_sets: str = HOT_SETS) -> Table4Model:
    """The model of a Table 4 workload (``websearchN-corrected``: the WebSearch row with reads and writes
    swapped, i.e. 100% reads)."""
    base = workload.removesuffix("-corrected")
    r, w = paper_value("read_pct", base), paper_value("write_pct", base)
    if workload != base:
        r, w = w, r
    unit = 512 if base in UMASS else PAGE
    return Table4Model(workload, r / (r + w), paper_value("mean_request_kb", base) * KIB, unit, footprint_pages,
                       alpha, hot_sets)


def generate(m: Table4Model, n_requests: int, seed: int, name: str | None = None) -> Trace:
    """``n_requests`` requests of model ``m`` (the same for the same arguments; each workload draws from its
    own stream of ``seed``)."""
    n = int(n_requests)
    rng = np.random.default_rng([seed, zlib.crc32(m.workload.encode())])
    n_reads = int(round(m.read_share * n))
    is_read = np.zeros(n, bool)
    is_read[rng.permutation(n)[:n_reads]] = True
    units_mean = m.mean_request_bytes / m.unit_bytes
    size_units = rng.geometric(min(1.0, 1.0 / units_mean), n)  # mean units_mean, at least one unit
    rank = zipf_ranks(rng, m.footprint_pages, n, m.alpha)
    page = rng.permutation(m.footprint_pages)[rank]
    if m.hot_sets == "separate":  # reads rank the pages in an order of their own (from a stream of its own)
        reads_order = np.random.default_rng([seed, zlib.crc32(m.workload.encode()), 1]).permutation(m.footprint_pages)
        page = np.where(is_read, reads_order[rank], page)
    elif m.hot_sets != "shared":
        raise ValueError(f"hot_sets must be 'shared' or 'separate', got {m.hot_sets!r}")
    per_page = PAGE // m.unit_bytes
    start_unit = page * per_page + (rng.integers(0, per_page, n) if per_page > 1 else 0)
    gaps = rng.exponential(1e-3, n)
    gaps[0] = 0.0
    return Trace(np.cumsum(gaps), np.where(is_read, Op.READ, Op.WRITE).astype(np.int8), start_unit * m.unit_bytes,
                 size_units * m.unit_bytes, name=name or f"clockhbm/{m.workload}",
                 source=f"clock_hbm.workloads.generate({m}, n_requests={n}, seed={seed})")


def model_trace(workload: str, n_requests: int, seed: int) -> Trace:
    """The catalog's model: at most :data:`PAPER_REQUESTS` requests (the catalog's scale caps apply below)."""
    return generate(model(workload), min(int(n_requests), PAPER_REQUESTS), seed)


# Table 4 in the catalog: the models, and the originals (UMass Trace Repository, SNIA IOTTA FIU IODedup) when a
# user puts them in a trace folder. The WebSearch rows are run as printed (model only) and with reads and
# writes swapped (the original's mix).
_FIU_MERGED = (("merge_contiguous", True),)
_TABLE4 = [("financial1", "umass/Financial1.spc", "spc", ()), ("financial2", "umass/Financial2.spc", "spc", ())]
_TABLE4 += [(f"websearch{k}", None, None, ()) for k in (1, 2, 3)]
_TABLE4 += [(f"websearch{k}-corrected", f"umass/WebSearch{k}.spc", "spc", ()) for k in (1, 2, 3)]
_TABLE4 += [(f"mail-0{d}", f"fiu/cheetah.cs.fiu.edu-110108-113008.{d}.blkparse", "fiu", _FIU_MERGED)
            for d in (2, 3, 6, 7, 8, 9)]
_TABLE4 += [(f"home{k}", f"fiu/homes-110108-112108.{k}.blkparse", "fiu", _FIU_MERGED) for k in (1, 2, 3, 4)]
for _w, _rel, _fmt, _opts in _TABLE4:
    catalog.add(catalog.Workload(f"clockhbm/{_w}", f"{_w} (CLOCK-HBM Table 4), model calibrated on read share and "
                                 "mean size", real=catalog.RealSource(_rel, _fmt, _opts) if _rel else None,
                                 model=model_trace, model_args=(_w,), papers=(3,)))


def workloads(scale: str, seed: int = 0, corrected: bool = True, names: list[str] | None = None
              ) -> dict[str, Trace]:
    """Table 4's workloads (and the corrected WebSearch runs). At ``ci`` always the models, so checked outputs
    do not depend on the machine; otherwise the originals where a user has put them in a trace folder (the
    catalog names their files: UMass ``umass/<Name>.spc``, FIU ``fiu/<file>.blkparse`` read with
    ``merge_contiguous``; the WebSearch originals stand behind the corrected entries). ``names``: a subset of
    Table 4's workloads (None: all fifteen); a WebSearch name brings its corrected run with it."""
    chosen = TABLE4 if names is None else list(names)
    unknown = set(chosen) - set(TABLE4)
    if unknown:
        raise ValueError(f"not Table 4 workloads: {sorted(unknown)}; Table 4: {TABLE4}")
    extra = [f"{w}-corrected" for w in chosen if f"{w}-corrected" in CORRECTED] if corrected else []
    names = [f"clockhbm/{w}" for w in [w for w in TABLE4 if w in chosen] + extra]
    prefer = "model" if scale == "ci" else "real"
    return {n: catalog.get(n, scale=scale, seed=seed, prefer=prefer) for n in names}


def real_standins(scale: str) -> dict[str, Trace]:
    """The real stand-ins present on this machine (none at ``ci``)."""
    if scale == "ci":
        return {}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # p2pdownload's bogus records are dropped with a warning
        return {n: catalog.get(n, scale=scale) for n in REAL_STANDINS if catalog.real_path(n) is not None}


def origins(traces: dict[str, Trace], scale: str) -> dict[str, str]:
    prefer = "model" if scale == "ci" else "real"
    return {n: catalog.origin(n, prefer) if catalog.known(n) else "file" for n in traces}


def calibration(traces: dict[str, Trace], scale: str = "paper") -> pl.DataFrame:
    """Each workload's read share and mean request size against its Table 4 targets (what the models are
    calibrated on), with the declared footprint, skew, hot sets and length."""
    orig = origins(traces, scale)
    rows = []
    for name, tr in traces.items():
        w = name.removeprefix("clockhbm/")
        m = model(w)
        s = tr.stats()
        rw = s["reads"] + s["writes"]
        rows.append({"workload": w, "group": group(w), "origin": orig[name],
                     "read_share_target": m.read_share, "read_share": s["reads"] / max(rw, 1),
                     "mean_kib_target": m.mean_request_bytes / KIB, "mean_kib": s["mean_request_bytes"] / KIB,
                     "requests": s["requests"], "page_references": s["page_references"],
                     "footprint_pages": s["footprint_pages"], "model_footprint_pages": m.footprint_pages,
                     "alpha": m.alpha, "hot_sets": m.hot_sets})
    return pl.DataFrame(rows)


def format_tests() -> pl.DataFrame:
    """The real traces of the paper's own families present here, and why they only test the readers: each
    page is referenced about once, so no 32 MB buffer separates the policies."""
    from ...cache import simulate
    from ...traces import load_trace

    rows = []
    for label, (rel, fmt, opts) in FORMAT_TESTS.items():
        path = paths.find_trace(rel)
        if path is None:
            continue
        tr = load_trace(path, fmt, **opts)
        s = tr.stats()
        hit = simulate(tr, "lru", sum(TIERS[TIER_READING].values())).to_dict()["hit_ratio"]
        rows.append({"trace": label, "requests": s["requests"], "read_share": s["reads"] / max(s["requests"], 1),
                     "mean_kib": s["mean_request_bytes"] / KIB, "page_references": s["page_references"],
                     "footprint_pages": s["footprint_pages"],
                     "references_per_page": s["page_references"] / max(s["footprint_pages"], 1),
                     "lru_hit_ratio_32MB": hit})
    return pl.DataFrame(rows)
