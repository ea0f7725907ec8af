"""What the report (:mod:`flashrepro.site`) says beside the ledger, gathered without running or importing the
paper packages: where its numbers came from (:func:`provenance`) and what each figure shows and which ledger
rows it supports (:func:`paper_figures`, :func:`robustness_figures`, :func:`supporting_rows`).

Provenance
    the git commit of the checkout and whether its tree is dirty; per executed notebook the scale it ran at
    (papermill's ``parameters`` in the notebook's metadata, else the notebook's own default), when, for how
    long, whether it raised, and the commits to ``lib/``, ``notebooks/`` or ``data/paper/`` made after it ran
    (its outputs may predate them); the scale of the robustness maps (``headline.csv``); the trace folders
    searched (``data/raw`` and ``FLASHREPRO_TRACE_DIRS``) and which of the catalog's real traces they hold;
    the Python and package versions; the build date (given, or ``SOURCE_DATE_EPOCH``, or now: the one field
    that differs between two builds from the same inputs).
Captions
    a paper's figures are the ``.png`` outputs its package declares (``PAPER.outputs``, read from the
    package's source like :mod:`flashrepro.papers.spec`, the package imported only where a declaration is
    not literal). A caption is the output's ``ref`` ("Fig. 2"), the heading of the notebook section whose
    cell writes the file, and the first sentence of the plotting function's docstring. A figure supports the
    ledger rows of its paper whose ``source`` names one of the paper figures its ``ref`` names ("Fig. 8" in
    "Fig. 8, Sec. IV" against "Figs. 8-9"; "Fig. 10A" against "Figs. 10-11"); an output that names no paper
    figure (an extension, a heat map, the theory checks) supports none by this rule, and says so. The
    robustness maps' figures (``robustness_<paper>_<slug>.png``) support the headline rows they plot.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import functools
import importlib.metadata
import json
import os
import platform
import re
import subprocess
from pathlib import Path

from . import paths
from .papers import specs
from .papers.spec import output_names

PACKAGES = ("numba", "numpy", "polars", "papermill", "matplotlib", "nbconvert", "llvmlite")
INPUTS = ("lib", "notebooks", "data/paper")  # what a notebook's outputs depend on (the Makefile's rule)


# --- provenance -------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Git:
    """The checkout: ``commit`` (full hash, "" when unknown), its subject and date, the branch, and
    ``dirty``: ``git status --porcelain`` lines (untracked files included, ignored ones not)."""

    commit: str = ""
    subject: str = ""
    date: str = ""
    branch: str = ""
    dirty: tuple = ()
    error: str = ""

    @property
    def short(self) -> str:
        return self.commit[:10]


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"git {' '.join(args)} failed")
    return out.stdout


def git_state(root: Path | None = None) -> Git:
    root = Path(root or paths.root)
    try:
        commit, date, subject = _git(root, "log", "-1", "--format=%H%x09%cI%x09%s").rstrip("\n").split("\t", 2)
        branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
        dirty = tuple(line for line in _git(root, "status", "--porcelain").splitlines() if line.strip())
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
        return Git(error=f"not a git checkout, or git is missing ({str(e).splitlines()[0] if str(e) else e})")
    return Git(commit, subject, date, branch, dirty)


def input_commits(root: Path | None = None) -> tuple:
    """``(short hash, ISO date, subject)`` of every commit to :data:`INPUTS`, newest first (() without git)."""
    try:
        out = _git(Path(root or paths.root), "log", "--format=%h%x09%cI%x09%s", "--", *INPUTS)
    except (OSError, RuntimeError, subprocess.SubprocessError):
        return ()
    return tuple(tuple(line.split("\t", 2)) for line in out.splitlines() if line.count("\t") >= 2)


def commits_after(when: str, root: Path | None = None, commits: tuple | None = None) -> tuple:
    """The :func:`input_commits` (or ``commits``) made after ``when`` (ISO time), newest first; () when there
    are none or git cannot say."""
    try:
        since = dt.datetime.fromisoformat(when)
    except (TypeError, ValueError):
        return ()
    found = []
    for h, date, subject in input_commits(root) if commits is None else commits:
        try:
            if dt.datetime.fromisoformat(date) > since:
                found.append((h, date, subject))
        except (TypeError, ValueError):
            continue
    return tuple(found)


@dataclasses.dataclass(frozen=True)
class Run:
    """One executed notebook: its ``scale`` and where that was read (``scale_from``), papermill's times
    (ISO, UTC), the duration in seconds, the exception papermill recorded (None: it ran to the end), the
    kernel's Python, the parameters other than scale, whether a trace folder was present (``traces``, from
    ``notebook_timings.csv``; None when not recorded) and the commits to the inputs made after it ran."""

    notebook: str
    scale: str
    scale_from: str
    start: str = ""
    end: str = ""
    duration: float | None = None
    exception: object = None
    python: str = ""
    papermill: str = ""
    parameters: tuple = ()
    traces: bool | None = None
    later_commits: tuple = ()


def notebook_runs(notebooks: Path, results: Path, root: Path | None = None) -> list[Run]:
    """Every ``*.ipynb`` in ``notebooks`` (``build/paper``), by name."""
    timings = {}
    tfile = Path(results) / "notebook_timings.csv"
    if tfile.exists():
        import csv

        with open(tfile, newline="") as f:
            for r in csv.DictReader(f):
                timings[(r.get("notebook"), r.get("scale"))] = str(r.get("traces", "")).lower() == "true"
    defaults = {s.notebook: s for s in specs()}
    commits = None  # the log of the inputs, read once, when a notebook says when it ran
    runs = []
    for nb in sorted(Path(notebooks).glob("*.ipynb")) if Path(notebooks).is_dir() else []:
        try:
            meta = json.loads(nb.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError):
            meta = {}
        pm = meta.get("papermill") or {}
        params = dict(pm.get("parameters") or {})
        if "scale" in params:
            scale, where = str(params.pop("scale")), "papermill parameters"
        else:
            spec = defaults.get(nb.stem)
            default = spec.settings.get("scale") if spec is not None and spec.notebook_path.exists() else None
            scale, where = (str(default), "not recorded: the notebook's default") if default else ("unknown", "")
        end = pm.get("end_time") or ""
        if end and commits is None:
            commits = input_commits(root)
        runs.append(Run(nb.stem, scale, where, pm.get("start_time") or "", end, pm.get("duration"),
                        pm.get("exception"), (meta.get("language_info") or {}).get("version", ""),
                        pm.get("version") or "", tuple(sorted((k, str(v)) for k, v in params.items())),
                        timings.get((nb.stem, scale)), commits_after(end, root, commits) if end else ()))
    return runs


@dataclasses.dataclass(frozen=True)
class TraceFolder:
    """A folder searched for real traces (``data/raw``, then ``FLASHREPRO_TRACE_DIRS``): whether it exists,
    its entries (top level), and the catalog's real traces found in it (workload names)."""

    path: str
    exists: bool
    entries: tuple = ()
    found: tuple = ()


@dataclasses.dataclass(frozen=True)
class Traces:
    """``folders`` as searched; ``catalog``: per top-level trace folder of the catalog's real sources
    (``arc``, ``fiu``, ...) the workloads found and those missing."""

    env: str
    folders: tuple
    catalog: tuple  # (group, found names, missing names)

    @property
    def n_found(self) -> int:
        return sum(len(f) for _, f, _ in self.catalog)

    @property
    def n_real(self) -> int:
        return sum(len(f) + len(m) for _, f, m in self.catalog)


def traces() -> Traces:
    """Which of the catalog's real traces the trace folders hold, now (when the report is built)."""
    from .traces import catalog

    dirs = paths.trace_dirs()
    where: dict = {}
    groups: dict = {}
    for name in catalog.names():
        w = catalog.CATALOG[name]
        if w.real is None or not w.real.relpath:
            continue
        hit = paths.find_trace(w.real.relpath)
        group = w.real.relpath.split("/", 1)[0]
        found, missing = groups.setdefault(group, ([], []))
        (found if hit is not None else missing).append(name)
        if hit is not None:
            for d in dirs:
                if hit == d / w.real.relpath:
                    where.setdefault(str(d), []).append(name)
                    break
    folders = []
    for d in dirs:
        entries = tuple(sorted(p.name for p in d.iterdir())) if d.is_dir() else ()
        folders.append(TraceFolder(str(d), d.is_dir(), entries, tuple(where.get(str(d), ()))))
    return Traces(os.environ.get("FLASHREPRO_TRACE_DIRS", ""), tuple(folders),
                  tuple((g, tuple(f), tuple(m)) for g, (f, m) in sorted(groups.items())))


def versions() -> tuple:
    """``(name, version)``: Python, then :data:`PACKAGES` as installed here ("not installed" otherwise)."""
    out = [("python", platform.python_version())]
    for name in PACKAGES:
        try:
            out.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return tuple(out)


def build_date(built: str | dt.datetime | None = None) -> str:
    """The build date as shown: ``built`` when given, else ``SOURCE_DATE_EPOCH`` (seconds, UTC), else now."""
    if isinstance(built, str):
        return built
    if built is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
        built = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch.isdigit() else \
            dt.datetime.now(dt.UTC)
    return built.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclasses.dataclass(frozen=True)
class Provenance:
    git: Git
    runs: tuple
    map_scales: tuple  # (paper, map_scale, claims_scale) in headline.csv
    traces: Traces
    versions: tuple
    platform: str
    built: str


def provenance(results: Path, notebooks: Path, root: Path | None = None, built=None) -> Provenance:
    scales = ()
    head = Path(results) / "headline.csv"
    if head.exists():
        import csv

        with open(head, newline="") as f:
            scales = tuple(sorted({(int(r["paper"]), r.get("map_scale") or "?", r.get("claims_scale") or "?")
                                   for r in csv.DictReader(f) if str(r.get("paper", "")).isdigit()}))
    return Provenance(git_state(root), tuple(notebook_runs(notebooks, results, root)), scales, traces(),
                      versions(), f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
                      build_date(built))


# --- figure ids in a ref or a source ----------------------------------------------------------------------
_FIGS = re.compile(r"\bFig(?:ure)?s?\.?\s*((?:\d+[A-Za-z]?(?:\([a-z]\))?(?:\s*(?:-|–|/|,|and|&)\s*(?=\d))?)+)")
_ONE = re.compile(r"(\d+)([A-Za-z]?)(?:\(([a-z])\))?(\s*(?:-|–)\s*)?")


def figure_ids(text: str) -> frozenset:
    """The paper figures a ``ref`` or ``source`` names, as ``(number, letter)`` (letter "" for none):
    "Figs. 8-9" -> {(8, ""), (9, "")}; "Fig. 10A, Sec. 5.2" -> {(10, "a")}; "Fig. 6(b)" -> {(6, "b")};
    "Figs. 4/5/12/13", "Figs. 9A, 9B, 10 and 11" each figure listed. Tables and sections are not figures."""
    out = set()
    for m in _FIGS.finditer(text or ""):
        items = list(_ONE.finditer(m.group(1)))
        for i, it in enumerate(items):
            n, letter = int(it.group(1)), (it.group(2) or it.group(3) or "").lower()
            out.add((n, letter))
            if it.group(4) and i + 1 < len(items):  # a range "8-9"
                out.update((k, "") for k in range(n + 1, int(items[i + 1].group(1))))
    return frozenset(out)


def same_figure(a: frozenset, b: frozenset) -> bool:
    """Whether two sets of :func:`figure_ids` share a figure (a panel letter matches its figure)."""
    return any(na == nb and (not la or not lb or la == lb) for na, la in a for nb, lb in b)


# --- captions ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Figure:
    """A figure file the report shows: ``ref`` (the paper figure it stands for, or what it adds),
    ``section`` (the heading of the notebook section that writes it), ``doc`` (what the plotting function's
    docstring says first), ``ids`` (:func:`figure_ids` of ``ref``) and, for a robustness map's figure, the
    ``(paper, claim, workload)`` rows it plots."""

    file: str
    ref: str
    section: str = ""
    doc: str = ""
    always: bool = True
    ids: frozenset = frozenset()
    rows: tuple | None = None

    @property
    def stem(self) -> str:
        return self.file.rsplit(".", 1)[0]

    @property
    def title(self) -> str:
        """The bold part of the caption: the section heading when it already starts with the ref, else the ref."""
        return self.section if self.section.startswith(self.ref) else self.ref

    @property
    def shows(self) -> str:
        """The rest of the caption: the section heading (unless it is the title) and the docstring's sentence."""
        parts = [p for p in (self.section if self.section.lower() not in (self.title.lower(), self.ref.lower())
                             else "", self.doc) if p and p.lower() != self.title.lower()]
        return " ".join(p if p.endswith((".", ":", "!", "?")) else p + "." for p in parts)

    @property
    def caption(self) -> str:
        return f"{self.title}. {self.shows}".strip() if self.shows else self.title


_ABBREV = ("Fig", "Figs", "Sec", "Secs", "e.g", "i.e", "vs", "al", "Eq", "cf", "No")


def first_sentence(doc: str | None, limit: int = 320) -> str:
    """The first sentence of a docstring's first paragraph as plain text (reST roles and literals unwrapped;
    "Fig." and the like do not end a sentence), cut at ``limit`` characters."""
    if not doc:
        return ""
    para = " ".join(re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0].split())
    para = re.sub(r":[a-z]+:`~?\.*([^`<]*?)(?:\s*<[^>]*>)?`", lambda m: m.group(1).rsplit(".", 1)[-1], para)
    para = re.sub(r"``([^`]*)``", r"\1", para)
    end = len(para)
    for m in re.finditer(r"[.!?](?=\s+[A-Z(])", para):
        word = re.findall(r"[\w.]+$", para[:m.start()])
        if not (word and word[0] in _ABBREV):
            end = m.end()
            break
    text = para[:end]
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"


@functools.lru_cache(maxsize=128)
def _module_ast(path: str, mtime_ns: int):
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def _ast(path: Path):
    return _module_ast(str(path), path.stat().st_mtime_ns) if path.is_file() else None


def function_doc(path: Path, name: str) -> str:
    """The docstring of top-level function ``name`` in the module at ``path`` (read, not imported)."""
    tree = _ast(path)
    for node in tree.body if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.get_docstring(node) or ""
    return ""


def _package_dir(key: str) -> Path:
    """The folder of paper package ``key``: the first ``<dir>/<key>/__init__.py`` over the papers' ``__path__``
    (a test may add a folder to it)."""
    from . import papers

    for d in papers.__path__:
        if (Path(d) / key / "__init__.py").is_file():
            return Path(d) / key
    return Path(__file__).resolve().parent / "papers" / key


def _module_path(package_dir: Path, dotted: str) -> Path:
    """A submodule of the package in ``package_dir`` (``figures`` -> ``figures.py`` or ``figures/__init__.py``)."""
    p = package_dir.joinpath(*dotted.split("."))
    return p.with_suffix(".py") if p.with_suffix(".py").is_file() else p / "__init__.py"


def declared_outputs(spec) -> list[tuple]:
    """``(ref, docstring, file, always)`` of every output the paper's package declares, read from its
    ``__init__.py``; a declaration that is not literal is read from the imported package instead."""
    pkg_dir = _package_dir(spec.key)
    tree = _ast(pkg_dir / "__init__.py")
    if tree is None:
        return []
    modules, functions = {}, {}  # local name -> submodule; local name -> (submodule, function)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = ("__init__", node.name)
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for a in node.names:
                if node.module is None:
                    modules[a.asname or a.name] = a.name
                else:
                    functions[a.asname or a.name] = (node.module, a.name)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Output"):
            continue
        args = list(node.args) + [None] * (4 - len(node.args))
        kw = {k.arg: k.value for k in node.keywords}
        ref, fn, file, always = (args[0] or kw.get("ref"), args[1] or kw.get("function"), args[2] or kw.get("file"),
                                 args[3] or kw.get("always"))
        try:
            ref, file = ast.literal_eval(ref), ast.literal_eval(file)
            always = True if always is None else bool(ast.literal_eval(always))
        except (ValueError, TypeError, SyntaxError):
            return _imported_outputs(spec)
        if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id in modules:
            doc = function_doc(_module_path(pkg_dir, modules[fn.value.id]), fn.attr)
        elif isinstance(fn, ast.Name) and fn.id in functions:
            doc = function_doc(_module_path(pkg_dir, functions[fn.id][0]), functions[fn.id][1])
        else:
            return _imported_outputs(spec)
        out.append((ref, doc, file, always))
    return out


def _imported_outputs(spec) -> list[tuple]:
    import importlib
    import inspect

    paper = importlib.import_module(spec.package).PAPER
    return [(o.ref, inspect.getdoc(o.function) or "", o.file, o.always) for o in paper.outputs]


_WRITES = re.compile(r"""PAPER\.(?:make|save)\(\s*["']([^"']+)["']""")  # an output written by its name


def notebook_sections(notebook: Path) -> dict[str, str]:
    """Output name as a cell writes it (``PAPER.make("fig2.png", ...)`` or ``PAPER.save(...)``: ``fig2.png``) ->
    the first line of the last markdown cell before the first code cell that writes it, ``#`` marks removed:
    the notebook's own heading for that output (:func:`paper_figures` matches the names to the files)."""
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    heading = ""
    for c in cells:
        src = c.get("source", "")
        src = src if isinstance(src, str) else "".join(src)
        if c.get("cell_type") == "markdown":
            first = next((line for line in src.splitlines() if line.strip()), "")
            heading = first.lstrip("#").strip()
        elif c.get("cell_type") == "code":
            for name in _WRITES.findall(src):
                out.setdefault(name, heading)
    return out


def paper_figures(spec) -> list[Figure]:
    """The ``.png`` figures ``spec``'s package declares, in its order, captioned."""
    sections = notebook_sections(spec.notebook_path)
    figs = []
    for ref, doc, file, always in declared_outputs(spec):
        if file.endswith(".png"):
            section = next((sections[n] for n in output_names(spec.notebook, file) if n in sections), "")
            figs.append(Figure(file, ref, section, first_sentence(doc), always, figure_ids(ref)))
    return figs


ROBUSTNESS = re.compile(r"^robustness_(\d+)_([a-z0-9]+)\.png$")


def robustness_figures(files, ledger: int, headline_rows) -> list[Figure]:
    """The robustness map's figures of paper ``ledger`` among ``files`` (``robustness_<paper>_<slug>.png``),
    each with the headline rows (``(paper, claim, workload, source)`` from ``headline.csv``) it plots."""
    from .robustness.figures import figure_slug

    doc = first_sentence(function_doc(Path(__file__).resolve().parent / "robustness" / "figures.py", "plot_paper"))
    figs = []
    for f in sorted(files):
        m = ROBUSTNESS.match(f)
        if not m or int(m.group(1)) != ledger:
            continue
        slug = m.group(2)
        label = "other sources" if slug == "other" else \
            ("Table " + slug[5:] if slug.startswith("table") else "Fig. " + slug[3:].upper())
        rows = tuple((p, c, w) for p, c, w, s in headline_rows if int(p) == ledger and figure_slug(s) == slug)
        figs.append(Figure(f, f"Robustness map, {label}", f"{label}: the headline claims across the space", doc,
                           True, frozenset(), rows))
    return figs


def supporting_rows(fig: Figure, ledger: int | None, rows) -> list[int]:
    """Indexes into ``rows`` (dicts with ``paper``, ``claim``, ``workload``, ``source``) of the ledger rows
    ``fig`` supports: for a robustness figure the rows it plots, else the rows of paper ``ledger`` whose
    source names a figure its ref names."""
    if ledger is None:
        return []
    if fig.rows is not None:
        want = {(int(p), c, w) for p, c, w in fig.rows}
        return [i for i, r in enumerate(rows) if (r["paper"], r["claim"], r["workload"]) in want]
    if not fig.ids:
        return []
    return [i for i, r in enumerate(rows) if r["paper"] == ledger and same_figure(fig.ids, figure_ids(r["source"]))]
