"""Paper 5 workloads: Table 2's nine app traces as seeded synthetic models, the real SQLite replays and the
Mobibench syscall log, the worked timeline of Figs. 3-4, and the statistics of Figs. 1-2.

The models (:class:`AppModel`) are calibrated only on what the paper states about its traces: each one's
reference count and read:write ratio (Table 2), a 15-20 minute span (Sec. III; we take 17.5 min) and a
written-once share of written blocks (Fig. 2 gives only its maximum, 95%, so every model takes that one
number, ``once_share``; the ambiguity table shows 50% and 80%). Nothing about Figs. 5-8 enters. The mixes
are their own recordings in the paper (their counts are not the sums of their parts), so Mix1 and Mix2
are modelled on their own Table 2 rows.

A model app has two files: its data (``hot_blocks`` = ``hot_per_ref`` x references blocks, Zipf(``alpha``)
popularity; every read and every rewrite goes there) and a log of blocks written once and never referenced
again (journal records, as in the paper's Sec. I; sequential blocks of a second file). The share of writes
that go to the log is the one fitted number: bisection on it until the written-once share of written
blocks equals ``once_share``. References arrive at uniform random times over the span (a Poisson process
conditioned on its count); each is one 4 KiB block. Locality (``hot_per_ref``, ``alpha``) is not stated by
the paper: fixed for all nine, and shown in the ambiguity table.

The paper says nothing of its traces' syncs, and the models have none by default (``syncs_per_write=0``).
With ``syncs_per_write = r`` each write is followed by an fsync of its file (the data or the log) ``floor(r)``
times plus once more with probability ``r - floor(r)``, from a seeded stream of its own (the references are
the same as without syncs). :func:`public_trace_stats` measures the written-once share and the syncs per
write of the public traces present (or reads the committed measurement, ``data/paper/write_once_traces.csv``,
when they are absent), for the model variants at the traces' values.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ... import paths
from ...traces import Op, Trace, catalog
from ...traces.synthetic import zipf_ranks
from ..layout import PaperNumbers

PG = 4096
TABLE2 = {  # Table 2: references, writes per read (read:write 1:x)
    "Browser": (26_221, 3.38), "Facebook": (25_962, 2.15), "Farmstory": (34_360, 4.17), "No5": (155_299, 1.93),
    "Navermap": (407_857, 18.03), "Tictoc": (31_906, 5.87), "Worldwar": (12_320, 44.15), "Mix1": (628_739, 6.05),
    "Mix2": (438_410, 1.23)}
SPAN_S = 1050.0  # the middle of Sec. III's 15-20 minutes
REPLAY_APPS = ["calendar", "facebook", "google-play", "map"]
REAL = [f"real/android_sql/{a}" for a in REPLAY_APPS] + ["real/android/mobigen-facebook"]


paper_value = PaperNumbers("write_once.csv", workload="all")  # paper_value(key, workload, ...): one printed number
paper_numbers = paper_value.table


# --- Figs. 3-4 --------------------------------------------------------------------------------------------
A_BLOCK, B_BLOCK = 0, 1


def fig3_trace() -> Trace:
    """Figs. 3-4: A written at 0 s and read at 3 s, B written at 2 s (before the 5 s flush) and again at 7 s
    and 9 s; a read of A at 11 s lets the 10 s grid point be seen (a flush is noticed at the first request
    at or after its time)."""
    t = [0.0, 2.0, 3.0, 7.0, 9.0, 11.0]
    op = [Op.WRITE, Op.WRITE, Op.READ, Op.WRITE, Op.WRITE, Op.READ]
    blocks = [A_BLOCK, B_BLOCK, A_BLOCK, B_BLOCK, B_BLOCK, A_BLOCK]
    return Trace(t, op, np.array(blocks) * PG, np.full(6, PG), name="fig3-fig4", source="Figs. 3-4")


# --- the models ------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class AppModel:
    name: str
    references: int
    writes_per_read: float
    once_share: float = 0.95  # written-once share of written blocks (Fig. 2: "up to 95%")
    span_s: float = SPAN_S
    hot_per_ref: float = 0.05  # data blocks per reference (not stated by the paper)
    alpha: float = 0.9  # Zipf popularity of the data blocks (not stated by the paper)
    syncs_per_write: float = 0.0  # fsyncs of the written file per write (not stated by the paper: none)


def model(name: str, **overrides) -> AppModel:
    refs, ratio = TABLE2[name]
    return dataclasses.replace(AppModel(name, refs, ratio), **overrides)


def _stream(m: AppModel) -> int:
    return sorted(TABLE2).index(m.name) if m.name in TABLE2 else 99


def _draws(m: AppModel, n: int, seed: int):
    rng = np.random.default_rng([seed, _stream(m)])
    n_w = int(round(n * m.writes_per_read / (1 + m.writes_per_read)))
    is_w = np.zeros(n, bool)
    is_w[rng.permutation(n)[:n_w]] = True
    hot = max(16, int(round(m.hot_per_ref * n)))
    perm = rng.permutation(hot)
    rank = perm[zipf_ranks(rng, hot, n, m.alpha)]  # every reference's data block, if it goes to the data
    u = rng.random(n)  # a write goes to the log when u < the log share
    time = np.sort(rng.uniform(0.0, m.span_s, n))
    return is_w, rank, u, time


def _once_curve(is_w, rank, u):
    """The written-once share as a function of the log share x, for every x at once: the writes in
    descending ``u`` (a write is data when ``u >= x``, so the data writes are always a prefix of this order),
    each one's occurrence index within its block, and from them the written and written-once data blocks of
    every prefix. Returns ``x -> share`` (what counting with ``np.bincount`` at each x gives, exactly)."""
    wi = np.flatnonzero(is_w)
    uw = u[wi]
    order = np.argsort(uw)[::-1]  # descending u (ties, which a float draw hardly has, do not matter: x splits
    r = rank[wi[order]]             # the order between distinct values only)
    pos = np.arange(r.size)
    top = int(rank.max()) + 1 if rank.size else 1
    first = np.full(top, r.size)
    np.minimum.at(first, r, pos)
    is_first = first[r] == pos
    rest = ~is_first
    second = np.full(top, r.size)
    np.minimum.at(second, r[rest], pos[rest])
    is_second = np.zeros(r.size, bool)
    is_second[second[second < r.size]] = True
    written = np.concatenate(([0], np.cumsum(is_first)))
    once = np.concatenate(([0], np.cumsum(is_first.astype(np.int64) - is_second)))
    asc = uw[order][::-1]

    def share(x: float) -> float:
        n_log = int(np.searchsorted(asc, x, side="left"))  # writes with u < x go to the log
        k = wi.size - n_log
        return (n_log + int(once[k])) / max(n_log + int(written[k]), 1)

    return share


def log_share(m: AppModel, n: int, seed: int = 0, draws=None) -> float:
    """The share of writes that go to written-once log blocks so that the written-once share of written
    blocks is ``m.once_share`` (bisection; the only fitted number). ``draws``: :func:`_draws`' result, if
    already drawn."""
    is_w, rank, u, _ = _draws(m, n, seed) if draws is None else draws
    share = _once_curve(is_w, rank, u)
    lo, hi = 0.0, 1.0
    if share(lo) >= m.once_share:
        return 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if share(mid) < m.once_share:
            lo = mid
        else:
            hi = mid
    return hi


def generate(m: AppModel, n: int | None = None, seed: int = 0) -> Trace:
    """The model's trace: ``n`` references (default: Table 2's count) over its span."""
    n = m.references if n is None else int(n)
    if not (np.isfinite(m.syncs_per_write) and m.syncs_per_write >= 0):
        raise ValueError(f"syncs_per_write must be a finite number >= 0, got {m.syncs_per_write}")
    draws = _draws(m, n, seed)
    x = log_share(m, n, seed, draws)
    is_w, rank, u, time = draws
    log = is_w & (u < x)
    page = rank.astype(np.int64)
    page[log] = (1 << 32) + np.arange(int(log.sum()))  # file 1: fresh blocks in order
    file = np.where(log, 1, 0).astype(np.int32)
    op, off, size = is_w.astype(np.int8), page * PG, np.full(n, PG)
    if m.syncs_per_write > 0:
        time, op, off, size, file = _with_syncs(m, seed, time, op, off, size, file)
    tr = Trace(time, op, off, size, name=f"writeonce/{m.name}",
               source=f"write_once model {m}", meta={"log_share": x, "model": dataclasses.asdict(m)}, file=file)
    return tr


def _with_syncs(m: AppModel, seed: int, time, op, off, size, file):
    """Each write followed by ``floor(r)`` fsyncs of its file, and one more with probability ``r - floor(r)``
    (``r = m.syncs_per_write``; a seeded stream apart from the references')."""
    r = m.syncs_per_write
    rng = np.random.default_rng([seed, _stream(m), 1])
    w = op == Op.WRITE
    k = np.zeros(op.size, np.int64)
    k[w] = int(np.floor(r)) + (rng.random(int(w.sum())) < r - np.floor(r))
    rep = 1 + k  # each reference, then its syncs
    src = np.repeat(np.arange(op.size), rep)
    first = np.concatenate(([0], np.cumsum(rep)[:-1]))
    is_sync = np.ones(src.size, bool)
    is_sync[first] = False
    return (time[src], np.where(is_sync, Op.SYNC, op[src]).astype(np.int8), np.where(is_sync, 0, off[src]),
            np.where(is_sync, 0, size[src]), file[src])


def maker(n: int | None = None, seed: int = 0, keep=(), **base):
    """``make(name, **overrides) -> Trace``: the model of ``name`` with ``base`` and ``overrides`` (``n``
    references, default Table 2's), generated afresh except for the overrides listed in ``keep``, whose
    traces are kept and reused (a trace reused keeps its page expansion, the costly part)."""
    kept = [dict(k) for k in keep]
    memo: dict = {}

    def make(name: str, **over) -> Trace:
        key = (name, tuple(sorted(over.items())))
        if key in memo:
            return memo[key]
        tr = generate(model(name, **{**base, **over}), n, seed)
        if over in kept:
            memo[key] = tr
        return tr

    return make


def model_trace(name: str, n: int, seed: int) -> Trace:
    """Catalog hook: the model of ``name`` (Table 2's length, or the first ``n`` references' worth)."""
    m = model(name)
    return generate(m, min(n, m.references), seed)


for _w in ("Browser", "Facebook", "Farmstory", "No5", "Navermap", "Tictoc", "Worldwar", "Mix1", "Mix2"):
    catalog.add(catalog.Workload(f"writeonce/{_w}", f"{_w} app file references (write-only-once paper, Table 2), "
                                 "calibrated model", model=model_trace, model_args=(_w,), papers=(5,)))


def models(scale: str, seed: int = 0, names=None, **overrides) -> dict[str, Trace]:
    """The models of ``names`` (default: all nine): full length at paper scale, the catalog's cap at ci and
    quick. ``overrides`` change the model's inputs (:class:`AppModel` fields, e.g. ``once_share``); without
    them the traces come through the catalog."""
    names = list(TABLE2) if names is None else list(names)
    unknown = set(names) - set(TABLE2)
    if unknown:
        raise ValueError(f"unknown Table 2 workloads {sorted(unknown)}; use some of {', '.join(TABLE2)}")
    if not overrides:
        return {f"writeonce/{w}": catalog.get(f"writeonce/{w}", scale=scale, seed=seed) for w in names}
    cap = catalog._SYNTH_REQUESTS[scale]  # as catalog.get (model_trace)
    out = {}
    for w in names:
        m = model(w, **overrides)
        out[f"writeonce/{w}"] = generate(m, min(cap, m.references), seed)
    return out


def replay_settings(**settings) -> dict:
    """The SQLite replay's settings the notebook sets (:class:`~flashrepro.traces.android_sql.ReplaySettings`
    fields: ``page_size``, ``journal_mode``, ``synchronous``, ``cache_pages``, ``span_s``, ...), checked (a bad
    value is an error in words, with or without the traces); returns the ones that differ from the defaults."""
    from ...traces.android_sql import ReplaySettings

    unknown = set(settings) - set(ReplaySettings.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown replay settings {sorted(unknown)}; the settings: "
                         f"{', '.join(ReplaySettings.__dataclass_fields__)}")
    s = dataclasses.replace(ReplaySettings(), **settings)
    s.check()
    default = ReplaySettings()
    return {k: v for k, v in settings.items() if getattr(default, k) != v}


def real_traces(scale: str, replay: dict | None = None) -> dict[str, Trace]:
    """The SQLite replays and the Mobibench log, when present, at quick and paper scale (never at ci, so the
    checked outputs do not depend on the machine). ``replay``: the SQLite replay's settings
    (:func:`replay_settings`; the defaults when empty)."""
    if scale == "ci":
        return {}
    out = {}
    for n in REAL:
        if not (catalog.available(n) and catalog.real_path(n)):
            continue
        if replay and n.startswith("real/android_sql/"):
            from ...traces.android_sql import replay as replay_folder

            out[n] = replay_folder(catalog.real_path(n), name=n, **replay)
        else:
            out[n] = catalog.get(n, scale="paper")
    return out


def mobibench_path():
    """The Mobibench log of the Facebook app, when present (None otherwise)."""
    n = "real/android/mobigen-facebook"
    return catalog.real_path(n) if catalog.available(n) else None


def app_folders() -> dict[str, object]:
    """The android_sql app folders present (for the replay-setting sweeps)."""
    out = {}
    for a in REPLAY_APPS:
        p = catalog.real_path(f"real/android_sql/{a}")
        if p is not None:
            out[a] = p
    return out


# --- Figs. 1-2 and Table 2 ---------------------------------------------------------------------------------
def characterise(tr: Trace) -> dict:
    """Fig. 1's write share of block references and Fig. 2's share of written blocks written exactly once."""
    refs = tr.to_pages()
    w = refs.is_write
    counts = np.bincount(refs.dense[w], minlength=refs.n_unique)
    written = int((counts > 0).sum())
    once = int((counts == 1).sum())
    span = float(tr.time_s.max() - tr.time_s.min()) if len(tr) else 0.0
    return {"references": len(refs), "reads": int((~w).sum()), "writes": int(w.sum()),
            "write_share": float(w.mean()), "writes_per_read": float(w.sum() / max((~w).sum(), 1)),
            "footprint_blocks": refs.n_unique, "written_blocks": written, "written_once_blocks": once,
            "written_once_share": once / max(written, 1), "span_s": span,
            "syncs": int((tr.op == Op.SYNC).sum() + (tr.op == Op.FLUSH).sum()),
            "deletes": int((tr.op == Op.TRIM).sum())}


TRACE_STATS_FILE = "write_once_traces.csv"  # in data/paper: the public traces' measurement, committed


def public_trace_stats(traces: dict[str, Trace]) -> tuple[pl.DataFrame, bool]:
    """The written-once share and the syncs per write of the public traces among ``traces`` (the SQLite
    replays and the Mobibench log), measured, and True; when none is present, the committed measurement
    (``data/paper/write_once_traces.csv``, with its source) and False."""
    rows = []
    for name, tr in traces.items():
        if name.startswith("writeonce/"):
            continue
        st = characterise(tr)
        rows.append({"workload": name, "written_once_share": st["written_once_share"], "writes": st["writes"],
                     "syncs": st["syncs"], "syncs_per_write": st["syncs"] / max(st["writes"], 1),
                     "source": f"measured here from {tr.source}"})
    if rows:
        return pl.DataFrame(rows), True
    return pl.read_csv(paths.paper / TRACE_STATS_FILE), False


def write_trace_stats(traces: dict[str, Trace], path=None) -> pl.DataFrame:
    """Measure the public traces present (the notebook's reader and replay defaults) and write the committed
    file (``python -m flashrepro.papers.write_once.workloads`` does it with the traces' folder set)."""
    import apsw

    df, measured = public_trace_stats(traces)
    if not measured:
        raise FileNotFoundError("no public trace is present: set FLASHREPRO_TRACE_DIRS to the traces' folder")
    rel = {n: catalog.CATALOG[n].real.relpath if catalog.known(n) and catalog.CATALOG[n].real else n
           for n in df["workload"]}
    df = df.with_columns(pl.Series("source", [
        f"measured by flashrepro.papers.write_once.workloads.public_trace_stats from {rel[n]} (the readers' "
        f"defaults; SQLite {apsw.sqlite_lib_version()})" for n in df["workload"]]))
    df.write_csv(path or paths.paper / TRACE_STATS_FILE)
    return df


def origin(name: str) -> str:
    if name.startswith("writeonce/"):
        return "model"
    return "syscall log" if "mobigen" in name else "SQLite replay"


def table2(traces: dict[str, Trace]) -> pl.DataFrame:
    """Table 2 (and Figs. 1-2's statistics): our workloads beside the paper's."""
    rows = []
    for name, tr in traces.items():
        w = name.split("/", 1)[1]
        paper = TABLE2.get(w) if name.startswith("writeonce/") else None
        rows.append({"workload": name, "origin": origin(name), **characterise(tr),
                     "paper_references": paper[0] if paper else None,
                     "paper_writes_per_read": paper[1] if paper else None})
    return pl.DataFrame(rows)


if __name__ == "__main__":
    print(write_trace_stats(real_traces("paper")))
