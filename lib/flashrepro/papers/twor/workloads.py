"""Paper 4 workloads: fio's zipf streams on 8 GB, and the TPC-C and LinkBench models of a database growing
from 1 GB to 10 GB (Table 2), with their Fig. 1 (skew) and Fig. 2 (frozen pages) statistics.

Paper scale is Table 2: 90M fio writes per run; 60M and 600M writes for the two models. Smaller scales divide
the pages per line and the number of lines (``SCALES``) and the writes with them, keeping writes per logical
page and the over-provisioning. Two OLTP models, each with two parameters fitted only to Figs. 1-2
(``python -m flashrepro.papers.twor``, ``make fit4``):

* ``"lifecycle"`` (:class:`LifeCycleDB`, the default): a page is hot when inserted, cools as newer pages
  arrive, and either stays warm or freezes: the insert -> warm -> frozen life cycle 2R++'s 01 stage targets;
* ``"stationary"`` (:class:`flashrepro.traces.oltp.GrowingDB`): a fixed Zipf-like popularity per page and
  insert-only pages, the labelled alternative.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator

import numpy as np
import polars as pl
from numba import njit

from ... import paths
from ...ftl import GEOMETRIES, Geometry
from ...jitkit import PREFETCH_DISTANCE as PREFETCH
from ...jitkit import prefetch
from ...traces.fio import FioZipf
from ...traces.oltp import GrowingDB, Growth, calibrate, stream_stats
from ..layout import PaperNumbers

MODEL_FILE = "2rpp_models.json"
PAPER_FILE = "2rpp.csv"
GIB_PAGES = 2**30 // 4096
THETAS = [0.5, 0.9, 1.1]
# Table 2: writes of 4 KiB
FIO_WRITES = 90_000_000
OLTP_WRITES = {"tpcc": 60_000_000, "linkbench": 600_000_000}
# Fig. 1 / Fig. 2 targets, the only statistics the models are fitted to
TARGETS = {"tpcc": {"top20": 0.90, "frozen60": 0.40}, "linkbench": {"top20": 0.80, "frozen60": 0.40}}
SCALES = {"tiny": (32, 16), "ci": (32, 8), "quick": (8, 4), "eighth": (4, 2), "paper": (1, 1)}  # divide P, lines
MODELS = ["lifecycle", "stationary"]  # the OLTP models; the first is the default
REAL_STANDINS = ["real/mqsim/tpcc", "real/kv/ycsb-ext4", "real/kv/ycsb-f2fs", "real/kv/ycsb-btrfs"]


paper_value = PaperNumbers(PAPER_FILE, ("workload", "policy"))  # paper_value(key, workload, policy)
paper_numbers = paper_value.table


# --- geometry and workloads at a scale -------------------------------------------------------------------
def geometry(name: str, scale: str, spare: float | None = None) -> Geometry:
    """Table 1's geometry, divided at small scales; the logical share of the physical space is kept.

    ``spare``: the over-provisioning instead of Table 1's (12.5%; Table 2 and section 4 say 10%): the same
    logical space and line size, ``ceil(logical * (1 + spare) / P)`` lines."""
    g = GEOMETRIES[name]
    dp, dl = SCALES[scale]
    if (dp, dl) != (1, 1):
        P, L = g.pages_per_line // dp, g.n_lines // dl
        g = Geometry(P, L, g.logical_pages * P * L // g.physical_pages)
    if spare is None:
        return g
    P = g.pages_per_line
    return Geometry(P, -(-int(np.ceil(g.logical_pages * (1 + spare) - 1e-9)) // P), g.logical_pages)


def oltp_model(workload: str, scale: str = "paper", seed: int = 0, fitted: bool = True, model: str = "lifecycle"):
    """The OLTP model ``model`` ("lifecycle" or "stationary") of ``workload`` at a scale. The stationary
    stream is named ``<workload>/stationary``."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    g = geometry("10GB", scale)
    frac = g.logical_pages / GEOMETRIES["10GB"].logical_pages
    initial, n = max(1, int(round(GIB_PAGES * frac))), int(round(OLTP_WRITES[workload] * frac))
    if model == "stationary":
        params = load_models()[("stationary", workload)] if fitted else {"skew": 0.8, "insert_only": 0.5}
        return GrowingDB(f"{workload}/stationary", g.logical_pages, initial, g.logical_pages, n, params["skew"],
                         params["insert_only"], seed)
    params = load_models()[("lifecycle", workload)] if fitted else {"skew": 1.0, "freeze": 0.5}
    return LifeCycleDB(workload, g.logical_pages, initial, g.logical_pages, n, params["skew"], params["freeze"],
                       seed=seed)


def fio_stream(theta: float, scale: str = "paper", seed: int = 0, mode: str = "fio", prefilled: bool = True,
               hash: str = "golden64") -> FioZipf:
    """fio's zipf stream on the 8 GB device at a scale; ``prefilled``: the file is laid out first (see
    :attr:`flashrepro.traces.fio.FioZipf.prefill`); ``hash``: fio's rank -> block multiplier."""
    g = geometry("8GB", scale)
    frac = g.logical_pages / GEOMETRIES["8GB"].logical_pages
    return FioZipf(theta, g.logical_pages, int(round(FIO_WRITES * frac)), seed, mode, hash=hash, prefilled=prefilled)


def load_models() -> dict[tuple[str, str], dict]:
    """The fitted OLTP model parameters committed in data/paper (``python -m flashrepro.papers.twor``),
    by ``(model, workload)``."""
    rows = json.loads((paths.paper / MODEL_FILE).read_text())
    return {(r["model"], r["workload"]): r for r in rows}


# --- the life-cycle model --------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _lifecycle_writes(pos, n_writes, initial, final, members, cnt0, u, window, hot_share, power, out, warm_x):
    """Writes ``pos .. pos + len(out) - 1``; ``cnt0[size]`` = warm (never-freezing) pages among the first
    ``size``; three uniforms per write in ``u``.

    A warm write's page is ``members[int(u ** power * warm)]``, a random read in megabytes. The powers come
    first, into ``warm_x`` (the same operation on the same draw, so the same page), which lets the write loop
    prefetch that page ``PREFETCH`` writes ahead (:data:`flashrepro.jitkit.PREFETCH_DISTANCE`; with the database's
    size then: a hint only)."""
    n = out.shape[0]
    for j in range(n):
        warm_x[j] = u[3 * j + 2] ** power
    last = members.shape[0] - 1
    grow = final - initial  # at most n_writes: the size grows by 0 or 1 page per write
    q = (grow * pos) // n_writes  # pages inserted before write i: (grow * i) // n_writes, kept with its remainder
    r = grow * pos - q * n_writes
    for j in range(n):
        size = initial + q
        if j + PREFETCH < n:
            prefetch(members, min(last, int(warm_x[j + PREFETCH] * cnt0[size])))
        r += grow
        if r >= n_writes:  # (grow * (i + 1)) // n_writes passed q: the next page is inserted
            r -= n_writes
            q += 1
            out[j] = size
            continue
        warm = cnt0[size]
        page = -1
        if u[3 * j] < hot_share or warm == 0:
            # hot: a recently inserted page, its age in inserted pages geometric with mean ``window``
            age = int(-np.log(1.0 - u[3 * j + 1]) * window)
            if age < size:
                page = size - 1 - age
        if page < 0:
            if warm > 0:
                page = members[int(warm_x[j] * warm)]  # warm: the older, the more popular
            else:
                page = int(u[3 * j + 2] * size)
        out[j] = page


@dataclasses.dataclass
class LifeCycleDB(Growth):
    """A growing database whose pages are hot when inserted, cool as newer pages arrive, and then either
    stay warm or freeze (never written again).

    Like :class:`~flashrepro.traces.oltp.GrowingDB`, the database is loaded at ``initial_pages`` (the
    prefill) and grows linearly to ``final_pages`` by first writes of the next page. Every other write is,
    with probability ``hot_share``, *hot*: it updates the page inserted ``a`` insertions ago, ``a``
    geometric with mean ``window * final_pages`` (a page cools as newer ones arrive); otherwise it is
    *warm*: an update of a page that never freezes, the ``floor(n * u ** (1 + skew))``-th oldest of the
    ``n`` such pages (``u`` uniform: ``skew`` 0 is uniform, larger puts the writes on the oldest, loaded
    tables first). A page freezes with probability ``freeze``: after its hot period it is never written
    again. ``skew`` and ``freeze`` are fitted to Figs. 1-2 only; ``hot_share`` (5%) and ``window`` (2% of
    the final database) are settings, not fitted.
    """

    freeze: float
    hot_share: float = 0.05
    window: float = 0.02
    seed: int = 0

    def __post_init__(self):
        super().__post_init__()
        if not (0 <= self.hot_share <= 1 and 0 <= self.freeze < 1 and self.window > 0 and self.skew >= 0):
            raise ValueError("need skew >= 0, 0 <= hot_share <= 1, 0 <= freeze < 1 and window > 0")

    def frozen_pages(self) -> np.ndarray:
        """Whether each page (in insertion order) freezes after its hot period."""
        return np.random.default_rng([self.seed, 3]).random(self.final_pages) < self.freeze

    def chunks(self, size: int = 1 << 22) -> Iterator[np.ndarray]:
        frozen = self.frozen_pages()
        members = np.flatnonzero(~frozen).astype(np.int32)  # int32: a random read per write, half the cache misses
        cnt0 = np.concatenate([[0], np.cumsum(~frozen)]).astype(np.int64)
        rng = np.random.default_rng([self.seed, 4])
        window = self.window * self.final_pages
        u = np.empty(3 * min(size, self.n_writes))  # the uniforms: one buffer (a new one per chunk faults its pages in)
        warm_x = np.empty(min(size, self.n_writes))  # their powers (see _lifecycle_writes)
        pos = 0
        while pos < self.n_writes:
            m = min(size, self.n_writes - pos)
            out = np.empty(m, np.int32)
            _lifecycle_writes(pos, self.n_writes, self.initial_pages, self.final_pages, members, cnt0,
                              rng.random(out=u[:3 * m]), window, self.hot_share, 1.0 + self.skew, out, warm_x[:m])
            pos += m
            yield out


def calibrate_lifecycle(base: LifeCycleDB, top20: float, frozen60: float, rounds: int = 2, steps: int = 8,
                        progress=None) -> tuple[LifeCycleDB, list[dict]]:
    """Fit ``freeze`` to Fig. 2's frozen share at 60% progress and ``skew`` to Fig. 1's top-20% write
    share by alternating bisections (each statistic rises with its own parameter), as
    :func:`flashrepro.traces.oltp.calibrate` does for the stationary model."""
    return calibrate(base, top20, frozen60, rounds, steps, progress, frozen_field="freeze", frozen_hi=0.99,
                     skew_hi=32.0)


def fit_models(seed: int = 0, scale: str = "quick", models=tuple(MODELS)) -> list[dict]:
    """Fit each OLTP model to its Fig. 1 and Fig. 2 statistics and nothing else.

    Both statistics are shares, and the models keep writes per page when a scale shrinks the space, so
    the fit runs at ``quick`` scale (1/32 of the pages and writes: seconds per evaluation instead of
    minutes for LinkBench's 600M writes); the notebook reports the statistics again at its own scale."""
    out = []
    for w, target in TARGETS.items():
        for kind in models:
            base = oltp_model(w, scale, seed, fitted=False, model=kind)
            fit = calibrate if kind == "stationary" else calibrate_lifecycle
            model, hist = fit(base, target["top20"], target["frozen60"], rounds=2, steps=8,
                              progress=lambda r, w=w: print(f"  {w}: {r}", file=sys.stderr, flush=True))
            last = hist[-1]
            params = ({"skew": model.skew, "insert_only": model.insert_only} if kind == "stationary"
                      else {"skew": model.skew, "freeze": model.freeze, "hot_share": model.hot_share,
                            "window": model.window})
            out.append({"model": kind, "workload": w, **params, "seed": seed, "scale": scale,
                        "top20": last["top20"], "top20_target": target["top20"], "frozen60": last["frozen60"],
                        "frozen60_target": target["frozen60"], "evaluations": len(hist)})
    return out


# --- trace statistics (Figs. 1 and 2) ----------------------------------------------------------------------
def skew_and_frozen(scale: str, seed: int = 0, models=tuple(MODELS)) -> tuple[pl.DataFrame, pl.DataFrame,
                                                                               pl.DataFrame]:
    """Fig. 1 CDFs, Fig. 2 frozen shares over progress, and the fitted statistics beside their targets,
    for each OLTP model in ``models`` and fio at zipf 0.9 (each stream generated for the purpose; the
    notebook takes them from its runs instead, :func:`stats_tables`)."""
    streams = [oltp_model(w, scale, seed, model=m) for m in models for w in OLTP_WRITES] + [fio_stream(0.9, scale,
                                                                                                       seed)]
    return stats_tables([(st.name, stream_stats(st)) for st in streams])


def stats_tables(named_stats) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Fig. 1 CDFs, Fig. 2 frozen shares over progress, and the fitted statistics beside their targets, from
    ``(workload, StreamStats)`` pairs."""
    cdf, frozen, fit = [], [], []
    grid = np.linspace(0, 1, 21)
    for name, stats in named_stats:
        x, y = stats.cdf()
        cdf.append(pl.DataFrame({"workload": name, "page_share": x, "write_share": y}))
        frozen.append(pl.DataFrame({"workload": name, "progress": grid, "frozen_share": stats.frozen(grid)}))
        t = TARGETS.get(name.split("/")[0], {})
        fit.append({"workload": name, "top20": stats.top_share(0.2), "top20_paper": t.get("top20"),
                    "frozen60": float(stats.frozen(0.6)[0]), "frozen60_paper": t.get("frozen60")})
    return pl.concat(cdf), pl.concat(frozen), pl.DataFrame(fit)
