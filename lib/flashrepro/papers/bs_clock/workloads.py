"""Paper 1 workloads: the S-Clock smartphone traces as calibrated synthetic models (Table 2), and the real
stand-ins.

Each model has the paper's Table 2 read and write counts; its two free parameters (the write-stream share
and the hot-set size) are fitted to Spatial Clock's hit ratio (Table 5) and pages written (Table 4) at a
4 MB buffer, and to nothing else. ``python -m flashrepro.papers.bs_clock`` refits them into
``data/paper/bs_clock_models.json``.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ... import paths
from ...cache import simulate
from ...traces import Op, Trace, catalog
from ...traces.sclock import TABLE2, SClockModel, generate
from ...traces.synthetic import zipf_ranks
from ..layout import PaperNumbers

CACHE_PAGES = 1024  # buffer 4 MB of 4 KiB pages (Sec. 4)
MODEL_FILE = "bs_clock_models.json"
REAL_STANDINS = ["real/android/most", "real/personal_pc/mayun", "real/personal_pc/mayun2", "real/personal_pc/mayun4",
                 "real/personal_pc/systemdisk1", "real/cloudphysics/io"]


paper_value = PaperNumbers("bs_clock.csv")  # paper_value(key, workload, ...): one printed number
paper_numbers = paper_value.table


# --- workload models ----------------------------------------------------------------------------------
# Each catalog model ``bsclock/<name>``: (its Table 2 workload, its kind). Web browsing's default follows the
# paper's description (small files, random-leaning, :class:`WebFilesModel`); its first model, a Zipf hot set
# plus a sequential write stream whose hot set always fits the buffer, stays as ``web-browsing-hotset``.
MODELS = {
    "web-browsing": ("web-browsing", "files"),
    "web-browsing-hotset": ("web-browsing", "hotset"),
    "video-streaming": ("video-streaming", "hotset"),
    "mixed-apps": ("mixed-apps", "hotset"),
}
# kind -> (its two fitted parameters: share, hot-set size), the grid of log2 hot-set sizes searched
KIND_PARAMS = {"hotset": ("write_stream_share", "hot_pages"), "files": ("new_file_share", "hot_files")}
KIND_LOG2_HOT = {"hotset": tuple(float(x) for x in np.arange(6, 16.01, 0.5)),  # 64 .. 65536 pages
                 "files": tuple(float(x) for x in np.arange(2, 12.01, 0.5))}  # 4 .. 4096 files


def table2_workload(name: str) -> str:
    """The Table 2 workload a model or trace name stands for (``bsclock/web-browsing-hotset@hot=81`` ->
    ``web-browsing``); the name itself if it is none."""
    short = name.split("/", 1)[-1].split("@", 1)[0]
    return MODELS[short][0] if short in MODELS else short


def make_model(kind: str, n_reads: int, n_writes: int, share: float, hot: int):
    return (SClockModel(n_reads, n_writes, share, hot) if kind == "hotset"
            else WebFilesModel(n_reads, n_writes, share, hot))


def generate_model(model, seed: int, name: str, n_requests: int | None = None) -> Trace:
    gen = generate_web if isinstance(model, WebFilesModel) else generate
    return gen(model, seed, name=name, n_requests=n_requests)


def _sc_stats(model, seed: int = 0) -> tuple[float, int]:
    r = simulate(generate_model(model, seed, "fit"), "spatial_clock", CACHE_PAGES).to_dict()
    return r["hit_ratio"], r["device_writes"]


def calibrate(name: str, seed: int = 0, progress: bool = True) -> dict:
    """Fit model ``name``'s two parameters (the share: stream or new-file accesses; the hot-set size: pages
    or files) so that Spatial Clock at 4 MB gives the paper's hit ratio (Table 5) and pages written (Table
    4) on its Table 2 workload: a grid, then a pattern search on the summed squared relative errors.
    Nothing about BS-CLOCK enters."""
    workload, kind = MODELS[name]
    n_reads, n_writes = TABLE2[workload]
    hit_t = paper_value("hit_ratio_spatial_clock", workload)
    written_t = paper_value("pages_written_spatial_clock", workload)

    def loss(s, log_h):
        h, w = _sc_stats(make_model(kind, n_reads, n_writes, float(np.clip(s, 0, 1)), int(round(2**log_h))), seed)
        return ((h - hit_t) / hit_t) ** 2 + ((w - written_t) / written_t) ** 2

    grid = [(s, lh) for s in np.linspace(0, 0.9, 19) for lh in KIND_LOG2_HOT[kind]]
    scores = [loss(s, lh) for s, lh in tqdm(grid, desc=f"calibrate {name}", disable=not progress, leave=False)]
    s, lh = grid[int(np.argmin(scores))]
    best, step_s, step_h = min(scores), 0.025, 0.25
    while step_s > 1e-4:
        improved = False
        for ds, dh in ((step_s, 0), (-step_s, 0), (0, step_h), (0, -step_h)):
            cand = loss(s + ds, lh + dh)
            if cand < best:
                best, s, lh, improved = cand, float(np.clip(s + ds, 0, 1)), lh + dh, True
        if not improved:
            step_s, step_h = step_s / 2, step_h / 2
    model = make_model(kind, n_reads, n_writes, round(float(s), 5), int(round(2**lh)))
    hit, written = _sc_stats(model, seed)
    return {"model": name, "workload": workload, "kind": kind, **dataclasses.asdict(model), "seed": seed,
            "sc_hit_ratio": hit, "sc_hit_ratio_target": hit_t, "sc_pages_written": written,
            "sc_pages_written_target": written_t}


FAMILY_FILE = "bs_clock_fit_family.json"
FIT_SLACK = 0.005  # "equally good": each target's relative error within 0.5 points of the best fit's


def fit_family(name: str, seed: int = 0, log2_hot=None, progress: bool = True) -> list[dict]:
    """Every hot-set size on a grid (pages, or files for the files model) with its best share (a
    golden-section search on the same loss as :func:`calibrate`), and whether the fit is as good as the best
    one: each target's relative error at most the best fit's error on it plus :data:`FIT_SLACK`.

    The two calibration targets (Tables 4-5, Spatial Clock) do not pin both parameters when they say the
    same thing (video streaming: 67 reads, so hit ratio and pages written are one statistic); the
    predictions are then a range over this family. This is a model-selection rule,
    not a verdict tolerance."""
    workload, kind = MODELS[name]
    share_key, hot_key = KIND_PARAMS[kind]
    n_reads, n_writes = TABLE2[workload]
    hit_t = paper_value("hit_ratio_spatial_clock", workload)
    written_t = paper_value("pages_written_spatial_clock", workload)
    g = (5 ** 0.5 - 1) / 2
    rows = []
    for lh in tqdm(KIND_LOG2_HOT[kind] if log2_hot is None else log2_hot, desc=f"family {name}",
                   disable=not progress, leave=False):
        h = int(round(2 ** lh))
        cache = {}

        def err(s, h=h, cache=cache):
            s = round(float(s), 5)
            if s not in cache:
                hit, w = _sc_stats(make_model(kind, n_reads, n_writes, s, h), seed)
                cache[s] = (((hit - hit_t) / hit_t) ** 2 + ((w - written_t) / written_t) ** 2, hit, w)
            return cache[s][0]

        lo, hi = 0.0, 0.95
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        while hi - lo > 2e-4:
            if err(x1) <= err(x2):
                hi, x2 = x2, x1
                x1 = hi - g * (hi - lo)
            else:
                lo, x1 = x1, x2
                x2 = lo + g * (hi - lo)
        s = round((lo + hi) / 2, 5)
        err(s)
        _, hit, w = cache[s]
        model = make_model(kind, n_reads, n_writes, s, h)
        rows.append({"model": name, "workload": workload, "kind": kind, **dataclasses.asdict(model), "seed": seed,
                     "share": s, "hot": h, "sc_hit_ratio": hit,
                     "sc_hit_ratio_target": hit_t, "sc_pages_written": w, "sc_pages_written_target": written_t,
                     "hit_error": abs(hit - hit_t) / hit_t, "written_error": abs(w - written_t) / written_t})
    best_h = min(r["hit_error"] for r in rows)
    best_w = min(r["written_error"] for r in rows)
    for r in rows:
        r["equally_good"] = bool(r["hit_error"] <= best_h + FIT_SLACK and r["written_error"] <= best_w + FIT_SLACK)
    return rows


def _model_of(row: dict):
    cls = WebFilesModel if row.get("kind", "hotset") == "files" else SClockModel
    fields = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in row.items() if k in fields})


def load_family(only_good: bool = True) -> pl.DataFrame:
    """The fit family committed in data/paper (``python -m flashrepro.papers.bs_clock --family``): one row
    per fit, ``hot`` the hot-set size (pages for the hot-set models, files for the files model)."""
    rows = json.loads((paths.paper / FAMILY_FILE).read_text())
    keep = ("model", "workload", "kind", "share", "hot", "seed", "sc_hit_ratio", "sc_hit_ratio_target",
            "sc_pages_written", "sc_pages_written_target", "hit_error", "written_error", "equally_good")
    df = pl.DataFrame([{k: r[k] for k in keep} for r in rows])
    return df.filter(pl.col("equally_good")) if only_good else df


def family_traces(scale: str, seed: int, workloads=tuple(MODELS), every: int = 1) -> dict[str, Trace]:
    """One trace per equally good fit of each model in ``workloads`` (named ``bsclock/<model>@hot=<size>``;
    ``every``: every so many of a model's fits, the first and last always), cut like the catalog's models
    at ``ci`` and ``quick`` scale."""
    cap = catalog.SCALES[scale]
    out = {}
    rows = [r for r in json.loads((paths.paper / FAMILY_FILE).read_text())
            if r["equally_good"] and r["model"] in workloads]
    for name in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == name]
        idx = list(range(0, len(mine), every))
        if idx[-1] != len(mine) - 1:
            idx.append(len(mine) - 1)
        for i in idx:
            m = _model_of(mine[i])
            n = None if cap is None or cap >= m.n_reads + m.n_writes else cap
            tname = f"bsclock/{name}@hot={mine[i]['hot']}"
            out[tname] = generate_model(m, seed, tname, n)
    return out


def load_models() -> dict:
    """The calibrated models committed in data/paper (written by ``python -m flashrepro.papers.bs_clock``),
    by model name (``web-browsing``, ``web-browsing-hotset``, ...)."""
    return {r["model"]: _model_of(r) for r in json.loads((paths.paper / MODEL_FILE).read_text())}


def calibration_table() -> pl.DataFrame:
    """One row per committed model: its kind, its two fitted parameters (``share``: the write-stream share
    or the new-file share; ``hot``: hot-set pages or hot files), and Spatial Clock against its targets."""
    rows = []
    for r in json.loads((paths.paper / MODEL_FILE).read_text()):
        share_key, hot_key = KIND_PARAMS[r["kind"]]
        rows.append({"model": f"bsclock/{r['model']}", "workload": r["workload"], "kind": r["kind"],
                     "n_reads": r["n_reads"], "n_writes": r["n_writes"], "share": r[share_key],
                     "hot": r[hot_key], "hot_unit": "files" if r["kind"] == "files" else "pages",
                     "seed": r["seed"], "sc_hit_ratio": r["sc_hit_ratio"],
                     "sc_hit_ratio_target": r["sc_hit_ratio_target"], "sc_pages_written": r["sc_pages_written"],
                     "sc_pages_written_target": r["sc_pages_written_target"],
                     "hit_error": abs(r["sc_hit_ratio"] - r["sc_hit_ratio_target"]) / r["sc_hit_ratio_target"],
                     "written_error": abs(r["sc_pages_written"] - r["sc_pages_written_target"])
                     / r["sc_pages_written_target"]})
    return pl.DataFrame(rows)


def model_trace(name: str, n: int, seed: int) -> Trace:
    """The calibrated model ``name`` (its full Table 2 length, or the first ``n`` requests)."""
    m = load_models()[name]
    return generate_model(m, seed, f"bsclock/{name}", None if n >= m.n_reads + m.n_writes else n)


for _w, _desc in (("web-browsing", "web browsing: small files read and written, scattered (the paper's Sec. 4 text)"),
                  ("web-browsing-hotset", "web browsing, alternative: Zipf hot set + sequential write stream"),
                  ("video-streaming", "video streaming"), ("mixed-apps", "mixed applications")):
    catalog.add(catalog.Workload(f"bsclock/{_w}", f"S-Clock {_desc} (BS-CLOCK Table 2), calibrated synthetic model",
                                 model=model_trace, model_args=(_w,), papers=(1,)))


def workloads(scale: str, seed: int, real: bool = True, names=tuple(TABLE2),
              capacity: int = CACHE_PAGES) -> dict[str, Trace]:
    """The paper workload models ``names`` (keys of :data:`MODELS`; cut to the catalog's cap at ``ci`` and
    ``quick`` scale) and, when ``real`` and present, the real stand-ins that fill a ``capacity``-page buffer.
    A stand-in with fewer distinct pages than the buffer never evicts, so every policy writes nothing and
    ties (the Android MOST trace: 438 distinct pages against 1024); it is left out of the comparisons."""
    out = {f"bsclock/{w}": catalog.get(f"bsclock/{w}", scale=scale, seed=seed) for w in names}
    if real and scale != "ci":
        for n in REAL_STANDINS:
            if catalog.available(n):
                tr = catalog.get(n, scale=scale, seed=seed)
                if len(np.unique(tr.to_pages().page)) > capacity:
                    out[n] = tr
    return out


def missing_standins(scale: str, real: bool = True) -> list[str]:
    """The real stand-ins :func:`workloads` would run but the trace folder lacks (none at ``ci``, which runs no
    stand-in, or without ``real``)."""
    if not real or scale == "ci":
        return []
    return [n for n in REAL_STANDINS if not catalog.available(n)]


def table2(traces: dict[str, Trace]) -> pl.DataFrame:
    rows = []
    for name, tr in traces.items():
        w = table2_workload(name) if name.startswith("bsclock/") else None
        rows.append({"workload": name, "reads": tr.n_reads, "writes": tr.n_writes,
                     "paper_reads": TABLE2[w][0] if w else None, "paper_writes": TABLE2[w][1] if w else None})
    return pl.DataFrame(rows)


# --- web browsing as the paper describes it: small files read and written continuously ----------------------
@dataclasses.dataclass(frozen=True)
class WebFilesModel:
    """Web browsing after Sec. 4's description: "many small files read and written continuously, so its reads
    and writes are random-leaning" (the text under Table 2).

    A page-level stream of whole-file accesses with exactly Table 2's read and write counts:

    * a file access creates a new file with probability ``new_file_share`` (a download or a cache entry:
      its pages written in order), and otherwise reads or rewrites, whole and in order, one of ``hot_files``
      existing files with Zipf(``hot_alpha``) popularity; rewrites take the share of the hot accesses that
      gives Table 2's write count;
    * a file is Geometric(1 / ``file_pages``) pages (at least 1, mean ``file_pages``, at most ``SLOT_PAGES``):
      a small file;
    * every file sits in its own randomly chosen ``SLOT_PAGES``-page slot of a ``span_pages`` address space,
      so a file's pages are contiguous and different files are not (random-leaning placement).

    ``new_file_share`` and ``hot_files`` are the two fitted parameters (the same targets as the hot-set
    models: Spatial Clock's hit ratio, Table 5, and pages written, Table 4, at 4 MB). ``file_pages``,
    ``hot_alpha``, ``span_pages`` and the one-slot-per-file placement are modelling choices, not fitted.
    """

    n_reads: int
    n_writes: int
    new_file_share: float
    hot_files: int
    file_pages: float = 4.0
    hot_alpha: float = 0.9
    span_pages: int = 2**18  # 1 GiB of 4 KiB pages

    def __post_init__(self):
        if not 0 <= self.new_file_share <= 1 or self.hot_files < 1 or self.file_pages < 1:
            raise ValueError(f"bad model parameters {self}")


SLOT_PAGES = 64  # a file's slot; files are capped at this many pages


def generate_web(model: WebFilesModel, seed: int, name: str = "web-files", n_requests: int | None = None) -> Trace:
    """The model's trace (``n_requests`` caps its length)."""
    n = model.n_reads + model.n_writes
    k = int(2 * n / model.file_pages) + 1000  # file accesses drawn; more than the Table 2 counts need
    while True:
        out = _draw_web(model, seed, k, name, n_requests)
        if out is not None:
            return out
        k *= 4


def _draw_web(model: WebFilesModel, seed: int, k: int, name: str, n_requests: int | None) -> Trace | None:
    # one generator per component (common random numbers): a change of one parameter moves the trace
    # smoothly, so the calibration's loss is not dominated by reshuffled draws
    r_kind, r_hot, r_new, r_place, r_zipf, r_op = (np.random.default_rng(s)
                                                    for s in np.random.SeedSequence(seed).spawn(6))
    n = model.n_reads + model.n_writes
    is_new = r_kind.random(k) < model.new_file_share
    n_new = int(is_new.sum())
    p = 1.0 / model.file_pages  # Geometric(p) >= 1 pages, mean file_pages
    size = np.minimum(np.concatenate([r_hot.geometric(p, model.hot_files), r_new.geometric(p, n_new)]), SLOT_PAGES)
    n_slots = max(model.span_pages // SLOT_PAGES, 2 * (model.hot_files + k))
    start = r_place.permutation(n_slots)[:model.hot_files + n_new] * SLOT_PAGES
    fid = np.empty(k, np.int64)
    fid[is_new] = model.hot_files + np.arange(n_new)
    fid[~is_new] = zipf_ranks(r_zipf, model.hot_files, k - n_new, model.hot_alpha)  # sizes are iid: ranks are ids
    pages_per_access = size[fid]
    # rewrite share of hot accesses: Table 2's write count over the first n pages (then cut exactly below)
    reach = min(int(np.searchsorted(np.cumsum(pages_per_access), n)) + 1, k)
    new_pages = int(pages_per_access[:reach][is_new[:reach]].sum())
    hot_pages = int(pages_per_access[:reach][~is_new[:reach]].sum())
    q = float(np.clip((model.n_writes - new_pages) / max(hot_pages, 1), 0, 1))
    acc_write = is_new | (r_op.random(k) < q)
    # expand accesses to page references
    ref_acc = np.repeat(np.arange(k), pages_per_access)
    within = np.arange(len(ref_acc)) - np.repeat(np.cumsum(pages_per_access) - pages_per_access, pages_per_access)
    page = start[fid[ref_acc]] + within
    w = acc_write[ref_acc]
    # exactly Table 2's counts: keep a reference while its kind is under its count
    keep = np.where(w, np.cumsum(w) <= model.n_writes, np.cumsum(~w) <= model.n_reads)
    page, w = page[keep], w[keep]
    if (int(w.sum()), int((~w).sum())) != (model.n_writes, model.n_reads):
        return None  # too few file accesses drawn: the caller draws more
    if n_requests is not None:
        page, w = page[:n_requests], w[:n_requests]
    m = len(page)
    return Trace(np.arange(m) * 1e-3, np.where(w, Op.WRITE, Op.READ).astype(np.int8), page * 4096,
                 np.full(m, 4096), name=name, source=f"web files model {model}, seed={seed}")
