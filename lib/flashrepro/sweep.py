"""One sweep runner: every (policy, parameters) x workload x capacity, in-process, in a process pool or on Dask.

    from flashrepro import sweep
    res = sweep.run({"lru": {}, "clock": {"insert_referenced": [False, True]}},
                    ["synthetic/zipf-0.9", "synthetic/mixture"], [256, 1024, 4096],
                    scale="ci", executor="dask", workers=2)
    res.table        # one row per run: workload, policy, params, capacity_pages, every counter, ..., seconds
    res.failures     # tasks that raised, with their inputs and the traceback

Any experiment function at a list of points (the robustness maps, :mod:`flashrepro.robustness`):
``sweep.run_points("module:function", [kwargs, ...], executor="process")`` returns each point's polars frame
in input order and the points that raised (with their kwargs and traceback), on the same executors.

From the shell (the command lives in :mod:`flashrepro.cli`): ``flashrepro sweep --policy lru --policy
clock:insert_referenced=true,false --workload synthetic/zipf-0.9 --capacity 256 1024 --executor dask --scheduler
tcp://host:8786 --out sweep.parquet``.

How it runs
-----------
* A **task** is one workload x one (policy, parameters) x *all* capacities, so a trace is expanded to
  pages once per task. Workers load traces by catalog name (:func:`flashrepro.traces.catalog.get`, real
  files through the parse cache in ``data/interim``) and keep the last few loaded in memory, so a trace is
  parsed once per worker, not once per task. A :class:`~flashrepro.traces.Trace` object may be given
  instead of a name; it is then shipped with each task.
* **Executors**: ``"local"`` (in this process, the default), ``"process"`` (a
  :class:`concurrent.futures.ProcessPoolExecutor` of ``workers``) and ``"dask"`` (a
  ``distributed.LocalCluster`` of ``workers`` single-threaded worker processes, or the cluster at
  ``scheduler``). Results stream back as tasks finish, with a tqdm bar.
* **Determinism**: the table is sorted by the order of the inputs (workload, policy, parameter set,
  capacity), never by completion order, so every executor and worker count gives the same table. Only the
  ``seconds`` column (wall time of the run on its worker) differs between runs; :func:`stable` drops it.
* **Failures**: a task that raises is returned in :attr:`SweepResult.failures` with its inputs and
  traceback; the other tasks still run and their rows are kept.
* **Resuming**: with ``store="path.parquet"`` every finished row is written there, keyed by a hash of the
  run's inputs (workload, scale, seed, prefer, policy, parameters, capacity, flush_at_end, page_bytes,
  metrics); a re-run skips the rows already there. Rows are appended as tasks finish, and at the end of a run
  that added any the file is rewritten with this run's rows in input order (after the rows of earlier runs it
  did not ask for), so the file too is the same for every executor, but for ``seconds``.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import importlib
import itertools
import json
import os
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ._io import atomic_path

if TYPE_CHECKING:  # the functions import polars when they run: the CLI imports this module for its parser,
    import polars as pl  # and `flashrepro simulate` should not pay 0.1-0.2 s for polars

EXECUTORS = ("local", "process", "dask")
KEYS = ("workload", "policy", "params", "capacity_pages")
_TRACE_MEMO_SIZE = 4  # traces each worker keeps loaded


# --- inputs ----------------------------------------------------------------------------------------------
def expand_policies(policies) -> list[tuple[str, dict]]:
    """``(policy, params)`` pairs from any of: a name; a list of names or ``(name, params)`` pairs; a dict
    name -> grid, where a grid maps a parameter to one value or a list of values (every combination is
    run, in the order given) or is itself a list of parameter dicts. A ``(name, grid)`` pair is expanded the
    same way; a :class:`~flashrepro.cache.prototype.PythonPolicy` subclass may stand for its name."""
    if isinstance(policies, (str, type)):
        policies = [policies]
    items = policies.items() if isinstance(policies, Mapping) else policies
    out = []
    for item in items:
        name, grid = (item, {}) if isinstance(item, (str, type)) else item
        name = _policy_name(name)
        if isinstance(grid, Mapping):
            keys = list(grid)
            values = [v if isinstance(v, (list, tuple)) else [v] for v in grid.values()]
            combos = [dict(zip(keys, c, strict=True)) for c in itertools.product(*values)]
        else:
            combos = [dict(g) for g in grid]
        out += [(name, c) for c in combos]
    seen = set()
    for name, p in out:
        key = (name, params_key(p))
        if key in seen:
            raise ValueError(f"policy {name!r} with parameters {p} is listed twice")
        seen.add(key)
    return out


def _policy_name(policy) -> str:
    if isinstance(policy, type):
        from .cache import prototype

        prototype.ensure_registered(policy)
        return policy.name
    return str(policy)


def params_key(params: dict) -> str:
    """The parameters as canonical JSON (sorted keys): the ``params`` column and part of the row key."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


@dataclasses.dataclass(frozen=True)
class TraceFile:
    """A user's trace file as a sweep workload: workers read it whole through the parse cache (no ``scale``
    applies), so a task ships the path and the reader options, not the trace. ``name`` is the path as given."""

    path: str
    format: str | None = None
    opts: tuple = ()  # the reader options as sorted (key, value) pairs

    @classmethod
    def of(cls, path, format: str | None = None, **opts) -> TraceFile:
        return cls(str(path), format, tuple(sorted(opts.items())))

    @property
    def name(self) -> str:
        return self.path

    def load(self):
        from .traces import load_trace

        return load_trace(self.path, self.format, **dict(self.opts))

    def identity(self) -> list:
        """What a row of this trace depends on: the file (resolved path, size, modification time) and how it
        is read."""
        st = Path(self.path).stat()
        return [str(Path(self.path).resolve()), st.st_size, st.st_mtime_ns, self.format, repr(self.opts)]


@dataclasses.dataclass(frozen=True)
class Task:
    """One unit of work: one workload, one policy with one parameter set, every capacity."""

    index: int  # position in the input order (workload-major)
    workload: object  # a catalog name, a TraceFile, or a Trace
    policy: str
    params: dict
    capacities: tuple
    scale: str = "ci"
    seed: int = 0
    prefer: str = "real"
    flush_at_end: bool = False
    page_bytes: int = 4096
    metrics: tuple = ()  # callables or "module:function" strings: (SimResult, Trace) -> dict of columns
    prototype: type | None = None  # a PythonPolicy subclass the worker registers before running
    log_io: bool | None = None  # keep the I/O log (None: when there are metrics); counters do not depend on it
    policy_files: tuple = ()  # Python files of prototypes the worker loads first (cache.prototype.load_file)

    @property
    def workload_name(self) -> str:
        return self.workload if isinstance(self.workload, str) else self.workload.name

    def describe(self) -> dict:
        return {"workload": self.workload_name, "policy": self.policy, "params": self.params,
                "capacities": list(self.capacities), "scale": self.scale, "seed": self.seed}

    def row_key(self, capacity: int) -> str:
        """Hash of everything a row depends on (what a re-run with ``store`` looks up)."""
        parts = [self.workload_name, self.scale, self.seed, self.prefer, self.policy, params_key(self.params),
                 int(capacity), self.flush_at_end, self.page_bytes, [_metric_name(m) for m in self.metrics]]
        if isinstance(self.workload, TraceFile):
            parts += self.workload.identity()
        elif not isinstance(self.workload, str):  # a Trace: its origin, length and meta (a head() or a variant)
            parts += [self.workload.source, len(self.workload), self.workload.meta]
        return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def _metric_name(m) -> str:
    return m if isinstance(m, str) else f"{m.__module__}:{m.__qualname__}"


def _metric_fn(m) -> Callable:
    if isinstance(m, str):
        module, _, attr = m.partition(":")
        return getattr(importlib.import_module(module), attr)
    return m


# --- the work a worker does --------------------------------------------------------------------------------
_TRACES: collections.OrderedDict = collections.OrderedDict()  # per worker process: (name, scale, seed, prefer)
TRACE_LOADS = collections.Counter()  # how often this process loaded each trace (tests check "once per worker")


def _trace(task: Task):
    if not isinstance(task.workload, (str, TraceFile)):
        return task.workload
    from .traces import catalog

    key = (task.workload, task.scale, task.seed, task.prefer)
    if key in _TRACES:
        _TRACES.move_to_end(key)
        return _TRACES[key]
    if isinstance(task.workload, TraceFile):
        tr = task.workload.load()
    else:
        tr = catalog.get(task.workload, scale=task.scale, seed=task.seed, prefer=task.prefer)
    TRACE_LOADS[key] += 1
    _TRACES[key] = tr
    while len(_TRACES) > _TRACE_MEMO_SIZE:
        _TRACES.popitem(last=False)
    return tr


def run_task(task: Task) -> dict:
    """Run one task; never raises: returns ``{"index", "rows"}`` or ``{"index", "error", "task"}``."""
    try:
        from .cache import simulate

        if task.prototype is not None or task.policy_files:
            from .cache import prototype

            for f in task.policy_files:
                prototype.load_file(f)
            if task.prototype is not None:
                prototype.ensure_registered(task.prototype)
        tr = _trace(task)
        refs = tr.to_pages(task.page_bytes)  # cached on the trace: once per task, not per capacity
        metrics = [_metric_fn(m) for m in task.metrics]
        rows = []
        for cap in task.capacities:
            t0 = time.perf_counter()
            log_io = log_for(metrics) if task.log_io is None else task.log_io
            res = simulate(refs, task.policy, int(cap), flush_at_end=task.flush_at_end, log_io=log_io,
                           **task.params)
            row = result_row(res, task.workload_name, task.params, cap)
            for fn in metrics:
                row |= fn(res, tr)
            row["key"] = task.row_key(cap)
            row["seconds"] = time.perf_counter() - t0
            rows.append(row)
        return {"index": task.index, "rows": rows}
    except Exception as e:  # noqa: BLE001  (reported with the task's inputs; the sweep goes on)
        return {"index": task.index, "task": task.describe(), "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc()}


def log_for(metrics) -> bool | str:
    """The I/O log that ``metrics`` need (``simulate``'s ``log_io``): none without metrics; only the device pages
    (``"device"``) when every metric says that is all it reads, by an attribute ``log_io = "device"`` (as
    :func:`flashrepro.devices.device_time` does); else the whole log."""
    if not metrics:
        return False
    return "device" if all(getattr(fn, "log_io", True) == "device" for fn in metrics) else True


def result_row(res, workload: str, params: dict, capacity_pages: int) -> dict:
    """A sweep table's row of one run (a :class:`~flashrepro.cache.simulate.SimResult` at the capacity it was
    asked for): the keys, the hit ratio and every counter."""
    c = res.counters
    return {"workload": workload, "policy": res.policy, "params": params_key(params),
            "capacity_pages": int(capacity_pages), "hit_ratio": c["hits"] / max(c["references"], 1), **c}


# --- the driver --------------------------------------------------------------------------------------------
@dataclasses.dataclass(repr=False)
class Failure:
    """A task that raised: its inputs, the error and the worker's traceback."""

    task: dict
    error: str
    traceback: str = ""

    def __str__(self) -> str:
        t = self.task
        if "target" in t:  # a point of run_points
            return f"{t['target']}({t['kwargs']}): {self.error}"
        return (f"{t['workload']} x {t['policy']} {t['params']} at {t['capacities']}: {self.error}")

    __repr__ = __str__


@dataclasses.dataclass
class SweepResult:
    table: pl.DataFrame  # one row per run, in input order
    failures: list[Failure]
    skipped: int = 0  # rows found in the store and not re-run
    executor: str = "local"
    wall_s: float = 0.0

    @property
    def stable(self) -> pl.DataFrame:
        """The table without its timing column (byte-identical across executors and reruns)."""
        return stable(self.table)


def stable(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` without the timing column ``seconds`` and the row ``key``."""
    return table.drop([c for c in ("seconds", "key") if c in table.columns])


def run(policies, workloads: Iterable, capacities: Iterable[int], *, scale: str = "ci", seed: int = 0,
        prefer: str = "real", flush_at_end: bool = False, page_bytes: int = 4096, metrics: Iterable = (),
        executor: str = "local", workers: int | None = None, scheduler: str | None = None,
        store: str | os.PathLike | None = None, progress: bool | None = None, client=None,
        policy_files: Iterable = ()) -> SweepResult:
    """Run every (policy, parameters) x workload x capacity and return one table.

    Parameters
    ----------
    policies
        See :func:`expand_policies` (names, ``(name, params)`` pairs, or name -> parameter grid).
    workloads
        Catalog names (loaded on the workers through the catalog), :class:`TraceFile` (a trace file the
        workers read whole through the parse cache) or :class:`~flashrepro.traces.Trace` objects (shipped
        with each task).
    capacities
        Cache sizes in pages; every task runs all of them on one loaded trace.
    scale, seed, prefer
        Passed to :func:`flashrepro.traces.catalog.get`.
    metrics
        Functions ``(SimResult, Trace) -> dict`` (module-level, or ``"module:function"`` strings) whose
        columns are added to each row; with any metric the runs keep their I/O log (``log_io=True``), or only
        its device pages when every metric has the attribute ``log_io = "device"`` (:func:`log_for`).
    executor : {"local", "process", "dask"}
    workers : int, optional
        Pool size for ``"process"`` and the LocalCluster (default: the machine's cores).
    scheduler : str, optional
        ``tcp://host:8786``: run on that Dask cluster instead of a LocalCluster (implies ``"dask"``).
    client : distributed.Client, optional
        An existing Dask client to use (implies ``"dask"``; not closed afterwards).
    store : path, optional
        A parquet file of finished rows; rows already there are not re-run, new ones are added as they finish.
    progress : bool, optional
        The tqdm bar (default: when stderr is a terminal or in a notebook, as ``tqdm.auto`` decides).
    policy_files : paths, optional
        Python files of :class:`~flashrepro.cache.prototype.PythonPolicy` prototypes
        (:func:`~flashrepro.cache.prototype.load_file`), loaded here and by every worker before it runs.
    """
    executor = _executor(executor, scheduler, client)
    from .cache import make_params
    from .traces.trace import check_page_bytes

    t_start = time.perf_counter()
    check_page_bytes(page_bytes)
    files, from_files = _policy_files(policy_files)
    pol = expand_policies(policies)
    protos = {}
    for name, p in pol:
        make_params(name, **p)  # unknown policy or parameter: fail before anything runs
        protos[name] = None if name in from_files else _prototype_of(name)
    workloads = list(workloads)
    caps = _capacities(capacities)
    if not caps or not workloads or not pol:
        raise ValueError("a sweep needs at least one policy, workload and capacity")
    metrics = tuple(metrics)
    tasks = [Task(i, w, name, p, caps, scale, seed, prefer, flush_at_end, page_bytes, metrics, protos[name],
                  policy_files=files) for i, (w, (name, p)) in enumerate(itertools.product(workloads, pol))]
    return _run_tasks(tasks, executor, workers, scheduler, client, progress, store, t_start)


def _capacities(capacities: Iterable[int]) -> tuple[int, ...]:
    """Cache sizes as ints, each at least one page (checked before any task runs)."""
    caps = tuple(int(c) for c in capacities)
    bad = [c for c in caps if c < 1]
    if bad:
        raise ValueError(f"a capacity must be at least 1 page, got {bad[0]}")
    return caps


def _executor(executor: str, scheduler, client) -> str:
    """The executor to use: Dask when a scheduler or client is given; an unknown name is an error."""
    if scheduler is not None or client is not None:
        executor = "dask"
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; use one of {', '.join(EXECUTORS)}")
    return executor


def run_cases(cases: Iterable, *, scale: str = "ci", seed: int = 0, prefer: str = "real", flush_at_end: bool = False,
              page_bytes: int = 4096, metrics: Iterable = (), log_io: bool | None = None, executor: str = "local",
              workers: int | None = None, scheduler: str | None = None, store: str | os.PathLike | None = None,
              progress: bool | None = None, client=None, policy_files: Iterable = ()) -> SweepResult:
    """Run a list of ``(workload, policy, params, capacity)`` cases that need not form a full product (a
    paper's grid, where each workload has its own sizes or each policy its own parameters) and return one
    row per case, **in the order of the cases** (a case listed twice gives its row twice).

    Cases of the same workload, policy and parameters become one task running all their capacities, so a
    trace is still expanded to pages once per task. ``log_io=False`` runs metrics that need only the
    counters without keeping the I/O log (default: keep it when there are metrics); the rest is as in
    :func:`run`.
    """
    import polars as pl

    executor = _executor(executor, scheduler, client)
    from .cache import make_params
    from .traces.trace import check_page_bytes

    t_start = time.perf_counter()
    check_page_bytes(page_bytes)
    files, from_files = _policy_files(policy_files)
    metrics = tuple(metrics)
    groups: dict = {}  # (workload identity, policy, params) -> [workload, policy, params, capacities]
    order = []
    for w, policy, params, cap in cases:
        _capacities([cap])
        name = _policy_name(policy)
        params = dict(params)
        wid = w if isinstance(w, (str, TraceFile)) else id(w)
        g = groups.setdefault((wid, name, params_key(params)), [w, name, params, []])
        if int(cap) not in g[3]:
            g[3].append(int(cap))
        order.append((wid, name, params_key(params), int(cap)))
    if not order:
        raise ValueError("run_cases needs at least one case")
    tasks = []
    for i, (w, name, params, caps) in enumerate(groups.values()):
        make_params(name, **params)  # unknown policy or parameter: fail before anything runs
        tasks.append(Task(i, w, name, params, tuple(caps), scale, seed, prefer, flush_at_end, page_bytes, metrics,
                          None if name in from_files else _prototype_of(name), log_io, files))
    res = _run_tasks(tasks, executor, workers, scheduler, client, progress, store, t_start)
    by_group = {k: t for k, t in zip(groups, tasks, strict=True)}
    keys = [by_group[k[:3]].row_key(k[3]) for k in order]
    if res.table.height:
        res.table = (pl.DataFrame({"key": keys}).join(res.table, on="key", how="inner", maintain_order="left")
                     .select(res.table.columns))
    return res


def _run_tasks(tasks: list[Task], executor, workers, scheduler, client, progress, store, t_start) -> SweepResult:
    """Run ``tasks`` (skipping rows already in ``store``) and return their rows in task order."""
    import polars as pl

    done = _read_store(store)
    known = set(done["key"].to_list()) if done is not None else set()
    todo, skipped = [], 0
    for t in tasks:
        missing = tuple(c for c in t.capacities if t.row_key(c) not in known)
        skipped += len(t.capacities) - len(missing)
        if missing:
            todo.append(dataclasses.replace(t, capacities=missing))

    failures = []
    rows = []
    for out in _execute(todo, executor, workers, scheduler, client, progress):
        if "error" in out:
            failures.append(Failure(out["task"], out["error"], out.get("traceback", "")))
            continue
        rows += out["rows"]
        if store is not None:  # appended as each task finishes, so a killed run keeps what it finished
            done = _write_store(store, done, out["rows"])
    order = {t.row_key(c): (t.index, j) for t in tasks for j, c in enumerate(t.capacities)}
    if store is not None and rows:  # then rewritten in input order: the file does not depend on completion order
        done = _settle_store(store, done, order)
    frames = []
    if done is not None and store is not None:
        frames.append(done.filter(pl.col("key").is_in(list(order))))
    elif rows:
        frames.append(_frame(rows))
    table = _order(pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame(), order)
    return SweepResult(table, failures, skipped, executor, time.perf_counter() - t_start)


def _policy_files(paths: Iterable) -> tuple[tuple[str, ...], set[str]]:
    """The prototype files as absolute paths (what a worker loads), after loading them here; and the names
    of the policies they registered (a worker gets those from the files, not as pickled classes, which a
    worker could not import)."""
    from .cache import prototype

    files = tuple(str(Path(f).resolve()) for f in paths)
    names = set()
    for f in files:
        names.update(prototype.load_file(f))
    return files, names


def _prototype_of(name: str):
    from .cache import get_policy

    kernel = get_policy(name).kernel
    return getattr(kernel, "prototype", None)


def _frame(rows: list[dict]) -> pl.DataFrame:
    import polars as pl

    return pl.concat([pl.DataFrame([r]) for r in rows], how="diagonal_relaxed")


def _order(table: pl.DataFrame, order: dict) -> pl.DataFrame:
    """Rows in input order; columns: the keys, hit_ratio, the base counters, then the others sorted by name,
    metrics after them, seconds last."""
    import polars as pl

    if table.height == 0:
        return table
    table = table.unique("key", keep="first", maintain_order=True)  # a store written twice holds a row twice
    pos = pl.DataFrame({"key": list(order), "_o1": [v[0] for v in order.values()],
                        "_o2": [v[1] for v in order.values()]})
    table = table.join(pos, on="key", how="left").sort(["_o1", "_o2"]).drop(["_o1", "_o2"])
    return table.select(column_order(table.columns))


def column_order(columns) -> list[str]:
    """A sweep table's columns in order: the keys, hit_ratio, the base counters, then the others sorted by
    name, metrics after them, the row key and seconds last (those present)."""
    from .cache import contract as C

    base = [c.name for c in C.BASE] + sorted(C.derived({c.name: 0 for c in C.BASE}))
    first = [c for c in [*KEYS, "hit_ratio", *base] if c in columns]
    rest = sorted(c for c in columns if c not in first and c not in ("key", "seconds"))
    return first + rest + [c for c in ("key", "seconds") if c in columns]


def _read_store(store) -> pl.DataFrame | None:
    """The rows of an earlier run in ``store`` (None when there is no such file); a file that is not a
    store of sweep rows is an error, never read as empty or overwritten."""
    import polars as pl

    if store is None or not Path(store).exists():
        return None
    try:
        done = pl.read_parquet(store)
    except pl.exceptions.PolarsError as e:
        raise ValueError(f"{store} is not a parquet file of sweep rows ({e})") from None
    if "key" not in done.columns:
        raise ValueError(f"{store} is a parquet file but not one of sweep rows (it has no 'key' column)")
    return done


def _write_store(store, done: pl.DataFrame | None, rows: list[dict]) -> pl.DataFrame:
    import polars as pl

    new = _frame(rows)
    done = new if done is None else pl.concat([done, new], how="diagonal_relaxed")
    Path(store).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(Path(store)) as tmp:
        done.write_parquet(tmp)
    return done


def _settle_store(store, done: pl.DataFrame, order: dict) -> pl.DataFrame:
    """Rewrite ``store`` in a deterministic order: the rows of earlier runs this run did not ask for, as they
    were, then every row of this run in input order (each key once; columns as :func:`column_order`). So its
    content (but the ``seconds`` column) depends on what was there and on this run's inputs, not on the executor
    or the order in which tasks finished, and a resumed run leaves the file an uninterrupted one would."""
    import polars as pl

    done = done.unique("key", keep="first", maintain_order=True)
    mine = done["key"].is_in(list(order))
    settled = pl.concat([done.filter(~mine), _order(done.filter(mine), order)], how="diagonal_relaxed")
    settled = settled.select(column_order(settled.columns))
    with atomic_path(Path(store)) as tmp:
        settled.write_parquet(tmp)
    return settled


def _bar(total: int, progress: bool | None, desc: str = "sweep"):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="task", leave=False, disable=None if progress is None else not progress)


def _execute(tasks: list, executor: str, workers, scheduler, client, progress, fn: Callable | None = None,
             desc: str = "sweep"):
    """Yield each task's result as it finishes; ``fn`` (default :func:`run_task`, or :func:`run_point_task`)
    runs one task and never raises."""
    if not tasks:
        return
    fn = run_task if fn is None else fn
    bar = _bar(len(tasks), progress, desc)
    try:
        if executor == "local":
            for t in tasks:
                out = fn(t)
                bar.update()
                yield out
        elif executor == "process":
            import concurrent.futures as cf
            import multiprocessing as mp

            # spawn, not fork: a forked Numba/threaded parent is not safe to copy
            with cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count(),
                                        mp_context=mp.get_context("spawn")) as pool:
                futures = {pool.submit(fn, t): t for t in tasks}
                for f in cf.as_completed(futures):
                    bar.update()
                    yield _result_or_failure(f, futures[f])
        else:
            yield from _execute_dask(tasks, workers, scheduler, client, bar, fn)
    finally:
        bar.close()


def _result_or_failure(future, task: Task) -> dict:
    try:
        return future.result()
    except Exception as e:  # noqa: BLE001  (the worker died: still a reported failure)
        # (one exception object may be raised for many futures: format it once, not with its growing traceback)
        return {"index": task.index, "task": task.describe(), "error": f"{type(e).__name__}: {e}",
                "traceback": "".join(traceback.format_exception_only(e))}


SCHEDULER_TIMEOUT_S = 5.0  # how long to wait for a Dask scheduler to answer (distributed's own default: 30 s)


def _probe(scheduler: str, timeout_s: float) -> None:
    """For a tcp:// or tls:// address: something must accept a connection there within ``timeout_s``, so an
    address where nothing runs fails at once with the system's reason (distributed retries until its timeout)."""
    import socket

    from distributed.comm import parse_address, parse_host_port

    scheme, loc = parse_address(scheduler)
    if scheme not in ("tcp", "tls"):
        return
    host, port = parse_host_port(loc)
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:  # refused, unknown host, timed out
        raise OSError(f"scheduler={scheduler}: no Dask scheduler answers there ({e.strerror or e})") from None


def _handshake(scheduler: str, timeout_s: float) -> None:
    """Dask's own handshake with ``scheduler``, given up after ``timeout_s``: something that accepts connections
    but is no scheduler would otherwise keep ``distributed.Client`` waiting forever (its timeout does not cover
    the handshake). Run in a thread of its own, so it works where an event loop is already running (Jupyter)."""
    import asyncio
    import concurrent.futures

    from distributed.comm import connect as open_comm

    async def shake():
        comm = await asyncio.wait_for(open_comm(scheduler, timeout=timeout_s), timeout_s)
        await comm.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, shake()).result()


def connect(scheduler: str, timeout_s: float | None = None):
    """A ``distributed.Client`` of the Dask scheduler at ``scheduler``, or within about ``timeout_s`` (default
    :data:`SCHEDULER_TIMEOUT_S`) an error naming the address (ValueError for an address that is not one, OSError
    when no scheduler answers)."""
    import distributed

    timeout_s = SCHEDULER_TIMEOUT_S if timeout_s is None else timeout_s
    try:
        _probe(scheduler, timeout_s)  # nothing listens there: at once, with the system's reason
        _handshake(scheduler, timeout_s)  # something listens but does not answer as a scheduler
        return distributed.Client(scheduler, timeout=timeout_s)
    except ValueError as e:
        raise ValueError(f"scheduler={scheduler}: not a Dask scheduler address ({e})") from None
    except OSError as e:  # TimeoutError is one
        if str(e).startswith("scheduler="):
            raise
        raise OSError(f"scheduler={scheduler}: no Dask scheduler answered within {timeout_s:g} s "
                      f"({e or type(e).__name__})") from None


def _execute_dask(tasks, workers, scheduler, client, bar, fn=None):
    import distributed

    own = client is None
    cluster = None
    if own:
        if scheduler is None:
            cluster = distributed.LocalCluster(n_workers=workers or os.cpu_count(), threads_per_worker=1,
                                               processes=True, dashboard_address=None)
            client = distributed.Client(cluster)
        else:
            client = connect(scheduler)
    try:
        futures = [client.submit(fn or run_task, t, pure=False, key=f"flashrepro-sweep-{t.index}-{os.getpid()}-"
                                 f"{time.monotonic_ns()}") for t in tasks]
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        for f in distributed.as_completed(futures):
            bar.update()
            yield _result_or_failure(f, by_key[f.key])
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


# --- any experiment function at a list of points (the robustness maps) -----------------------------------------
@dataclasses.dataclass(frozen=True)
class PointTask:
    """One call ``module.function(**kwargs)``; the function is shipped by name, so a process or Dask worker
    imports its module (it must be a plain top-level function returning a polars DataFrame)."""

    index: int
    module: str
    function: str
    kwargs: dict

    @property
    def target(self) -> str:
        return f"{self.module}:{self.function}"

    def describe(self) -> dict:
        return {"target": self.target, "kwargs": self.kwargs}


def run_point_task(task: PointTask) -> dict:
    """Run one point; never raises: returns ``{"index", "frame", "seconds"}`` or ``{"index", "error", "task",
    "traceback"}``."""
    try:
        t0 = time.perf_counter()
        fn = getattr(importlib.import_module(task.module), task.function)
        frame = fn(**task.kwargs)
        import polars as pl

        if not isinstance(frame, pl.DataFrame):
            raise TypeError(f"{task.target} returned {type(frame).__name__}, not a polars DataFrame")
        return {"index": task.index, "frame": frame, "seconds": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001  (reported with the point's inputs; the others go on)
        return {"index": task.index, "task": task.describe(), "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc()}


@dataclasses.dataclass
class PointsResult:
    """What :func:`run_points` returns: ``results[i]`` is point i's frame (None where it failed), in input
    order; ``failures`` the points that raised, with their kwargs and traceback; ``seconds[i]`` its wall time
    on its worker (NaN where it failed)."""

    results: list
    failures: list[Failure]
    seconds: list
    executor: str = "local"
    wall_s: float = 0.0

    def __iter__(self):  # results, failures = run_points(...)
        return iter((self.results, self.failures))


def _target(t) -> tuple[str, str]:
    if isinstance(t, str):
        module, sep, function = t.partition(":")
        if not sep or not module or not function:
            raise ValueError(f"a target is 'module:function', got {t!r}")
        return module, function
    if isinstance(t, (tuple, list)) and len(t) == 2 and all(isinstance(x, str) for x in t):
        return t[0], t[1]
    raise ValueError(f"a target is 'module:function' or a (module, function) pair, got {t!r}")


def run_points(target, points: Iterable[Mapping], *, executor: str = "local", workers: int | None = None,
               scheduler: str | None = None, client=None, progress: bool | None = None,
               desc: str = "points") -> PointsResult:
    """Run ``function(**kwargs)`` for each kwargs dict in ``points`` on the local, process or Dask executor
    (as :func:`run`), and return the frames **in input order** (never completion order) with the failures.

    ``target`` is ``"module:function"`` or a ``(module, function)`` pair, or a list of them, one per point
    (so one call can run several papers' points and keep every worker busy). The module must be importable
    on the workers (the function is pickled by name)."""
    executor = _executor(executor, scheduler, client)
    t_start = time.perf_counter()
    points = [dict(p) for p in points]
    targets = [_target(t) for t in target] if isinstance(target, list) else [_target(target)] * len(points)
    if len(targets) != len(points):
        raise ValueError(f"{len(targets)} targets for {len(points)} points")
    tasks = [PointTask(i, m, f, p) for i, ((m, f), p) in enumerate(zip(targets, points, strict=True))]
    results: list = [None] * len(tasks)
    seconds = [float("nan")] * len(tasks)
    failures = {}
    for out in _execute(tasks, executor, workers, scheduler, client, progress, run_point_task, desc):
        if "error" in out:
            failures[out["index"]] = Failure(out["task"], out["error"], out.get("traceback", ""))
        else:
            results[out["index"]] = out["frame"]
            seconds[out["index"]] = out["seconds"]
    return PointsResult(results, [failures[i] for i in sorted(failures)], seconds, executor,
                        time.perf_counter() - t_start)

