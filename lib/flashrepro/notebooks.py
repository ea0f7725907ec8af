"""Running the notebooks: papermill into build/, preparing nbval copies, refreshing checked outputs.

    python -m flashrepro.notebooks run notebooks/00_workloads.ipynb build/00_workloads.ipynb -p scale paper
    python -m flashrepro.notebooks nbval-prepare build/nbval        # copies with scale="ci" injected
    python -m flashrepro.notebooks nbval-refresh                    # store ci outputs of checked cells
    python -m flashrepro.notebooks timed --outputs "..." -- make ...  # a make's wall and CPU time

Cells whose source contains ``# NBVAL_CHECK_OUTPUT`` are the ones nbval compares (lax mode). Their stored
outputs in notebooks/ are the ``scale="ci"`` results, written by ``nbval-refresh``, never by hand; all
other cells are stored without outputs.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import errno
import functools
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import _import_guard  # noqa: F401  (before nbformat's import, which it makes 2-3 s shorter)

# isort: split
import nbformat

from . import paths, tempfiles
from .tempfiles import atomic_path

CHECK = "# NBVAL_CHECK_OUTPUT"


def _value(text: str):
    """A -p value as the parameters cell would spell it: a Python literal (``3``, ``0.5``, ``True``, ``None``,
    ``[8, 16]``, ``"x"``), else the text itself (``-p front none`` is the string "none"). So ``-p flag False``
    is False, not the non-empty string "False"."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def declared_parameters(src) -> dict:
    """The tagged ``parameters`` cell of ``src``: name -> default value (the source text where it is not a
    literal)."""
    import papermill

    out = {}
    for name, p in papermill.inspect_notebook(str(src)).items():
        try:
            out[name] = ast.literal_eval(p["default"])
        except (ValueError, SyntaxError):
            out[name] = p["default"]
    return out


def check_parameters(src, parameters: dict) -> dict:
    """Refuse a parameter the notebook's tagged ``parameters`` cell does not declare (papermill would only
    warn, run the notebook unchanged and write over the usual outputs); returns the declared defaults."""
    declared = declared_parameters(src)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ValueError(f"{Path(src).name} has no parameter {', '.join(map(repr, unknown))}; its parameters "
                         f"cell declares: {', '.join(declared) or '(none)'}")
    return declared


def variant_name(src, parameters: dict, declared: dict) -> str | None:
    """``<notebook>/<name>=<value>,...`` (:func:`flashrepro.paths.variant_name`) when a given parameter other
    than ``scale`` differs from its default, else None: such a run is a variant and writes to its own folders
    (:func:`flashrepro.paths.outputs_for`). A default that is not a literal (its source text) differs from any
    value given for it."""
    order = [*declared, *(k for k in parameters if k not in declared)]  # the parameters cell's, not -p's
    changed = {k: parameters[k] for k in order if k in parameters and k != "scale"
               and (k not in declared or paths.canonical(declared[k]) != paths.canonical(parameters[k]))}
    scale = str(parameters.get("scale", declared.get("scale", paths.DEFAULT_SCALE)))
    return paths.variant_name(Path(src).stem, scale, changed)


STAGING = "staging"  # build/staging/: each runner run's outputs until its notebook completes
FAILED = "failed"  # build/failed/: the executed notebook of a run that failed (as far as it got)


def failed_path(dst) -> Path:
    """Where a failed run keeps the executed notebook it would have written to ``dst``:
    ``build/failed/<dst under build/>`` (``build/failed/<name>`` for a ``dst`` elsewhere)."""
    dst = Path(dst)
    try:
        rel = dst.resolve().relative_to(paths.build.resolve())
    except ValueError:
        rel = Path(dst.name)
    return paths.build / FAILED / rel


def _move(src: Path, dst: Path) -> None:
    """Rename ``src`` onto ``dst`` (atomic); across file systems, copy to a temporary beside ``dst`` first."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(src, dst)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        with atomic_path(dst) as tmp:
            shutil.copyfile(src, tmp)
        src.unlink()


def promote(staged: Path, root: Path) -> list[Path]:
    """Move every file under ``staged`` to the same place under ``root`` (each an atomic rename, over the
    file of an earlier run); the files now in place."""
    moved = []
    for f in sorted(p for p in Path(staged).rglob("*") if p.is_file()):
        target = Path(root) / f.relative_to(staged)
        _move(f, target)
        moved.append(target)
    return moved


@contextlib.contextmanager
def _environ(**values):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@functools.cache
def ipc_kernel_manager() -> type:
    """Jupyter's kernel manager talking to the kernel over local sockets (IPC) instead of TCP on localhost:
    the kernel then has no port another user of the machine could connect to, and does not print its
    warning that TCP without encryption can be eavesdropped (once per notebook in ``make``'s output). Each
    kernel's sockets are files ``<temp>/flashrepro-kernel-<pid>-<random>-<n>``, removed when it shuts down:
    an absolute prefix of its own (Jupyter's default, ``kernel-ipc`` in the working folder, is shared by
    two notebooks run at once, and their kernels then never connect), short enough for a socket's path."""
    import secrets

    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("transport", "ipc")
            kwargs.setdefault("ip", os.path.join(tempfile.gettempdir(),
                                                 f"flashrepro-kernel-{os.getpid()}-{secrets.token_hex(4)}"))
            super().__init__(**kwargs)
    return IPCKernelManager


def run(src, dst, parameters: dict, progress: bool | None = None) -> float:
    """Execute ``src`` with papermill into ``dst``; print and return the wall time.

    An unknown parameter is an error (:func:`check_parameters`). A variant (:func:`variant_name`) goes to
    ``build/variants/<variant>/`` and its tables and figures to ``results/variants/<variant>/`` and
    ``figures/variants/<variant>/`` (each with a ``params.json``), never over ``make``'s outputs.

    The notebook writes its tables and figures into a staging folder (``build/staging/``); only when every
    cell has run are they moved into place, and then the executed notebook to ``dst``. A run that fails
    (an error in a cell, Ctrl-C, SIGTERM) leaves the previous outputs and ``dst`` as they were, writes no
    table of its own, and keeps its executed notebook, error included, at :func:`failed_path` (removed by
    the next successful run). On a terminal papermill shows a bar of the cells (off when piped, or with
    ``progress=False``); each cell's output is logged as it runs when ``progress`` is true. Stale temporaries
    of killed runs in ``dst``'s folder and stale staging folders are removed first."""
    import papermill

    src, dst = Path(src), Path(dst)
    declared = check_parameters(src, parameters)
    variant = variant_name(src, parameters, declared)
    if variant:
        dst = paths.build / "variants" / variant / dst.name
    stage_root = paths.build / STAGING
    stage_root.mkdir(parents=True, exist_ok=True)
    tempfiles.sweep(dst.parent)
    tempfiles.sweep(stage_root)
    tempfiles.terminate_as_exit()
    show = sys.stderr.isatty() if progress is None else progress
    # the kernel inherits these: its paths.outputs_for writes under the staging folder, in the variant's folders
    variant = variant or os.environ.get(paths.VARIANT_ENV, "").strip() or None
    scale = str(parameters.get("scale", declared.get("scale", paths.DEFAULT_SCALE)))
    stage = Path(tempfile.mkdtemp(prefix=f".{src.stem.replace('.', '_')}.pid{os.getpid()}.",  # tempfiles.sweep's
                                  dir=stage_root))
    executed = stage / dst.name
    t0, c0 = time.perf_counter(), cpu_seconds()
    try:
        with _environ(**{paths.VARIANT_ENV: variant or "", paths.STAGING_ENV: str(stage / "outputs"),
                         paths.NOTEBOOK_ENV: str(src.resolve())}):
            try:
                papermill.execute_notebook(str(src), str(executed), parameters=parameters, cwd=str(paths.notebooks),
                                           progress_bar=show, log_output=bool(progress), kernel_name="python3",
                                           kernel_manager_class=ipc_kernel_manager())
            except BaseException:
                _failed(src, executed, dst, scale, variant, time.perf_counter() - t0)
                raise
        promote(stage / "outputs", paths.root)
        _move(executed, dst)
        failed_path(dst).unlink(missing_ok=True)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    dt = time.perf_counter() - t0
    args = " ".join(f"{k}={v}" for k, v in parameters.items())
    where = f" (variant {variant}: {paths.relative(paths.folders(scale, variant)[0])})" if variant else ""
    print(f"{src.stem:<24s} {args:<20s} {dt:7.1f} s -> {dst}{where}", flush=True)
    if not variant and dst.parent.resolve() != (paths.build / "nbval-refresh").resolve():
        record_time(src.stem, str(parameters.get("scale", "")), dt, cpu_seconds() - c0)
    return dt


def _failed(src: Path, executed: Path, dst: Path, scale: str, variant: str | None, seconds: float) -> None:
    """Keep a failed run's executed notebook and say what happened to its outputs."""
    kept = failed_path(dst)
    if executed.is_file():
        _move(executed, kept)
        notebook = f"its executed notebook, with the error, is {kept}"
    else:
        notebook = "it left no executed notebook"
    res, fig = (paths.relative(f) for f in paths.folders(scale, variant))
    print(f"{src.stem}: failed after {seconds:.1f} s; {notebook}; {res} and {fig} are as they were (none of this "
          f"run's tables or figures was kept)", file=sys.stderr, flush=True)


TIMINGS = "notebook_timings"  # results/notebook_timings.csv: each notebook's last wall time per scale


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its children that have ended: a notebook's kernel, a
    pool's workers. The difference over a run is the run's CPU time (with ``make -j`` the notebooks share the
    cores, so CPU time, unlike wall time, says what each one costs)."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; ``make``'s default ``JOBS``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def record_time(notebook: str, scale: str, seconds: float, cpu: float | None = None) -> None:
    """Keep ``notebook``'s last wall time at ``scale`` in ``results/notebook_timings.csv`` (machine-dependent,
    so in a ``_timings`` file; the README points there instead of quoting times that go stale), with whether
    the trace folder was present, its CPU time (``cpu``, :func:`cpu_seconds` over the run; empty if not
    measured) and the cores this process may run on (``cores``: what the CPU times of one ``make`` share)."""
    import polars as pl

    row = pl.DataFrame({"notebook": [notebook], "scale": [scale], "traces": [_traces_present()],
                        "wall_s": [round(seconds, 1)], "cpu_s": [None if cpu is None else round(cpu, 1)],
                        "cores": [usable_cores()]}, schema_overrides={"cpu_s": pl.Float64, "cores": pl.Int64})
    _keep_last(TIMINGS, row, ["notebook", "scale"])


def _traces_present() -> bool:
    return any(d.is_dir() and any(d.iterdir()) for d in paths.trace_dirs())


def _keep_last(name: str, row, keys: list[str]) -> None:
    """``results/<name>.csv`` with ``row`` in place of any row with its ``keys``, sorted by them. Runs that finish
    at once (``make -j``) take turns: the read, the new row and the write happen under an exclusive lock on the
    ``results/`` folder itself (no lock file left beside the tables), so that no row is lost. A column the file
    lacks (written by an older version) is empty in its old rows."""
    import fcntl

    import polars as pl

    from . import report

    target = paths.results / f"{name}.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        if target.exists():
            old = pl.read_csv(target, schema_overrides={k: v for k, v in row.schema.items() if k in keys or
                                                        v in (pl.Float64, pl.Int64)})
            same = pl.all_horizontal([pl.col(k) == row[k][0] for k in keys])
            row = pl.concat([old.filter(~same), row], how="diagonal_relaxed").select(row.columns)
        report.write_table(row.sort(keys), name)
    finally:
        os.close(lock)


MAKE_TIMINGS = "make_timings"  # results/make_timings.csv: the last `make` that re-ran everything, and the last partial


def run_timed(cmd: list[str], outputs: list[str]) -> int:
    """Run ``cmd`` (``make``'s own run of the notebooks and maps) and return its exit code (128 + the signal's number
    if a signal ended it). If it succeeded and rewrote at least one of ``outputs`` (the executed notebooks and the
    maps' stamps), keep its wall and CPU time (its processes' and theirs, :func:`cpu_seconds`) in
    ``results/make_timings.csv``: one row for the last run that rewrote every output (``reran`` "all": a full
    ``make``) and one for the last that rewrote some, with how many of how many, whether the trace folder was
    present and the cores. Ctrl-C reaches ``cmd`` itself (the terminal sends it to both); a SIGTERM sent to this
    process is passed on to ``cmd``. A run that was sent either keeps nothing, even if ``cmd`` then ended well."""
    import signal
    import subprocess

    import polars as pl

    t0, c0, start = time.perf_counter(), cpu_seconds(), time.time()
    stopped: list[int] = []  # the signals this process was sent while cmd ran: then nothing is kept

    def on_signal(signum, _frame):
        stopped.append(signum)
        if signum == signal.SIGTERM:
            proc.terminate()

    # Wait for cmd, which ends on Ctrl-C itself: a handler, unlike SIG_IGN, is not inherited by cmd (where SIGINT is
    # ignored already, as in a background job, it stays ignored, for cmd too)
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else on_signal)
    try:
        proc = subprocess.Popen(cmd)
        old_term = signal.signal(signal.SIGTERM, on_signal)
        try:
            rc = proc.wait()
        finally:
            signal.signal(signal.SIGTERM, old_term)
    finally:
        signal.signal(signal.SIGINT, old_int)
    if rc != 0 or stopped:
        return 128 - rc if rc < 0 else rc or 128 + stopped[0]
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    done = sum(1 for o in outputs if Path(o).is_file() and Path(o).stat().st_mtime >= start - 0.05)  # (file times
    # come from a coarser clock)
    if done:
        row = pl.DataFrame({"reran": ["all" if done == len(outputs) else "some"], "outputs_rewritten": [done],
                            "outputs": [len(outputs)], "traces": [_traces_present()], "wall_s": [round(wall, 1)],
                            "cpu_s": [round(cpu, 1)], "cores": [usable_cores()]})
        _keep_last(MAKE_TIMINGS, row, ["reran"])
        print(f"make: {wall:.0f} s of wall time, {cpu:.0f} s of CPU time on {usable_cores()} cores, {done} of "
              f"{len(outputs)} notebooks and maps re-run (results/{MAKE_TIMINGS}.csv)", flush=True)
    return 0


def _checked(cell) -> bool:
    return cell.cell_type == "code" and CHECK in cell.source


def nbval_prepare(outdir, scale: str = "ci") -> list[Path]:
    """Copies of every notebook with ``scale`` injected after the parameters cell, for nbval."""
    from papermill.iorw import load_notebook_node  # adds the empty tag lists papermill expects
    from papermill.parameterize import parameterize_notebook

    out = []
    for src in sorted(paths.notebooks.glob("*.ipynb")):
        nb = parameterize_notebook(load_notebook_node(str(src)), {"scale": scale})
        target = Path(outdir) / src.name
        with atomic_path(target) as tmp:
            nbformat.write(nb, tmp)
        out.append(target)
    return out


def nbval_refresh(scale: str = "ci", names: list[str] | None = None) -> None:
    """Run every notebook (or those whose file name starts with one of ``names``) at ``scale`` and store
    the outputs of its checked cells in the source; clear the outputs of all other cells."""
    os.environ.setdefault("MPLBACKEND", "Agg")  # as `make` runs them: no inline figure in a stored output
    for src in sorted(paths.notebooks.glob("*.ipynb")):
        if names and not any(src.name.startswith(n) for n in names):
            continue
        executed = paths.build / "nbval-refresh" / src.name
        run(src, executed, {"scale": scale})
        done = {c.get("id"): c for c in nbformat.read(executed, as_version=4).cells}
        nb = nbformat.read(src, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            if _checked(cell):
                cell.outputs = copy.deepcopy(done[cell.id].outputs)
                cell.execution_count = done[cell.id].execution_count  # nbval skips cells that look unrun
            else:
                cell.outputs, cell.execution_count = [], None
        with atomic_path(src) as tmp:
            nbformat.write(nb, tmp)
        print(f"refreshed checked outputs of {src.name}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashrepro.notebooks")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("src")
    r.add_argument("dst")
    r.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    p = sub.add_parser("nbval-prepare")
    p.add_argument("outdir")
    p.add_argument("--scale", default="ci")
    f = sub.add_parser("nbval-refresh")
    f.add_argument("--scale", default="ci")
    f.add_argument("names", nargs="*", help="only the notebooks whose file name starts with one of these")
    r.add_argument("--log-output", action="store_true", help="print every cell's output as it runs")
    t = sub.add_parser("timed", help="run a command (make's run of the notebooks and maps) and keep its wall and CPU "
                                     "time in results/make_timings.csv")
    t.add_argument("--outputs", default="", help="the files the command rewrites when it re-runs everything "
                                                 "(space-separated: the executed notebooks, the maps' stamps)")
    t.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    a = ap.parse_args(argv)
    if a.cmd == "timed":
        cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
        if not cmd:
            print("notebook timed: error: no command after --", file=sys.stderr)
            return 2
        return run_timed(cmd, a.outputs.split())
    if a.cmd == "run":
        params = {}
        for k, v in a.p:
            if k in params:
                print(f"notebook run: error: -p {k} is given twice", file=sys.stderr)
                return 2
            params[k] = _value(v)
        try:
            run(a.src, a.dst, params, progress=True if a.log_output else None)
        except ValueError as e:
            print(f"notebook run: error: {e}", file=sys.stderr)
            return 2
    elif a.cmd == "nbval-prepare":
        for t in nbval_prepare(a.outdir, a.scale):
            print(f"prepared {t}")
    else:
        nbval_refresh(a.scale, a.names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
