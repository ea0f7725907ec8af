"""The package's Numba cache: one folder per version of the source, shared by every checkout of it."""

import os

import pytest

from flashrepro import jitcache


def _package(root, text="x = 1\n"):
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text(text)
    (root / "sub" / "b.py").write_text("y = 2\n")
    return root


def test_source_hash_covers_every_file_and_name(tmp_path):
    a = jitcache.source_hash(_package(tmp_path / "a"))
    assert a == jitcache.source_hash(_package(tmp_path / "a2"))  # same source elsewhere: same version
    assert a != jitcache.source_hash(_package(tmp_path / "b", "x = 3\n"))
    c = _package(tmp_path / "c")
    (c / "sub" / "b.py").rename(c / "sub" / "b2.py")
    assert jitcache.source_hash(c) != a
    assert len(a) == 16


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
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    assert impl._locator_classes[0] is jitcache.PackageLocator
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
