"""Where Numba keeps the package's compiled kernels: one folder per version of the package's source.

Numba's default cache sits in ``__pycache__`` beside each source file and is keyed by that file alone, so a
fresh clone (or a worktree, or a second checkout) compiles every kernel again, several minutes on a small
machine, and a kernel whose file did not change is reused even when a helper it inlines from another file
did. This module puts the package's kernels in ``<cache>/<source hash>/<subpackage>/`` instead, where the
source hash covers every ``.py`` file of the package: any edit anywhere is a new folder (never a stale
kernel), and every checkout of the same source shares one compiled set.

``<cache>`` is ``$FLASHREPRO_JIT_CACHE`` if set, else ``$XDG_CACHE_HOME/flashrepro/numba`` (``~/.cache``).
``FLASHREPRO_JIT_CACHE=off`` leaves Numba's own locators in charge. At most :data:`KEEP` source versions
are kept; older folders are removed when a new one is made. :func:`install` runs when the package is
imported, before any kernel is defined; functions outside the package are left to Numba.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
KEEP = 4  # source versions kept side by side (e.g. main and a branch or two)


def source_hash(package: Path = PACKAGE) -> str:
    """SHA-256 (first 16 hex digits) of every ``.py`` file under ``package``, names and contents."""
    h = hashlib.sha256()
    for p in sorted(package.rglob("*.py")):
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
    from numba.core import caching

    PackageLocator.folder = folder
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # the name lost its underscore in 0.61
    classes = impl._locator_classes
    if PackageLocator not in classes:
        classes.insert(0, PackageLocator)
    return folder


def _locator_base():
    from numba.core import caching

    return caching._SourceFileBackedLocatorMixin, caching._CacheLocator


class PackageLocator(*_locator_base()):
    """Numba cache locator for the package's own functions: the folder of this source version, the source
    hash as the stamp (so the index never mixes versions either)."""

    folder: Path | None = None

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        rel = Path(py_file).resolve().relative_to(PACKAGE).parent
        self._cache_path = str(self.folder / rel)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return self.folder.name

    @classmethod
    def from_function(cls, py_func, py_file):
        if cls.folder is None or not py_file:
            return None
        try:
            Path(py_file).resolve().relative_to(PACKAGE)
        except (ValueError, OSError):
            return None
        return super().from_function(py_func, py_file)
