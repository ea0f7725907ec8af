"""Every path the package reads or writes, rooted at the repository, never at the cwd.

``FLASHREPRO_HOME`` overrides the root (useful for a non-editable install);
``FLASHREPRO_TRACE_DIRS`` (``os.pathsep``-separated) adds folders searched for real traces
after ``data/raw``.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path

root = Path(os.environ.get("FLASHREPRO_HOME", Path(__file__).resolve().parents[2]))
data = root / "data"
raw = data / "raw"  # real traces a user drops in
interim = data / "interim"  # parsed-trace cache, keyed by the file's identity (traces/store.py)
paper = data / "paper"  # numbers the papers report, as CSV
figures = root / "figures"
results = root / "results"
build = root / "build"
notebooks = root / "notebooks"


def trace_dirs() -> list[Path]:
    """Folders searched for real trace files, in order: data/raw, then FLASHREPRO_TRACE_DIRS."""
    dirs = [raw]
    for part in os.environ.get("FLASHREPRO_TRACE_DIRS", "").split(os.pathsep):
        if part.strip():
            dirs.append(Path(part.strip()).expanduser())
    return dirs


def find_trace(relpath: str) -> Path | None:
    """The first existing ``<dir>/<relpath>`` (a file, or a folder for folder formats such as android-sql)
    over :func:`trace_dirs`, or None."""
    for d in trace_dirs():
        p = d / relpath
        if p.is_file() or p.is_dir():
            return p
    return None


# --- where a notebook run writes ---------------------------------------------------------------------------------
#
# A notebook's tagged ``parameters`` cell declares its knobs and their defaults; every notebook calls
# ``paths.outputs_for(scale)`` right after it (in the cell that imports the library), and that call decides where
# the run's tables and figures go, from the values the notebook holds at that point (its globals: IPython's user
# namespace in a kernel). The writers (report.write_table, write_text, write_claims, plots.savefig) ask
# :func:`write_path` for every file, so the decision is the library's, whoever runs the notebook.

VARIANT_ENV = "FLASHREPRO_VARIANT"  # a variant folder under results/variants/: set by the runner (or a test)
STAGING_ENV = "FLASHREPRO_STAGING"  # set by the runner: outputs are written under it, moved into place on success
NOTEBOOK_ENV = "FLASHREPRO_NOTEBOOK"  # set by the runner: the notebook it runs (its parameters cell: the defaults)
DEFAULT_SCALE = "paper"  # `make`'s scale: results/ and figures/ themselves
PARAMS_FILE = "params.json"  # in every variant folder: the run's parameters


class StaleParameters(RuntimeError):
    """A parameter changed after :func:`outputs_for` chose where this run writes (a cell re-run in JupyterLab)."""


class _NotLiteral(str):
    """A default that is not a Python literal (its source text): never compared."""


@dataclasses.dataclass
class Run:
    """What :func:`outputs_for` decided for the notebook run in this process."""

    notebook: str | None  # the notebook's stem (None: not a notebook the package knows)
    scale: str
    parameters: dict  # every declared parameter -> its value in this run
    changed: dict  # the parameters that make it a variant -> (their default, why: "" or "committed")
    variant: str | None  # the folder under results/variants/ and figures/variants/, or None
    runner: bool  # run by `python -m flashrepro.notebooks run` (make)
    namespace: dict | None = None  # the notebook's globals (a kernel outside the runner): checked at each write
    snapshot: dict | None = None  # name -> (object, canonical value) after the cell that called outputs_for


# a runner run: every output is written under here (write_path), moved into place after; set from the runner's
# environment already on import, so a notebook that never calls outputs_for is staged too
staging: Path | None = Path(os.environ[STAGING_ENV]) if os.environ.get(STAGING_ENV) else None
current: Run | None = None
_pending_snapshot = None  # the post_run_cell callback that takes Run.snapshot


def canonical(value) -> str:
    """One text per value (JSON), telling 1 from 1.0 and True from 1."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):
        return repr(value)


def parameters_cell(notebook_json: str) -> dict:
    """The tagged ``parameters`` cell of a notebook (its JSON text): name -> default, in order; a default that is
    not a literal is its source text as a :class:`_NotLiteral` (a ``str``). :func:`flashrepro.papers.spec.parameters`
    reads a notebook's settings with it."""
    nb = json.loads(notebook_json)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            out = {}
            for node in ast.parse(src).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    target, value = node.target, node.value
                else:
                    continue
                if isinstance(target, ast.Name):
                    try:
                        out[target.id] = ast.literal_eval(value)
                    except ValueError:
                        out[target.id] = _NotLiteral(ast.get_source_segment(src, value))
            return out
    return {}


def declared(notebook: Path) -> dict:
    """The defaults of ``notebook``'s parameters cell as the file on disk has them."""
    return parameters_cell(Path(notebook).read_text(encoding="utf-8"))


def committed(notebook: Path) -> dict | None:
    """The defaults of ``notebook``'s parameters cell as committed (git ``HEAD``), or None (no git, not tracked).

    JupyterLab saves the notebook it runs (autosave, Ctrl-S), so the file on disk may already hold the knob the
    user changed; the committed cell cannot."""
    import subprocess

    notebook = Path(notebook)
    try:
        text = subprocess.run(["git", "-C", str(notebook.parent), "show", f"HEAD:./{notebook.name}"],
                              capture_output=True, text=True, timeout=30, check=True).stdout
        return parameters_cell(text)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def changed_parameters(values: dict, defaults: dict, committed_defaults: dict | None = None) -> dict:
    """The parameters other than ``scale`` whose value differs from ``defaults`` (or from ``committed_defaults``):
    name -> (the default it differs from, "" or "committed"). A name without a literal default is not compared."""
    out = {}
    for name, value in values.items():
        if name == "scale":
            continue
        for where, d in (("", defaults), ("committed", committed_defaults or {})):
            if name in d and not isinstance(d[name], _NotLiteral) and canonical(value) != canonical(d[name]):
                out[name] = (d[name], where)
                break
    return out


_SAFE = re.compile(r"[A-Za-z0-9._+-]+")


def _token(value) -> tuple[str, bool]:
    """``value`` in a folder name as ``-p`` spells it (``none``, ``read-ahead``, ``2048``, ``0.5``, ``False``), and
    whether that spelling is exact: it reads back (:func:`ast.literal_eval`, as ``-p`` does) as this value only."""
    if isinstance(value, str):
        try:
            ast.literal_eval(value)  # "1", "True", "None": would read as another value
        except (ValueError, SyntaxError):
            if _SAFE.fullmatch(value):
                return value, True
        text = canonical(value)
    else:
        text = repr(value)
        try:
            back = ast.literal_eval(text)
            exact = type(back) is type(value) and back == value and _SAFE.fullmatch(text) is not None
        except (ValueError, SyntaxError):
            exact = False
        if exact:
            return text, True
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_") or "_", False


def variant_name(notebook: str, scale: str, changed: dict) -> str | None:
    """``<notebook>/<name>=<value>,...`` for a run whose ``changed`` parameters (name -> value) differ from the
    defaults (``scale=<scale>`` first when it is not ``paper``), or None when none does. A value that cannot be
    spelt exactly in a folder name (a list, a dict, a path) and a name longer than 80 characters get the first 8
    hex digits of the SHA-256 of the parameters instead, so different parameters never share a folder."""
    if not changed:
        return None
    parts, exact = ([f"scale={scale}"] if scale != DEFAULT_SCALE else []), True
    for name, value in changed.items():
        token, ok = _token(value)
        parts.append(f"{name}={token}")
        exact &= ok
    slug = ",".join(parts)
    if not exact or len(slug) > 80:
        digest = hashlib.sha256(canonical({"scale": scale, **changed}).encode()).hexdigest()[:8]
        slug = f"{slug[:60].rstrip(',=')}-{digest}"
    return f"{notebook}/{slug}"


def _check_variant(variant: str) -> str:
    parts = variant.split("/")
    if any(not p or p.startswith(".") or "\\" in p for p in parts) or os.path.isabs(variant):
        raise ValueError(f"{VARIANT_ENV}={variant!r} is not a folder name (nor <notebook>/<name>)")
    return variant


def folders(scale: str, variant: str | None) -> tuple[Path, Path]:
    """The tables' and the figures' folder of a run at ``scale`` (a variant: its own folders)."""
    base_results, base_figures = root / "results", root / "figures"
    if variant:
        return base_results / "variants" / variant, base_figures / "variants" / variant
    if scale == DEFAULT_SCALE:
        return base_results, base_figures
    return base_results / scale, base_figures / scale


def _notebook_of(notebook, ns: dict) -> Path | None:
    """The notebook file this run belongs to: ``notebook`` (a stem or a path), the runner's, the one whose
    ``PAPER`` the notebook imported (each paper notebook does, before calling outputs_for), or the one
    JupyterLab says it runs (``__session__``)."""
    if notebook is None:
        notebook = os.environ.get(NOTEBOOK_ENV) or getattr(ns.get("PAPER"), "notebook", None)
    if notebook is None and isinstance(ns.get("__session__"), str):
        notebook = Path(ns["__session__"]).stem
    if notebook is None:
        return None
    path = Path(notebook) if str(notebook).endswith(".ipynb") else notebooks / f"{notebook}.ipynb"
    return path if path.is_file() else None


def relative(p: Path) -> str:
    """``p`` as a message shows it: under the repository, relative to it, with a trailing slash."""
    try:
        return f"{Path(p).relative_to(root)}/"
    except ValueError:
        return f"{p}/"


def outputs_for(scale: str, parameters: dict | None = None, notebook: str | None = None) -> Run | None:
    """Choose where this run's tables and figures go; notebooks call this right after their parameters cell.

    * ``make`` (paper scale, every parameter at its default): ``results/`` and ``figures/``;
    * another scale (``make quick``, the nbval tests): ``results/<scale>/`` and ``figures/<scale>/``;
    * a variant, i.e. a parameter other than ``scale`` differs from the default the notebook's parameters cell
      declares: ``results/variants/<notebook>/<name>=<value>,.../`` and the same under ``figures/variants/``
      (:func:`variant_name`), each with a ``params.json`` of every parameter's value.

    The values are ``parameters`` if given, else the caller's globals (the notebook's namespace in a kernel:
    JupyterLab, papermill, nbval), for the notebook ``notebook`` or the one whose ``PAPER`` it imported. Under
    the runner (``python -m flashrepro.notebooks run``, which sets ``FLASHREPRO_VARIANT`` from the ``-p``
    values) its choice stands and outputs are written to a staging folder it moves into place when the notebook
    completes. Outside it (JupyterLab) a default is the parameters cell's value on disk and, in a git checkout,
    the committed one (JupyterLab saves the edited cell): a value differing from either is a variant; the run
    prints where it writes, and a write after a parameter changed (a cell re-run) is refused
    (:class:`StaleParameters`). So neither ``make quick``, the tests, JupyterLab nor a variant ever overwrite
    what ``make`` produced. Stale temporaries a killed run left in those folders are removed
    (:func:`flashrepro.tempfiles.sweep`), and SIGTERM now cleans up as Ctrl-C does. Returns the :class:`Run`,
    or None for a notebook the package does not know (outputs by scale, as ``FLASHREPRO_VARIANT`` says)."""
    import sys

    from . import tempfiles

    global results, figures, staging, current
    ns = sys._getframe(1).f_globals if parameters is None else {}
    nb = _notebook_of(notebook, ns)
    env_variant = os.environ.get(VARIANT_ENV, "").strip()
    runner = bool(os.environ.get(STAGING_ENV))
    staging = Path(os.environ[STAGING_ENV]) if runner else None
    current = None
    variant = _check_variant(env_variant) if env_variant else None
    if nb is not None:
        defaults = declared(nb)
        given = parameters if parameters is not None else {k: ns[k] for k in defaults if k in ns}
        values = {**defaults, **given, "scale": scale}
        head = None if runner else committed(nb)
        changed = changed_parameters(values, defaults, head)
        if not env_variant and not runner:
            variant = variant_name(nb.stem, scale, {k: values[k] for k in changed})
        current = Run(nb.stem, scale, values, changed, variant, runner)
    results, figures = folders(scale, variant)
    tempfiles.sweep(results, figures)
    tempfiles.terminate_as_exit()
    if current is None:
        return None
    if variant:
        for folder in (results, figures):
            _write_params(folder, current)
        what = ", ".join(f"{k}={current.parameters[k]!r} ({'committed ' if why else ''}default {d!r})"
                         for k, (d, why) in changed.items()) or f"{VARIANT_ENV}={variant}"
        print(f"{nb.stem}: {what}: a variant; its tables go to {relative(results)} and its figures to "
              f"{relative(figures)} (with {PARAMS_FILE}), not over make's outputs")
    elif not runner:
        print(f"{nb.stem}: every parameter at its default: tables go to {relative(results)}, figures to "
              f"{relative(figures)}")
    if not runner and parameters is None:
        _snapshot_after_this_cell(ns)
    return current


def _write_params(folder: Path, run: Run) -> None:
    from .tempfiles import atomic_path

    doc = {"notebook": run.notebook, "scale": run.scale,  # not the folder: the same run, the same bytes
           "changed": {k: run.parameters[k] for k in run.changed},
           "defaults": {k: d for k, (d, _) in run.changed.items()},
           "parameters": run.parameters}
    with atomic_path(write_path(folder / PARAMS_FILE)) as tmp:
        tmp.write_text(json.dumps(doc, indent=1, default=repr) + "\n")


def _snapshot_after_this_cell(ns: dict) -> None:
    """In a kernel, keep the parameters' values as they are once the calling cell has run (a notebook may
    rewrite one there: paper 4's ``grid_scale``); :func:`write_path` compares them with the values at each write."""
    global _pending_snapshot
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    shell = get_ipython()
    if shell is None or ns is not getattr(shell, "user_ns", None):
        return
    if _pending_snapshot is not None:
        with contextlib.suppress(ValueError):
            shell.events.unregister("post_run_cell", _pending_snapshot)
    run = current

    def snapshot(*_):
        global _pending_snapshot
        if current is run:
            run.namespace = ns
            run.snapshot = {k: (ns.get(k), canonical(ns.get(k))) for k in run.parameters}
        with contextlib.suppress(ValueError):
            shell.events.unregister("post_run_cell", snapshot)
        _pending_snapshot = None

    _pending_snapshot = snapshot
    shell.events.register("post_run_cell", snapshot)


def check_unchanged() -> None:
    """Refuse to write when a parameter of this (interactive) run was given another value after
    :func:`outputs_for` chose its folders (a re-run parameters cell): the outputs would land where other
    parameters belong. A name bound to another object holding another value counts; an object changed in
    place (a list a function sorts) does not."""
    run = current
    if run is None or run.snapshot is None or run.namespace is None:
        return
    moved = [k for k, (obj, v) in run.snapshot.items()
             if run.namespace.get(k) is not obj and canonical(run.namespace.get(k)) != v]
    if moved:
        what = ", ".join(f"{k} is now {run.namespace.get(k)!r} (was {run.snapshot[k][1]})" for k in moved)
        raise StaleParameters(
            f"{run.notebook}: {what} "
            f"since paths.outputs_for() chose {relative(results)} for this run; nothing was written. Run the notebook "
            f"again from the cell that calls paths.outputs_for (Run > Run All Cells) so its outputs go where these "
            f"parameters belong.")


def write_path(target: str | os.PathLike) -> Path:
    """Where to write the output ``target`` (a file under :data:`results` or :data:`figures`) now: ``target``
    itself, or its place in the runner's staging folder; refused when the run's parameters changed since
    :func:`outputs_for` (:func:`check_unchanged`)."""
    check_unchanged()
    target = Path(target)
    if staging is None:
        return target
    try:
        return staging / target.relative_to(root)
    except ValueError:
        return target


@contextlib.contextmanager
def results_for_writing():
    """:data:`results` pointed at where its files are written (:func:`write_path`) for the duration of a block,
    for a writer that builds its own path from ``paths.results`` (:func:`flashrepro.claims.write`)."""
    global results
    final = results
    results = write_path(final)
    try:
        yield final
    finally:
        results = final
