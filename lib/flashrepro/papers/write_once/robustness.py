"""Paper 5's robustness map: the space the paper leaves open and the headline claims of Figs. 5-8.

``SPACE``: the axes the paper does not state and the models decide. Request sizes and a sequential share are
not axes: the paper's traces are references to 4 KiB blocks (Table 2 counts references, Sec. III: "block
4 KB"), and the models' one sequential stream, the written-once log, is sized by ``once_share``.

``HEADLINE``: the ledger rows of Figs. 5-8 a reader remembers. Figs. 7-8's "time about equal" and "energy
lower" rows and the "27-92% lower, 64% on average" rows are left out: the control (lru_flush at a quarter
of the cache) meets them wherever they hold (the time is mostly flash writes, which both policies issue
alike; the refresh energy is proportional to the cache), so they can only be "not comparable" or fail; the
row that tests Figs. 7-8's mechanism (write_once at C/4 faster than lru_flush at C/4) is kept.

:func:`point` runs only what those rows read (Fig. 5's curves, Fig. 6's search on Mix1, Figs. 7-8's quarter
cache), each run once, through :func:`.experiments.runs` with the notebook's parameters, on the nine models,
and judges them with :func:`.claims.claims`, the notebook's own ledger code (a test checks the default point
against the notebook's functions at ci). ``history_multiple`` gives every write_once run a history of that
multiple of its own cache (the notebook's ``history_pages=None``: the cache).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ... import claims as L
from ...robustness import Axis, Space
from ...traces import Trace, catalog
from . import claims as C
from . import experiments as E
from . import workloads as W

SPACE = Space(paper=5, axes=(
    Axis("cache_scale", 0.5, 2.0, 1.0,
         "Figs. 5-8's cache axes are not in the text, so our size grid (1-50% of the footprint, Fig. 6's search "
         "0.25-50%) is a choice: every size scaled by 0.5-2x.", scale="log"),
    Axis("hot_per_ref", 0.02, 0.2, 0.05,
         "The data footprint (reads and rewrites) is not stated; the notebook's model-input ambiguity table runs "
         "2% and 20% of the references.", scale="log"),
    Axis("alpha", 0.6, 1.2, 0.9,
         "Popularity skew is not stated; the model-input ambiguity table runs Zipf 0.6 and 1.2."),
    Axis("write_hot_overlap", 0.0, 1.0, 1.0,
         "The paper does not say whether the rewritten blocks are the read-hot ones; the models put reads and "
         "rewrites on one Zipf order (1); below 1 a random 1 - x of the data blocks swap their write popularity."),
    Axis("once_share", 0.5, 0.95, 0.95,
         "Fig. 2 gives only the maximum written-once share (95%); the ambiguity table runs 50% and 80% and the "
         "public Android traces measure 75-93%."),
    Axis("syncs_per_write", 0.0, 0.4, 0.0,
         "The paper says nothing of its traces' syncs; the models have none, the public Android SQLite and "
         "Mobibench traces measure 0.20-0.35 fsyncs per write."),
    Axis("history_multiple", 0.25, 16.0, 1.0,
         "The history size H is not given; the notebook's history sweep runs 0.25-16 times the cache (default: "
         "as many blocks as the cache).", scale="log"),
    Axis("evict_at_sync", 0.0, 1.0, True,
         "Ambiguity table: whether a sync, which Sec. II.2 calls a flush like the 5 s one, also evicts the "
         "flagged blocks it writes back (it matters only with syncs).", scale="choice", choices=(True, False)),
))

EXPLAIN = ("history_multiple",)  # the models' history size (the notebook's history table runs the real traces)

HEADLINE = (
    "Fig. 5: miss ratio (all references) lower with write_once at every cache size",
    "Fig. 5: the gain is larger for small caches",
    "Fig. 5: miss ratio (all references) 5-33% lower (smallest gain)",
    "Fig. 5: miss ratio (all references) 5-33% lower (largest gain)",
    "Fig. 6: equal miss ratio with 1/4 of the cache or less (best point)",
    "Fig. 6: equal miss ratio with 1/4 of the cache or less at two sizes (points A and B)",
    "Figs. 7-8: the eviction, not the smaller cache, keeps the time (write_once at 1/4 faster than lru_flush at "
    "1/4)",
)

# CPU seconds per point (time.process_time, warm, 6 Latin-hypercube points and the default): ci 0.5-1.0 (default
# 0.3), quick 2.4-4.7 (mean 3.4; default 1.2), paper 4.7-10.7 (mean 7.6; default 2.4). At the default point ci
# and quick give every headline verdict of paper scale (the values move by up to ~0.04).
MAP_SCALE = {"reduced": "ci", "full": "quick"}

SEED = 0
FIG6_WORKLOAD = "Mix1"  # the notebook's fig6_workload
SHRINK = 4  # the notebook's shrink (Figs. 7-8)
NOTEBOOK_PARAMS = {  # the notebook's policy parameters (its parameter cell; lru_flush gets the first four)
    "period_s": 5.0, "sync_scope": "file", "on_delete": "keep", "write_miss_read": False, "history_pages": None,
    "history_all_written": False, "consume_history": False, "evict_at_sync": True, "evict_clean_flagged": True}
_MODEL_INPUTS = ("hot_per_ref", "alpha", "once_share", "syncs_per_write")  # AppModel fields


def _values(values: dict) -> dict:
    unknown = set(values) - {a.name for a in SPACE.axes}
    if unknown:
        raise TypeError(f"unknown axes {sorted(unknown)}; the axes: {', '.join(a.name for a in SPACE.axes)}")
    v = {**SPACE.default(), **values}
    for a in SPACE.axes:
        if a.scale == "choice":
            if v[a.name] not in a.choices:
                raise ValueError(f"{a.name} must be one of {a.choices}, got {v[a.name]!r}")
        elif not (np.isfinite(float(v[a.name])) and a.low <= float(v[a.name]) <= a.high):
            raise ValueError(f"{a.name} must be in [{a.low}, {a.high}], got {v[a.name]!r}")
    return v


def generate(m: W.AppModel, n: int, seed: int = SEED, overlap: float = 1.0) -> Trace:
    """:func:`.workloads.generate` with the rewrites' popularity partly apart from the reads': a random
    ``1 - overlap`` share of the data blocks (a seeded stream of its own) swap their write popularity among
    themselves (a write to block b goes to sigma(b), sigma a random permutation of those blocks); reads,
    times, the write/read split and the log draws are the model's. The written-once share is fitted after
    the swap, as in the model. ``overlap=1``: :func:`.workloads.generate`'s trace exactly (a test checks)."""
    if not (0.0 <= overlap <= 1.0):
        raise ValueError(f"overlap must be in [0, 1], got {overlap}")
    is_w, rank, u, time = W._draws(m, n, seed)
    k = int(round((1.0 - overlap) * max(16, int(round(m.hot_per_ref * n)))))
    if k > 1:
        hot = max(16, int(round(m.hot_per_ref * n)))
        rng = np.random.default_rng([seed, W._stream(m), 2])
        moved = rng.permutation(hot)[:k]
        sigma = np.arange(hot)
        sigma[moved] = moved[rng.permutation(k)]
        rank = np.where(is_w, sigma[rank], rank)
    draws = (is_w, rank, u, time)
    x = W.log_share(m, n, seed, draws)  # as workloads.generate from here on
    log = is_w & (u < x)
    page = rank.astype(np.int64)
    page[log] = (1 << 32) + np.arange(int(log.sum()))
    file = np.where(log, 1, 0).astype(np.int32)
    op, off, size = is_w.astype(np.int8), page * W.PG, np.full(n, W.PG)
    if m.syncs_per_write > 0:
        time, op, off, size, file = W._with_syncs(m, seed, time, op, off, size, file)
    return Trace(time, op, off, size, name=f"writeonce/{m.name}", source=f"write_once model {m}, overlap {overlap}",
                 meta={"log_share": x, "model": dataclasses.asdict(m), "write_hot_overlap": overlap}, file=file)


def models(scale: str, v: dict, seed: int = SEED) -> dict[str, Trace]:
    """The nine models at the point ``v``: the notebook's (:func:`.workloads.models`) at the default inputs."""
    d = SPACE.default()
    over = {k: float(v[k]) for k in _MODEL_INPUTS if v[k] != d[k]}
    overlap = float(v["write_hot_overlap"])
    if overlap == 1.0:
        return W.models(scale, seed, **over)
    cap = catalog._SYNTH_REQUESTS[scale]  # as workloads.models
    out = {}
    for w in W.TABLE2:
        m = W.model(w, **over)
        out[f"writeonce/{w}"] = generate(m, min(cap, m.references), seed, overlap)
    return out


def _cases(traces: dict[str, Trace], v: dict, six: list[str]):
    """Every run the headline rows read at the point ``v``, each once: Fig. 5's two policies at every size,
    Fig. 6's fine grid on ``six``, Figs. 7-8's lru_flush at C and write_once and lru_flush at C / 4 (lru_flush at
    C is Fig. 5's run). Returns the unique cases ``(trace, policy, capacity, params)``, the size grids and the
    parameters of each policy's run at a capacity."""
    s = float(v["cache_scale"])
    fractions = tuple(min(f * s, 1.0) for f in E.FRACTIONS)
    fine = tuple(min(f * s, 1.0) for f in E.FINE)
    mult = float(v["history_multiple"])
    pb, pp = E.split({**NOTEBOOK_PARAMS, "evict_at_sync": bool(v["evict_at_sync"])})

    def par(policy: str, cap: int) -> dict:
        if policy == E.BASELINE:
            return pb
        return pp if mult == 1.0 else {**pp, "history_pages": int(round(mult * cap))}  # None: H = the cache

    want = []
    for tr in traces.values():
        fp = tr.to_pages().n_unique
        for f in fractions:
            c = E._cap(fp, f)
            q = max(1, c // SHRINK)
            want += [(tr, E.BASELINE, c), (tr, E.PROPOSED, c), (tr, E.PROPOSED, q), (tr, E.BASELINE, q)]
        if tr.name in six:
            for c in sorted({E._cap(fp, f) for f in fine}):
                want += [(tr, E.BASELINE, c), (tr, E.PROPOSED, c)]
    cases, seen = [], set()
    for tr, pol, c in want:
        if (tr.name, pol, c) not in seen:
            seen.add((tr.name, pol, c))
            cases.append((tr, pol, c, par(pol, c)))
    return cases, fractions, fine


def tables(traces: dict[str, Trace], v: dict, fig6: str | None = FIG6_WORKLOAD):
    """``red``, ``eq6`` and ``q78`` (the tables :func:`.claims.claims` reads) on ``traces`` at the point ``v``
    (its cache scale, history and eviction at a sync; the model inputs are in the traces), as
    :func:`.experiments.reductions` of :func:`.experiments.miss_curves`, :func:`.experiments.equal_miss_sizes`
    and :func:`.experiments.quarter_cache` give them (the columns the claims read), from one pass of
    :func:`.experiments.runs` over the unique runs; write_once's history is ``history_multiple`` times each
    run's cache. ``fig6``: the model of Fig. 6's search (None: every trace, as the notebook does for the real
    traces)."""
    six = list(traces) if fig6 is None else [f"writeonce/{fig6}"]
    cases, fractions, fine = _cases(traces, v, six)
    res = {(tr.name, pol, c): r for (tr, pol, c, _), r in zip(cases, E.runs(cases), strict=True)}
    curves, q78 = [], []
    for tr in traces.values():
        fp = tr.to_pages().n_unique
        n = tr.name
        for f in fractions:
            c = E._cap(fp, f)
            q = max(1, c // SHRINK)
            for pol in (E.BASELINE, E.PROPOSED):
                r = res[(n, pol, c)]
                curves.append({"workload": n, "policy": pol, "capacity_blocks": c, "miss_ratio": r["miss_ratio"],
                               "flash_reads": r["flash_reads"], "fraction": f, "footprint_blocks": fp})
            b, p, k = res[(n, E.BASELINE, c)], res[(n, E.PROPOSED, q)], res[(n, E.BASELINE, q)]
            q78.append({"workload": n, "fraction": f, "capacity_blocks": c, "write_once_blocks": q,
                        "miss_ratio": b["miss_ratio"], "miss_ratio_wo": p["miss_ratio"],
                        "miss_ratio_lru_q": k["miss_ratio"], "time_s": b["time_s"], "time_wo_s": p["time_s"],
                        "time_ratio": p["time_s"] / b["time_s"], "time_ratio_lru_q": k["time_s"] / b["time_s"],
                        "energy_j": b["energy_j"], "energy_wo_j": p["energy_j"],
                        "energy_reduction": 1 - p["energy_j"] / b["energy_j"],
                        "energy_reduction_lru_q": 1 - k["energy_j"] / b["energy_j"],
                        "refresh_share": b["refresh_j"] / b["energy_j"], "flash_writes": b["flash_writes"],
                        "flash_writes_wo": p["flash_writes"], "flash_writes_lru_q": k["flash_writes"]})
    eq6 = [_equal_miss(traces[n], fine, res) for n in six]
    return E.reductions(pl.DataFrame(curves)), pl.concat(eq6, how="vertical_relaxed"), pl.DataFrame(q78)


def _equal_miss(tr: Trace, fine, res: dict) -> pl.DataFrame:
    """:func:`.experiments.equal_miss_sizes` from the runs ``res`` (the same search)."""
    fp = tr.to_pages().n_unique
    caps = sorted({E._cap(fp, f) for f in fine})
    base = [res[(tr.name, E.BASELINE, c)]["miss_ratio"] for c in caps]
    prop = [res[(tr.name, E.PROPOSED, c)]["miss_ratio"] for c in caps]
    rows = E.equal_size_rows(tr.name, fp, caps, base, prop)
    return pl.DataFrame(rows, schema={"workload": pl.String, "capacity_blocks": pl.Int64, "fraction": pl.Float64,
                                      "miss_ratio": pl.Float64, "write_once_blocks": pl.Float64,
                                      "size_ratio": pl.Float64})


def headline(rows: pl.DataFrame) -> pl.DataFrame:
    """The HEADLINE rows of a ledger table, in its order."""
    return rows.filter(pl.col("claim").is_in(list(HEADLINE)))


_NO_TAB2 = pl.DataFrame(schema={"workload": pl.String})  # the headline rows read no Table 2 statistics


def point(scale: str = "ci", **values) -> pl.DataFrame:
    """Ledger rows (the notebook's :func:`.claims.claims`) of every HEADLINE claim at the point ``values``
    (missing axes take their default) on the nine models at ``scale``."""
    v = _values(values)
    red, eq6, q78 = tables(models(scale, v), v)
    return headline(C.claims(_NO_TAB2, red, eq6, q78))


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    """Ledger rows of the HEADLINE claims on each real stand-in trace present (the four Android SQLite
    replays and the Mobibench log, replayed whole at every scale with the notebook's replay settings, as the
    notebook does at quick and paper scale), at the default point; workload = the ledger's name of the
    trace (``android_sql/<app>``, ``android/mobigen-facebook``). An empty ledger frame when none is present."""
    reals = W.real_traces("paper")  # the real traces have no scale of their own: whole, as at quick and paper
    if not reals:
        return L.table([])
    red, eq6, q78 = tables(reals, SPACE.default(), fig6=None)
    return headline(C.claims(_NO_TAB2, red, eq6, q78))
