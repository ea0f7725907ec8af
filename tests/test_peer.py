"""Peer check: our LRU and CLOCK miss counts equal libCacheSim's on the same request stream."""

import numpy as np
import pytest
from conftest import real_trace_dir

from flashrepro.cache import simulate
from flashrepro.peer import libcachesim_misses
from flashrepro.traces import catalog, synthetic

pytest.importorskip("libcachesim")
PAIRS = [("lru", "LRU"), ("clock", "Clock")]


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("capacity", [100, 1000, 5000])
def test_zipf_matches_libcachesim(ours, theirs, capacity, tmp_path):
    tr = synthetic.zipf(20_000, 100_000, 0.9, seed=7)
    refs = tr.to_pages()
    assert simulate(tr, ours, capacity).counters["misses"] == libcachesim_misses(refs, theirs, capacity, tmp_path)


@pytest.mark.realtrace
@pytest.mark.skipif(real_trace_dir() is None, reason="FLASHREPRO_TRACE_DIRS names no trace folder")
@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", ["real/personal_pc/mayun", "real/arc/P3"])
def test_real_trace_matches_libcachesim(ours, theirs, name, tmp_path):
    if not catalog.available(name) or catalog.origin(name) != "real":
        pytest.skip(f"{name} not present")
    tr = catalog.get(name, scale="quick")
    refs = tr.to_pages()
    for capacity in (256, 4096):
        assert simulate(tr, ours, capacity).counters["misses"] == \
            libcachesim_misses(refs, theirs, capacity, tmp_path), capacity


def test_peer_file_is_exact(tmp_path):
    from flashrepro.peer import write_oracle_general

    refs = synthetic.uniform(100, 50, seed=1).to_pages()
    path = write_oracle_general(refs, tmp_path / "x.bin")
    rec = np.fromfile(path, dtype=np.dtype([("t", "<u4"), ("id", "<u8"), ("sz", "<u4"), ("nv", "<i8")]))
    assert rec["id"].tolist() == (refs.dense + 1).tolist()
    assert set(rec["sz"].tolist()) == {1}
