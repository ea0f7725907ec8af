"""Where Numba keeps the package's compiled kernels: one folder per version of the package's source.

Numba's default cache sits in ``__pycache__`` beside each source file and is keyed by that file alone, so a
fresh clone (or a worktree, or a second checkout) compiles every kernel again, several minutes on a small
machine, and a kernel whose file did not change is reused even when a helper it inlines from another file
did. This module puts the package's kernels in ``<cache>/<source hash>/<subpackage>/`` instead, where the
source hash covers every file a kernel can depend on: the modules that use Numba and every package module
they import, transitively (about half the package: a paper's text, claims or figures, the notebooks' runner
and the command line are not among them). An edit to any of those is a new folder (never a stale kernel);
every checkout of the same source shares one compiled set.

``<cache>`` is ``$FLASHREPRO_JIT_CACHE`` if set, else ``$XDG_CACHE_HOME/flashrepro/numba`` (``~/.cache``).
``FLASHREPRO_JIT_CACHE=off`` leaves Numba's own locators in charge. At most :data:`KEEP` source versions
are kept; older folders are removed when a new one is made. Importing this module sets Numba up (:func:`set_up`:
:func:`install` and the two start-up savings below); :mod:`flashrepro` imports it right after Numba is first
imported, before any kernel is defined. Functions outside the package are left to Numba.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
KEEP = 4  # source versions kept side by side (e.g. main and a branch or two)


_USES_NUMBA = re.compile(r"^[ \t]*(?:from|import)[ \t]+numba\b", re.M)  # imports Numba (not: names it in text)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)


def kernel_sources(package: Path = PACKAGE) -> list[Path]:
    """The files a compiled kernel can depend on: every module that imports Numba or uses ``njit``, and every
    module of the package that one of those imports (``from . import x``, ``from .x import y``, ``from
    <package>.x import y``; at the top or inside a function), transitively. Read with a regular expression,
    not parsed: this runs at every import of the package. A module that only names Numba in its text (the
    report's list of package versions) is not a kernel's."""
    top = package.name
    files = {}
    for p in package.rglob("*.py"):
        parts = list(p.relative_to(package.parent).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    texts = {m: p.read_text(encoding="utf-8", errors="replace") for m, p in files.items()}

    def imports(mod: str) -> set[str]:
        pkg = mod if files[mod].name == "__init__.py" else mod.rpartition(".")[0]
        out = set()
        for dots, name, names in _FROM.findall(texts[mod]):
            if dots:
                base = pkg.split(".")[: len(pkg.split(".")) - len(dots) + 1]
                target = ".".join(base + ([name] if name else []))
            elif name == top or name.startswith(top + "."):
                target = name
            else:
                continue
            out |= {c for c in [target] + [f"{target}.{n}" for n in re.findall(r"\w+", names)] if c in files}
        return out

    todo = [m for m, t in texts.items() if _USES_NUMBA.search(t) or "njit" in t]
    seen = set(todo)
    while todo:
        for dep in imports(todo.pop()) - seen:
            seen.add(dep)
            todo.append(dep)
    return sorted(files[m] for m in seen)


def source_hash(package: Path = PACKAGE) -> str:
    """SHA-256 (first 16 hex digits) of :func:`kernel_sources`, names and contents."""
    h = hashlib.sha256()
    for p in kernel_sources(package):
        h.update(p.relative_to(package).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_root() -> Path | None:
    """The folder that holds one subfolder per source version, or None when switched off."""
    env = os.environ.get("FLASHREPRO_JIT_CACHE", "")
    if env.lower() == "off":
        return None
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "flashrepro" / "numba"


def _prune(root: Path, current: Path) -> None:
    """Remove all but the :data:`KEEP` most recently used source versions (the current one always stays)."""
    try:
        versions = sorted((d for d in root.iterdir() if d.is_dir() and d != current),
                          key=lambda d: d.stat().st_mtime, reverse=True)
    except OSError:
        return
    for d in versions[KEEP - 1:]:
        shutil.rmtree(d, ignore_errors=True)


def install() -> Path | None:
    """Put :class:`PackageLocator` first among Numba's cache locators; returns this version's folder (None
    when switched off or not writable, where Numba's defaults apply)."""
    root = cache_root()
    if root is None:
        return None
    folder = root / source_hash()
    try:
        new = not folder.is_dir()
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # most recently used
    except OSError:
        return None
    if new:
        _prune(root, folder)
    PackageLocator.folder = folder
    classes = locator_classes()
    if PackageLocator not in classes:
        classes.insert(0, PackageLocator)
    return folder


def locator_classes() -> list:
    """Numba's cache locator classes, in the order it tries them for a function (the list itself: insert a
    locator to have it tried). Its class is ``CacheImpl`` from Numba 0.61, ``_CacheImpl`` before."""
    return (getattr(caching, "CacheImpl", None) or caching._CacheImpl)._locator_classes


class PackageLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator for the package's own functions: the folder of this source version, the source
    hash as the stamp (so the index never mixes versions either)."""

    folder: Path | None = None
    _ready: set = set()  # cache folders made and found writable in this process

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(self.folder / _package_path(py_file).parent)

    def get_cache_path(self):
        return self._cache_path

    def ensure_cache_path(self):
        """Numba's check (make the folder, create a temporary file in it) once per folder and process, not once
        per kernel: ~130 kernels are defined when the command line is imported."""
        if self._cache_path not in self._ready:
            super().ensure_cache_path()
            self._ready.add(self._cache_path)

    def get_source_stamp(self):
        return self.folder.name

    @classmethod
    def from_function(cls, py_func, py_file):
        if cls.folder is None or not py_file or _package_path(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


@functools.cache
def _package_path(py_file: str) -> Path | None:
    """``py_file`` relative to the package, or None outside it (resolved once per file, not once per kernel)."""
    try:
        return Path(py_file).resolve().relative_to(PACKAGE)
    except (ValueError, OSError):
        return None


def _scipy_blas_on_disk() -> bool:
    """Whether ``scipy.linalg.cython_blas`` is a module file where an import would find it (found, not
    imported: that would import ``scipy.linalg``)."""
    try:
        spec = importlib.util.find_spec("scipy")  # a top-level package is found without importing it
        if spec is None or not spec.submodule_search_locations:
            return False
        dirs = [os.path.join(d, "linalg") for d in spec.submodule_search_locations]
        return importlib.machinery.PathFinder.find_spec("scipy.linalg.cython_blas", dirs) is not None
    except (ImportError, ValueError, OSError):
        return False


def defer_blas_probe() -> bool:
    """Answer Numba's import-time "is there a BLAS?" probe from the disk instead of by importing scipy.linalg.

    The first kernel a process calls (compiled or loaded from the cache) loads Numba's CPU target, which
    imports ``numba.np.arraymath``; that module sets its ``_HAVE_BLAS`` flag by calling
    ``numba.np.linalg.ensure_blas()``, which imports ``scipy.linalg.cython_blas`` and with it scipy.linalg and
    the array-API modules it clones numpy into: 0.18 s of CPU time at the start of every run (a third of a 5M-line
    first run's parse), for a flag that only ``np.dot`` and its kin read, when they compile (the package's
    kernels call no BLAS). Here that one call, the one made from arraymath's module code, is answered by
    whether the module is a file scipy would load (the same answer as the import, barring a broken scipy);
    every other call to ``ensure_blas``, such as Numba's own before it compiles a BLAS call, is the real one.
    Does nothing (False) when arraymath is already imported, scipy's BLAS module is not on disk, or Numba has
    no ``numba.np.linalg.ensure_blas``."""
    if "numba.np.arraymath" in sys.modules or not _scipy_blas_on_disk():
        return False
    try:
        from numba.np import linalg
        real = linalg.ensure_blas
    except (ImportError, AttributeError):
        return False

    def ensure_blas():
        if sys._getframe(1).f_globals.get("__name__") != "numba.np.arraymath":
            return real()
        linalg.ensure_blas = real  # arraymath's probe, made once: from now on the real check only
        return None

    ensure_blas.real = real
    linalg.ensure_blas = ensure_blas
    return True


class _DeferredFFI:
    """Stands for the ``cffi.FFI()`` Numba makes when its CPU target loads: made on first use instead."""

    def __init__(self, make):
        self._make, self._ffi = make, None

    def __getattr__(self, name):
        if self._ffi is None:
            self._ffi = self._make()
        return getattr(self._ffi, name)


def defer_cffi_parser() -> bool:
    """Make Numba's ``cffi.FFI()`` when it is first used instead of when Numba's CPU target loads.

    Loading the target (the first kernel call of a process) imports ``numba.core.typing.cffi_utils``, which
    makes an FFI at once if cffi is installed; that builds pycparser's C lexer (0.03 s of CPU time, its regular
    expressions compiled) for typing cffi functions, which the package's kernels never take. Here that module
    is imported now with ``cffi.FFI`` standing for a :class:`_DeferredFFI` while it runs (and the real class
    again after): its ``ffi`` makes the real FFI on its first use, and ``SUPPORTED`` is True as before. Does
    nothing (False) when cffi is not installed or the module is already imported."""
    if "numba.core.typing.cffi_utils" in sys.modules:
        return False
    try:
        import cffi
    except ImportError:
        return False
    real = cffi.FFI
    cffi.FFI = lambda: _DeferredFFI(real)
    try:
        from numba.core.typing import cffi_utils
    finally:
        cffi.FFI = real
    return isinstance(cffi_utils.ffi, _DeferredFFI)


def set_up() -> None:
    """The package's cache locator first (:func:`install`), Numba's BLAS probe answered from the disk
    (:func:`defer_blas_probe`) and its cffi parser made when first used (:func:`defer_cffi_parser`)."""
    install()
    defer_blas_probe()
    defer_cffi_parser()


set_up()  # on this module's import, which comes right after Numba's (flashrepro/__init__.py)
