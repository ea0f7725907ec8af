"""The package's Numba cache: one folder per version of the source, shared by every checkout of it."""

import os

import pytest

from flashrepro import jitcache


def _package(root, text="x = 1\n"):
    """A package ``pkg``: a kernel module importing a helper (``sub/b.py``), and a module no kernel imports."""
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "kern.py").write_text("from numba import njit\nfrom .sub import b\n")
    (pkg / "sub" / "b.py").write_text(text)
    (pkg / "prose.py").write_text("from .sub.b import x\n")
    return pkg


def test_source_hash_covers_what_kernels_import(tmp_path):
    a = jitcache.source_hash(_package(tmp_path / "a"))
    assert a == jitcache.source_hash(_package(tmp_path / "a2"))  # same source elsewhere: same version
    assert a != jitcache.source_hash(_package(tmp_path / "b", "x = 3\n"))  # a helper a kernel imports
    c = _package(tmp_path / "c")
    (c / "prose.py").write_text("changed = True\n")  # nothing a kernel imports
    assert jitcache.source_hash(c) == a
    names = sorted(p.relative_to(c).as_posix() for p in jitcache.kernel_sources(c))
    assert names == ["kern.py", "sub/__init__.py", "sub/b.py"]
    assert len(a) == 16
    ours = {p.relative_to(jitcache.PACKAGE).as_posix() for p in jitcache.kernel_sources()}
    assert {"jitkit.py", "cache/lru.py", "ftl/_kernel.py", "traces/trace.py"} <= ours
    assert not ours & {"cli.py", "notebooks.py", "papers/twor/text.py"}


def test_cache_root_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("FLASHREPRO_JIT_CACHE", "off")
    assert jitcache.cache_root() is None
    monkeypatch.setenv("FLASHREPRO_JIT_CACHE", str(tmp_path))
    assert jitcache.cache_root() == tmp_path
    monkeypatch.delenv("FLASHREPRO_JIT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jitcache.cache_root() == tmp_path / "xdg" / "flashrepro" / "numba"


def test_the_package_kernels_are_cached_in_this_versions_folder():
    folder = jitcache.PackageLocator.folder
    if folder is None:
        pytest.skip("FLASHREPRO_JIT_CACHE=off in this environment")
    assert folder.name == jitcache.source_hash()
    assert jitcache.locator_classes()[0] is jitcache.PackageLocator
    from flashrepro.cache import lru

    kernel = lru._lru_step.py_func
    loc = jitcache.PackageLocator.from_function(kernel, kernel.__code__.co_filename)
    assert loc.get_cache_path() == str(folder / "cache") and loc.get_source_stamp() == folder.name

    def outside():  # a function outside the package is left to Numba's own locators
        return 1

    assert jitcache.PackageLocator.from_function(outside, __file__) is None


def test_old_versions_are_pruned(tmp_path):
    for i in range(7):
        d = tmp_path / f"v{i}"
        d.mkdir()
        os.utime(d, (1000 + i, 1000 + i))
    current = tmp_path / "v0"  # the oldest is the one in use: it stays
    jitcache._prune(tmp_path, current)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v0", "v4", "v5", "v6"]


_PROBE = """
import sys
import numpy as np
from flashrepro.traces import fastparse
from numba.np import linalg

fastparse.count_lines(np.zeros(4, np.uint8))  # a kernel from the cache: Numba's CPU target loaded
from numba.np import arraymath

from numba.core.typing import cffi_utils

print("scipy.linalg" in sys.modules, arraymath._HAVE_BLAS, hasattr(linalg.ensure_blas, "real"))
print("pycparser" in sys.modules, cffi_utils.SUPPORTED, cffi_utils.ffi._ffi is None)
print(cffi_utils.map_type(cffi_utils.ffi.typeof("int")), "pycparser" in sys.modules)  # made when first used
import scipy.linalg.cython_blas  # noqa: E402,F401  (the answer the import gives: BLAS is there)
from numba import njit  # noqa: E402

print(njit(lambda a, b: np.dot(a, b))(np.arange(3.0), np.ones(3)))  # a BLAS call still compiles and runs
"""


def test_numbas_start_up_probes_import_neither_scipy_linalg_nor_pycparser():
    """Loading Numba's target (the first kernel call of a run) leaves scipy.linalg unimported (0.18 s of CPU
    time), with arraymath's BLAS flag what the import would have said and Numba's ensure_blas the real one
    again; np.dot in a kernel compiles through the real check. Numba's cffi FFI (pycparser's lexer, 0.03 s) is
    made when first used. In a fresh interpreter: this one has Numba's target loaded long ago."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, check=True)
    blas, ffi, used, dot = out.stdout.strip().splitlines()[-4:]
    assert blas == "False True False", out.stdout
    assert dot == "3.0"
    assert ffi == "False True True"
    assert used == "int32 True"


_CHECK = """
from flashrepro import jitcache
folder = jitcache.PackageLocator.folder
print(jitcache.locator_classes()[0] is jitcache.PackageLocator, folder.name == jitcache.source_hash())
"""
_LAZY = """
import sys
import flashrepro
print("numba" in sys.modules)
from flashrepro.cache import lru  # defines kernels: Numba comes in, and is set up before the first one
""" + _CHECK
_EARLY = """
import numba  # before the package: it is set up when the package is imported
import flashrepro
""" + _CHECK
_DIRECT = """
import flashrepro.jitcache  # the module that sets Numba up is the first to import it
""" + _CHECK


@pytest.mark.parametrize("script,expect", [(_LAZY, ["False", "True True"]), (_EARLY, ["True True"]),
                                           (_DIRECT, ["True True"])],
                         ids=["numba-after-the-package", "numba-before-the-package", "jitcache-first"])
def test_numba_is_set_up_when_it_is_first_imported_and_not_by_the_package(script, expect, tmp_path):
    """Importing the package does not import Numba; the first import of Numba (by a module defining kernels) puts
    the package's cache locator in place before any kernel is defined, and so does importing the package when
    Numba is already imported, or importing flashrepro.jitcache first. In a fresh interpreter each, with the
    cache in a folder of the test's own."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), FLASHREPRO_JIT_CACHE=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == expect


def test_after_import_leaves_a_missing_module_missing_and_runs_once(tmp_path, monkeypatch):
    """A module that is not installed fails to import as it would without the hook (and the hook is gone); one
    that is runs the function once, after its code, on its first import only."""
    import importlib
    import sys

    from flashrepro._after_import import after_import

    calls = []
    after_import("flashrepro_no_such_module", lambda: calls.append("missing"))
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("flashrepro_no_such_module")
    assert not any(getattr(f, "name", None) == "flashrepro_no_such_module" for f in sys.meta_path)
    (tmp_path / "flashrepro_hooked.py").write_text("import sys\nLOADED = 'flashrepro_hooked' in sys.modules\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    after_import("flashrepro_hooked", lambda: calls.append(sys.modules["flashrepro_hooked"].LOADED))
    importlib.import_module("flashrepro_hooked")
    importlib.import_module("flashrepro_hooked")
    monkeypatch.delitem(sys.modules, "flashrepro_hooked")
    assert calls == [True]


_TOY_RUN = """
import numpy as np
import toys
from flashrepro import jitkit as jk
toys._write_back(jk.list_new(4), np.zeros(4, np.uint8), np.zeros(4, np.int64), 4, -1, np.zeros((1, 6), np.int64), 0,
                 False, 0, 0)
s = toys._write_back.stats
print(type(toys._write_back._cache._impl.locator).__name__, sum(s.cache_hits.values()), sum(s.cache_misses.values()))
"""


def test_the_toys_compile_once_per_machine_not_once_per_checkout(tmp_path):
    """tests/toys.py in a second checkout (a copy with a later modification time, as a clean clone has) loads its
    kernels from the cache the first one filled: Numba's own cache, keyed by the file's time, compiled them
    again in every clone."""
    import shutil
    import subprocess
    import sys

    src = os.path.join(os.path.dirname(__file__), "toys.py")
    outs = []
    for i, name in enumerate(("first", "second")):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copyfile(src, folder / "toys.py")
        os.utime(folder / "toys.py", (1e9 + i, 1e9 + i))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(jitcache.PACKAGE.parent)]))
        run = subprocess.run([sys.executable, "-c", _TOY_RUN], capture_output=True, text=True, env=env, timeout=300,
                             cwd=folder, check=True)
        outs.append(run.stdout.split())
    assert outs[0][0] == "ToysLocator" and outs[1] == ["ToysLocator", "1", "0"]
    assert not (tmp_path / "second" / "__pycache__").exists()
