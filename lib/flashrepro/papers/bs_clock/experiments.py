"""Paper 1 experiments: every policy on every workload, timed on the card models (Figs. 2, 6-9, Tables 4-5),
what the affine model allows (ceiling, implied bulk, implied position penalty), the range over equally good
workload fits, the open choices, the paper's Figs. 4-5 example, and the after-cache replays."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ...cache import simulate
from ...cache.contract import IO_WRITE
from ...devices import CARDS, io_time
from ...traces import Op, Trace
from . import costmodel as M
from .workloads import CACHE_PAGES, MODELS, paper_value

MAX_BULK = 16  # pages per bulk write (Sec. 4.2: 64 KB)
BULK_SWEEP = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
BUFFER_SWEEP = [256, 512, 1024, 2048, 4096, 8192, 16384]
POLICIES = ["lru", "clock", "cflru", "spatial_clock", "bs_clock"]
REFBIT_POLICIES = {"clock", "spatial_clock", "bs_clock"}  # the policies with a reference bit
LSN_POLICIES = {"spatial_clock", "bs_clock"}  # the policies whose hand walks the pages in LSN order


def policy_params(policy: str, insert_referenced: bool = True, max_bulk_pages: int = MAX_BULK,
                  hand_past_bulk: bool = False, insert_behind_hand: bool = False) -> dict:
    """The parameters ``policy`` takes from the notebook's knobs: one reference-bit convention for every
    policy that has a bit, one hand reading for Spatial Clock and BS-CLOCK (where a page
    inserted between the victim and the next resident page stands: ``insert_behind_hand``), and the bulk
    settings for BS-CLOCK. ``insert_behind_hand`` is passed only when set, so the default tables keep their
    columns."""
    kw = {"insert_referenced": bool(insert_referenced)} if policy in REFBIT_POLICIES else {}
    if policy == "bs_clock":
        kw.update(max_bulk_pages=max_bulk_pages, hand_past_bulk=bool(hand_past_bulk))
    if policy in LSN_POLICIES and insert_behind_hand:
        kw["insert_behind_hand"] = True
    return kw


def run(trace: Trace, policy: str, capacity: int = CACHE_PAGES, *, flush_at_end: bool = False,
        penalty_s: float = 0.0, **params) -> dict:
    """One simulation, timed on both cards: a flat row. ``penalty_s`` adds the position term of
    :mod:`.costmodel` to every scattered write request (0: the affine model calibrated on Fig. 2)."""
    res = simulate(trace, policy, capacity, log_io=True, flush_at_end=flush_at_end, **params)
    row = {"workload": trace.name, "policy": policy, "capacity_pages": capacity, **params}
    d = res.to_dict()
    row.update({k: d[k] for k in ("hit_ratio", "device_writes", "device_write_requests", "device_reads")})
    row["bulk_cleaned"] = d.get("bulk_cleaned", 0)  # only BS-CLOCK cleans pages in bulk
    row["mean_pages_per_write"] = d["device_writes"] / max(d["device_write_requests"], 1)
    row["scattered_write_requests"] = M.scattered_writes(res.io_log)
    for card_name, card in CARDS.items():
        t = io_time(res.io_log, card)
        row[f"{card_name}_write_s"] = t["write_s"]
        row[f"{card_name}_affine_io_s"] = t["io_s"]
        row[f"{card_name}_io_s"] = M.position_io_time(t["io_s"], row["scattered_write_requests"], penalty_s)
    return row


def fig2_model(total_bytes: int = 64 * 2**20) -> pl.DataFrame:
    sizes = [2**k for k in range(12, 23)]  # 4 KiB .. 4 MiB
    rows = []
    for name, card in CARDS.items():
        t = card.bulk_write_time(total_bytes, sizes)
        rows += [{"card": name, "request_bytes": s, "seconds": float(x), "source": "model"}
                 for s, x in zip(sizes, t, strict=True)]
    return pl.DataFrame(rows)


def fig2_replay(target, total_bytes: int, sizes=None) -> pl.DataFrame:
    """Fig. 2's experiment measured on this machine's storage (not a microSD card). Wall times: they go to
    ``results/01_bs_clock_timings.csv``, never into a table that must be identical on rerun. The scratch
    image ``target`` is removed when the sweep ends, however it ends."""
    from ...replay import write_sweep
    from ...tempfiles import scratch

    sizes = sizes or [2**k for k in range(12, 21, 2)]  # 4 KiB .. 1 MiB
    with scratch(target):
        res = write_sweep(target, total_bytes, sizes)
    return pl.DataFrame([{"card": f"this machine ({r.mode})", "request_bytes": s,
                          "seconds": r.seconds * (64 * 2**20 / total_bytes), "source": "replay"}
                         for s, r in zip(sizes, res, strict=True)])


def bulk_sweep(traces: dict[str, Trace], sizes=BULK_SWEEP, capacity: int = CACHE_PAGES, *,
               insert_referenced: bool = True, hand_past_bulk: bool = False, insert_behind_hand: bool = False,
               flush_at_end: bool = False, penalty_s: float = 0.0) -> pl.DataFrame:
    """Figs. 6-7: BS-CLOCK while the maximum bulk size grows, with Spatial Clock as reference."""
    kw = {"flush_at_end": flush_at_end, "penalty_s": penalty_s}
    rows = []
    for tr in tqdm(traces.values(), desc="bulk sweep", leave=False):
        rows.append({**run(tr, "spatial_clock", capacity, **kw,
                           **policy_params("spatial_clock", insert_referenced, insert_behind_hand=insert_behind_hand)),
                     "max_bulk_pages": 1})
        rows += [run(tr, "bs_clock", capacity, **kw,
                     **policy_params("bs_clock", insert_referenced, m, hand_past_bulk, insert_behind_hand))
                 for m in sizes]
    return pl.DataFrame(rows, strict=False)


class CardTime:
    """A :func:`flashrepro.sweep.run` metric, ``(SimResult, Trace) -> dict``: :func:`run`'s columns that the
    counters do not give (bulk-cleaned pages, mean pages per write, scattered write requests, and the time
    on both card models with the position penalty ``penalty_s`` added per scattered write request). The
    penalty is part of the metric's name, so a sweep store keys rows by it."""

    def __init__(self, penalty_s: float = 0.0):
        self.penalty_s = float(penalty_s)
        self.__qualname__ = f"CardTime(penalty_s={self.penalty_s!r})"

    def __call__(self, res, trace) -> dict:
        c = res.counters
        row = {"bulk_cleaned": c.get("bulk_cleaned", 0),
               "mean_pages_per_write": c["device_writes"] / max(c["device_write_requests"], 1),
               "scattered_write_requests": M.scattered_writes(res.io_log)}
        for card_name, card in CARDS.items():
            t = io_time(res.io_log, card)
            row[f"{card_name}_write_s"] = t["write_s"]
            row[f"{card_name}_affine_io_s"] = t["io_s"]
            row[f"{card_name}_io_s"] = M.position_io_time(t["io_s"], row["scattered_write_requests"], self.penalty_s)
        return row


_RUN_COUNTERS = ("hit_ratio", "device_writes", "device_write_requests", "device_reads")
_RUN_METRICS = ("bulk_cleaned", "mean_pages_per_write", "scattered_write_requests",
                *(f"{c}_{k}" for c in CARDS for k in ("write_s", "affine_io_s", "io_s")))


def _swept(traces: dict[str, Trace], policies, capacities, params_of, *, flush_at_end: bool, penalty_s: float,
           executor: str, workers: int | None) -> dict:
    """Every policy x trace x capacity through :func:`flashrepro.sweep.run`, as :func:`run`'s rows keyed by
    (trace name, policy, capacity): the same columns in the same order, so the tables built from them are
    byte-identical to one :func:`run` per cell."""
    from ... import sweep

    pol = [(p, params_of(p)) for p in policies]
    res = sweep.run(pol, list(traces.values()), capacities, flush_at_end=flush_at_end,
                    metrics=(CardTime(penalty_s),), executor=executor, workers=workers, progress=False)
    if res.failures:
        raise RuntimeError(f"{len(res.failures)} runs failed, the first: {res.failures[0]}\n"
                           f"{res.failures[0].traceback}")
    out = {}
    for r in res.table.iter_rows(named=True):
        row = {"workload": r["workload"], "policy": r["policy"], "capacity_pages": r["capacity_pages"],
               **params_of(r["policy"])}
        row.update({k: r[k] for k in _RUN_COUNTERS})
        row.update({k: r[k] for k in _RUN_METRICS})
        out[(r["workload"], r["policy"], r["capacity_pages"])] = row
    return out


def compare(traces: dict[str, Trace], policies=POLICIES, capacity: int = CACHE_PAGES, *,
            max_bulk_pages: int = MAX_BULK, insert_referenced: bool = True, hand_past_bulk: bool = False,
            insert_behind_hand: bool = False, flush_at_end: bool = False, penalty_s: float = 0.0,
            executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """Tables 4-5, Figs. 8-9: every policy at one buffer size, BS-CLOCK with ``max_bulk_pages`` per write,
    one reference-bit convention for every policy that has a bit. Runs through :func:`flashrepro.sweep.run`
    (``executor``/``workers`` spread it); the table is the one :func:`run` per policy and trace gives."""
    def params_of(p):
        return policy_params(p, insert_referenced, max_bulk_pages, hand_past_bulk, insert_behind_hand)

    rows = _swept(traces, policies, [capacity], params_of, flush_at_end=flush_at_end, penalty_s=penalty_s,
                  executor=executor, workers=workers)
    return pl.DataFrame([rows[(tr.name, p, capacity)] for tr in traces.values() for p in policies], strict=False)


def buffer_sweep(traces: dict[str, Trace], sizes_pages=BUFFER_SWEEP, policies=POLICIES, *,
                 max_bulk_pages: int = MAX_BULK, insert_referenced: bool = True, hand_past_bulk: bool = False,
                 insert_behind_hand: bool = False, flush_at_end: bool = False, penalty_s: float = 0.0,
                 executor: str = "local", workers: int | None = None) -> pl.DataFrame:
    """Every policy at every buffer size (the extension), through :func:`flashrepro.sweep.run`; rows by
    trace, then size, then policy, as one :func:`run` per cell gives them."""
    def params_of(p):
        return policy_params(p, insert_referenced, max_bulk_pages, hand_past_bulk, insert_behind_hand)

    rows = _swept(traces, policies, sizes_pages, params_of, flush_at_end=flush_at_end, penalty_s=penalty_s,
                  executor=executor, workers=workers)
    return pl.DataFrame([rows[(tr.name, p, c)] for tr in traces.values() for c in sizes_pages for p in policies],
                        strict=False)


# --- open choices ----------------------------------------------------------------------------------------
AMBIGUITIES = [  # (variant, Spatial Clock params, BS-CLOCK params, run options), each against the defaults
    ("defaults: bit set on entry, max counts victim, hand past victim, no end flush", {}, {}, {}),
    ("new page enters with its bit clear", {"insert_referenced": False}, {"insert_referenced": False}, {}),
    ("max excludes the victim (17 pages)", {}, {"max_counts_victim": False}, {}),
    ("hand goes past the bulk after a bulk write", {}, {"hand_past_bulk": True}, {}),
    ("a page inserted before the hand's page is behind the hand (pointer reading)", {"insert_behind_hand": True},
     {"insert_behind_hand": True}, {}),
    ("pointer reading with the bit clear on entry (against the bit-clear row)",
     {"insert_behind_hand": True, "insert_referenced": False}, {"insert_behind_hand": True, "insert_referenced": False},
     {}),
    ("dirty pages flushed at the end of the trace", {}, {}, {"flush_at_end": True}),
]


def _pair(tr, sc_kw, bs_kw, run_kw, capacity, max_bulk_pages, penalty_s) -> dict:
    sc = run(tr, "spatial_clock", capacity, penalty_s=penalty_s, **run_kw, **sc_kw)
    bs = run(tr, "bs_clock", capacity, penalty_s=penalty_s, **run_kw, **{"max_bulk_pages": max_bulk_pages, **bs_kw})
    row = {"workload": tr.name, "sc_hit_ratio": sc["hit_ratio"], "bs_hit_ratio": bs["hit_ratio"],
           "sc_pages_written": sc["device_writes"], "bs_pages_written": bs["device_writes"],
           "bs_mean_pages_per_write": bs["mean_pages_per_write"]}
    for card in CARDS:
        row[f"{card}_reduction"] = 1 - bs[f"{card}_io_s"] / sc[f"{card}_io_s"]
    return row


def ambiguities(traces: dict[str, Trace], capacity: int = CACHE_PAGES, max_bulk_pages: int = MAX_BULK,
                penalty_s: float = 0.0) -> pl.DataFrame:
    """How much each reading the paper leaves open changes Spatial Clock, BS-CLOCK and the reduction, one
    choice at a time against the defaults (the first row per workload); the pointer reading also with the
    bit clear on entry, where it matters more (to compare with the bit-clear row)."""
    rows = [{"variant": v, **_pair(tr, sc_kw, bs_kw, run_kw, capacity, max_bulk_pages, penalty_s)}
            for tr in traces.values() for v, sc_kw, bs_kw, run_kw in AMBIGUITIES]
    return pl.DataFrame(rows).select("workload", "variant", pl.exclude("workload", "variant"))


# The two open readings of the hand, crossed: (name, hand_past_bulk, insert_behind_hand). Only the hand past the
# bulk can make BS-CLOCK's victims differ from Spatial Clock's: with the hand one page past the victim, dirty bits
# (the only difference) never steer the hand, and a bulk write needs the victim's page + 1 resident, so no new
# page lands between the victim and the hand's page either (clean-room review; tests/cleanroom and
# tests/test_bs_clock.py check it).
HAND_READINGS = [
    ("hand past the victim, new page at the hand (position)", False, False),
    ("hand past the victim, new page behind the hand (pointer)", False, True),
    ("hand past the bulk, new page at the hand (position)", True, False),
    ("hand past the bulk, new page behind the hand (pointer)", True, True),
]


def hand_readings(traces: dict[str, Trace], capacity: int = CACHE_PAGES, sizes=(2, MAX_BULK, 1024), *,
                  insert_referenced: bool = True, flush_at_end: bool = False,
                  readings=HAND_READINGS) -> pl.DataFrame:
    """Table 5 and Fig. 6 under each reading of the hand (:data:`HAND_READINGS`): Spatial Clock's hit ratio
    (under the same placement of a new page), BS-CLOCK's at each maximum bulk in ``sizes`` (Fig. 6's ends
    and Table 5's 16 pages), the two drops the paper prints, and whether BS-CLOCK's hits equal Spatial
    Clock's at every size (``hits_equal``). Pages written beside them. ``readings``: a subset of
    :data:`HAND_READINGS` (all by default)."""
    lo, mid, hi = sizes
    rows = []
    for tr in traces.values():
        for name, past, behind in readings:
            sc = run(tr, "spatial_clock", capacity, flush_at_end=flush_at_end,
                     **policy_params("spatial_clock", insert_referenced, insert_behind_hand=behind))
            bs = {m: run(tr, "bs_clock", capacity, flush_at_end=flush_at_end,
                         **policy_params("bs_clock", insert_referenced, m, past, behind)) for m in sizes}
            h = {m: r["hit_ratio"] for m, r in bs.items()}
            rows.append({"workload": tr.name, "reading": name, "hand_past_bulk": past, "insert_behind_hand": behind,
                         "sc_hit_ratio": sc["hit_ratio"], f"bs_hit_ratio_{lo}": h[lo],
                         f"bs_hit_ratio_{mid}": h[mid], f"bs_hit_ratio_{hi}": h[hi],
                         "table5_drop": (sc["hit_ratio"] - h[mid]) / sc["hit_ratio"],
                         "fig6_drop": (h[lo] - h[hi]) / h[lo],
                         "hits_equal": all(v == sc["hit_ratio"] for v in h.values()),
                         "sc_pages_written": sc["device_writes"], "bs_pages_written": bs[mid]["device_writes"]})
    return pl.DataFrame(rows)


def refbit_conventions(traces: dict[str, Trace], capacity: int = CACHE_PAGES) -> pl.DataFrame:
    """CLOCK, Spatial Clock and BS-CLOCK with a new page's bit set and clear (the comparison uses one)."""
    rows = []
    for tr in traces.values():
        for p in sorted(REFBIT_POLICIES):
            for ins in (True, False):
                r = run(tr, p, capacity, **policy_params(p, ins))
                rows.append({"workload": tr.name, "policy": p, "insert_referenced": ins, "hit_ratio": r["hit_ratio"],
                             "device_writes": r["device_writes"], "samsung_io_s": r["samsung_io_s"],
                             "sandisk_io_s": r["sandisk_io_s"]})
    return pl.DataFrame(rows)


# --- what the affine card model allows ------------------------------------------------
FIG89 = [(card, w) for card in CARDS for w in ("web-browsing", "video-streaming", "mixed-apps")]


def ceiling_table(max_bulk_pages: int = MAX_BULK) -> pl.DataFrame:
    """Per card: the fitted a and b, and the largest write-time reduction bulk writes can reach at equal
    pages written (unbounded and at the bulk cap)."""
    return pl.DataFrame([{"card": name, "request_ms": c.write_request_s * 1e3, "page_ms": c.write_page_s * 1e3,
                          "ceiling": M.ceiling(c), "max_bulk_pages": max_bulk_pages,
                          "ceiling_at_cap": M.ceiling(c, max_bulk_pages)} for name, c in CARDS.items()])


def implied_table(cmp: pl.DataFrame, max_bulk_pages: int = MAX_BULK) -> pl.DataFrame:
    """For each Figs. 8-9 number: the mean bulk size it needs under Fig. 2 (equal pages written, and at
    Table 4's page counts), and the position penalty that would give it on our after-cache traces of the
    models (solved, not fitted; as ms and as a multiple of a one-page write's affine time)."""
    rows = []
    for card, w in FIG89:
        c = CARDS[card]
        r = paper_value("io_time_reduction", f"{card}/{w}")
        ratio = paper_value("pages_written_bs_clock", w) / paper_value("pages_written_spatial_clock", w)
        m_eq, m_t4 = M.implied_bulk(c, r), M.implied_bulk(c, r, ratio)
        row = {"card": card, "workload": w, "paper_reduction": r, "ceiling": M.ceiling(c),
               "implied_bulk_equal_pages": m_eq, "implied_bulk_table4_pages": m_t4,
               "under_fig2": ("unreachable under Fig. 2" if math.isinf(m_eq) else
                              f"reachable (mean {m_eq:.2f} pages)" if m_eq <= max_bulk_pages else
                              f"needs a mean past the {max_bulk_pages}-page cap")}
        d = cmp.filter(pl.col("workload") == f"bsclock/{w}")
        if d.height:
            sc = d.filter(pl.col("policy") == "spatial_clock").row(0, named=True)
            bs = d.filter(pl.col("policy") == "bs_clock").row(0, named=True)
            p = M.implied_penalty(sc[f"{card}_affine_io_s"], sc["scattered_write_requests"],
                                  bs[f"{card}_affine_io_s"], bs["scattered_write_requests"], r)
            r0 = 1 - bs[f"{card}_affine_io_s"] / sc[f"{card}_affine_io_s"]
            rinf = 1 - bs["scattered_write_requests"] / max(sc["scattered_write_requests"], 1)
            row.update(our_mean_pages_per_write=bs["mean_pages_per_write"], our_reduction=r0,
                       sc_scattered_share=sc["scattered_write_requests"] / max(sc["device_write_requests"], 1),
                       bs_scattered_share=bs["scattered_write_requests"] / max(bs["device_write_requests"], 1),
                       penalty_limit=rinf, implied_penalty_ms=p * 1e3,
                       implied_penalty_x_page_write=p / (c.write_request_s + c.write_page_s),
                       penalty_note=M.penalty_reason(r, r0, rinf, p))
        rows.append(row)
    return pl.DataFrame(rows, strict=False)


# --- the workload models decide the result: the range over equally good fits -----------
def fit_range(family: dict[str, Trace], capacity: int = CACHE_PAGES, max_bulk_pages: int = MAX_BULK,
              insert_referenced: bool = True, hand_past_bulk: bool = False,
              insert_behind_hand: bool = False) -> pl.DataFrame:
    """Spatial Clock and BS-CLOCK on every equally good fit of each workload model (``hot``: the fit's hot set,
    in pages for the hot-set models, in files for web browsing's files model)."""
    rows = []
    for name, tr in family.items():
        sc = run(tr, "spatial_clock", capacity, **policy_params("spatial_clock", insert_referenced,
                                                                 insert_behind_hand=insert_behind_hand))
        bs = run(tr, "bs_clock", capacity, **policy_params("bs_clock", insert_referenced, max_bulk_pages,
                                                            hand_past_bulk, insert_behind_hand))
        w, hot = name.split("/", 1)[1].split("@hot=")
        row = {"workload": w, "hot": int(hot), "hot_unit": "files" if MODELS[w][1] == "files" else "pages",
               "sc_hit_ratio": sc["hit_ratio"],
               "sc_pages_written": sc["device_writes"], "bs_pages_written": bs["device_writes"],
               "bs_mean_pages_per_write": bs["mean_pages_per_write"]}
        for card in CARDS:
            row[f"{card}_reduction"] = 1 - bs[f"{card}_io_s"] / sc[f"{card}_io_s"]
        rows.append(row)
    return pl.DataFrame(rows)


def write_request_shapes(models: dict[str, Trace], capacity: int = CACHE_PAGES, **params) -> pl.DataFrame:
    """What BS-CLOCK's write requests on the committed models are: the share of one-page requests, and, for
    the hot-set models, the share of all requests that are one hot-set page (below the model's ``hot_pages``,
    not the stream; empty for the files model, whose hot files are scattered like its new ones)."""
    from .workloads import load_models

    hot = {f"bsclock/{w}": m.hot_pages for w, m in load_models().items() if hasattr(m, "hot_pages")}
    rows = []
    for name, tr in models.items():
        res = simulate(tr, "bs_clock", capacity, log_io=True, **params)
        log = res.io_log
        w = log.device & (log.op == IO_WRITE)
        n, first = log.n_pages[w], log.first_page[w]
        single = n == 1
        rows.append({"workload": name, "write_requests": int(w.sum()), "single_page_share": float(single.mean()),
                     "single_hot_page_share": float((single & (first < hot[name])).mean()) if name in hot else None,
                     "mean_pages_per_write": float(n.mean())})
    return pl.DataFrame(rows)


# --- the paper's Figs. 4-5 example -------------------------------------------------------------------------
EXAMPLE = {"capacity": 5, "pages": [2, 3, 4, 5, 9, 11], "writes": [True, True, True, True, False, False]}
SECTORS_PER_PAGE = 8  # LSN = page x 8 (512-byte sectors, 4 KiB pages): LSN 16..40 are pages 2..5


def worked_example() -> pl.DataFrame:
    """Figs. 4-5: pages at LSN 16, 24, 32, 40 dirty and unreferenced with the hand at 16 when a miss needs a
    frame. Spatial Clock writes and evicts LSN 16 alone; BS-CLOCK writes LSN 16-40 in one request and
    evicts only LSN 16, the others staying clean. (Built by writing pages 2-5, reading 9, then missing on 11:
    every page enters referenced, the hand clears them all on its first sweep, and stops at LSN 16.)"""
    tr = Trace(np.arange(6) * 1e-3, np.where(EXAMPLE["writes"], Op.WRITE, Op.READ).astype(np.int8),
               np.array(EXAMPLE["pages"]) * 4096, np.full(6, 4096), name="Figs. 4-5")
    rows = []
    for policy in ("spatial_clock", "bs_clock"):
        res = simulate(tr, policy, EXAMPLE["capacity"], log_io=True)
        log = res.io_log
        for k in np.flatnonzero(log.device & (log.op == IO_WRITE)):
            first, n = int(log.first_page[k]), int(log.n_pages[k])
            rows.append({"policy": policy, "write_request": f"LSN {first * SECTORS_PER_PAGE}"
                         f"-{(first + n - 1) * SECTORS_PER_PAGE}", "pages": n, "evicted": res.to_dict()["evictions"],
                         "cleaned_and_kept": res.to_dict().get("bulk_cleaned", 0)})
    return pl.DataFrame(rows)


# --- the paper's own method: time every policy's after-cache trace -----------------------
def replay_logs(traces: dict[str, Trace], target, *, max_bytes: int, max_requests: int, policies=POLICIES,
                capacity: int = CACHE_PAGES, max_bulk_pages: int = MAX_BULK, insert_referenced: bool = True,
                hand_past_bulk: bool = False, insert_behind_hand: bool = False) -> pl.DataFrame:
    """Replay each policy's after-cache I/O log on this machine's storage with O_DIRECT, as the paper did on
    its cards (Sec. 4), beside the card models' time of the same log.

    Bounded: each workload is cut at the input request where Spatial Clock's log reaches ``max_requests``
    device requests (every policy sees that same input prefix), and offsets are folded into a scratch file
    of ``max_bytes``, filled first so that reads hit written blocks. This machine's storage is not a
    microSD card: the measured reduction says what bulk writes gain here."""
    from ...replay import replay

    rows = []
    first = True
    for tr in tqdm(traces.values(), desc="replay", leave=False):
        res = simulate(tr, "spatial_clock", capacity, log_io=True,
                       **policy_params("spatial_clock", insert_referenced, insert_behind_hand=insert_behind_hand))
        dev = np.flatnonzero(res.io_log.device)
        cut = len(tr) if len(dev) <= max_requests else int(res.io_log.req[dev[max_requests]])
        head = tr.head(cut) if cut < len(tr) else tr
        for p in policies:
            r = simulate(head, p, capacity, log_io=True,
                         **policy_params(p, insert_referenced, max_bulk_pages, hand_past_bulk, insert_behind_hand))
            after = r.io_log.to_trace(name=f"{tr.name} {p}")
            if len(after) == 0:
                continue
            if first:  # fill the scratch file once, so reads land on written blocks
                n = max_bytes // 2**20
                replay(Trace(np.zeros(n), np.full(n, Op.WRITE, np.int8), np.arange(n) * 2**20, np.full(n, 2**20)),
                       target, max_bytes=max_bytes, allow_existing=True)
                first = False
            m = replay(after, target, max_bytes=max_bytes, allow_existing=True)
            row = {"workload": tr.name, "policy": p, "input_requests": len(head), "device_requests": m.requests,
                   "pages_written": m.bytes_written // 4096, "mode": m.mode, "folded": m.folded,
                   "seconds": m.seconds}
            for card_name, card in CARDS.items():
                row[f"{card_name}_model_s"] = io_time(r.io_log, card)["io_s"]
            rows.append(row)
    return pl.DataFrame(rows)
