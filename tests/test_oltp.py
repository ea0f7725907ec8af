"""Paper 4's growing-database model and the stream statistics of Figs. 1 and 2."""

import numpy as np
import pytest
from reference import growing_db_writes

from flashrepro.traces.oltp import GrowingDB, StreamStats, calibrate, stream_stats


def small(**kw):
    args = dict(name="db", logical_pages=600, initial_pages=50, final_pages=500, n_writes=3000, skew=0.8,
                insert_only=0.4, seed=3)
    args.update(kw)
    return GrowingDB(**args)


@pytest.mark.parametrize("kw", [{}, {"skew": 0.0}, {"skew": 2.5, "insert_only": 0.0}, {"insert_only": 0.9, "seed": 9}])
def test_matches_reference_write_by_write(kw):
    m = small(**kw)
    assert np.concatenate(list(m.chunks(size=777))).tolist() == growing_db_writes(m)


@pytest.mark.parametrize("initial,final,n_writes", [(50, 500, 450), (500, 500, 900), (1, 600, 601), (7, 590, 3001)])
def test_growth_schedule_matches_reference_at_its_edges(initial, final, n_writes):
    # a page created by every write, none, and remainders that wrap at chunk boundaries
    m = small(initial_pages=initial, final_pages=final, n_writes=n_writes)
    for size in (1, 13, 1 << 20):
        assert np.concatenate(list(m.chunks(size=size))).tolist() == growing_db_writes(m)


def test_growth_insert_only_and_chunking():
    m = small()
    w = np.concatenate(list(m.chunks(size=100)))
    assert np.array_equal(w, np.concatenate(list(m.chunks(size=1 << 20))))
    assert len(w) == m.n_writes
    k = m.classes()
    # pages are created in order, each by its first write, and never written before it exists
    first = {}
    for i, p in enumerate(w):
        first.setdefault(int(p), i)
    created = sorted(p for p in first if p >= m.initial_pages)
    assert created == list(range(m.initial_pages, m.final_pages))
    assert all(first[p] < first[p + 1] for p in range(m.initial_pages, m.final_pages - 1))
    # insert-only pages are written exactly once, by their creation
    counts = np.bincount(w, minlength=m.logical_pages)
    ins = np.flatnonzero(k < 0)
    assert np.all(counts[ins[ins >= m.initial_pages]] == 1)
    assert np.all(counts[ins[ins < m.initial_pages]] == 0)


def test_skew_orders_pages_by_popularity_class():
    m = small(n_writes=200_000, insert_only=0.0, final_pages=60, initial_pages=60, logical_pages=60, skew=1.0)
    counts = np.bincount(np.concatenate(list(m.chunks())), minlength=60)
    w = m.class_weights()[m.classes()]
    expect = w / w.sum() * m.n_writes
    assert np.allclose(counts, expect, rtol=0.1)


def test_stats_on_a_hand_made_stream():
    # 4 pages, prefill 2, writes: 0 0 0 2 1 0 3 -> counts [4,1,1,1]; last [5,4,3,6]
    s = StreamStats(np.array([4, 1, 1, 1]), np.array([5, 4, 3, 6]), 7)
    assert s.top_share(0.25) == pytest.approx(4 / 7)
    assert s.frozen([0.0, 4 / 7, 1.0]).tolist() == [0.0, 0.25, 1.0]
    x, y = s.cdf(5)
    assert y[0] == 0 and y[-1] == pytest.approx(1.0) and y[1] == pytest.approx(4 / 7)


def test_stream_stats_counts_prefill_as_loaded():
    m = small()
    s = stream_stats(m)
    assert s.n_writes == m.n_writes and s.counts.sum() == m.n_writes
    # initial pages never updated are frozen from the start
    untouched = np.flatnonzero(s.counts[: m.initial_pages] == 0)
    assert s.frozen(0.0)[0] == pytest.approx(len(untouched) / m.logical_pages)


@pytest.mark.parametrize("chunk", [5, 16, 17, 777, 1 << 22])
def test_stream_stats_equal_a_count_in_python(chunk):
    """Each page's writes and last write index, against a plain loop over the stream, fed in chunks of several
    sizes (positions carry over from chunk to chunk)."""
    from flashrepro.traces.oltp import StatsTap

    m = small()
    writes = growing_db_writes(m)
    counts, last = [0] * m.logical_pages, [-1] * m.prefill + [-2] * (m.logical_pages - m.prefill)
    for i, p in enumerate(writes):
        counts[p] += 1
        last[p] = i
    tap = StatsTap(m)
    for arr in m.chunks(size=chunk):
        tap(arr)
    s = tap.stats()
    assert s.counts.tolist() == counts and s.last.tolist() == last and s.n_writes == len(writes)
    assert tap.last.tolist() == last


def test_calibrate_hits_its_targets():
    base = small(n_writes=40_000, final_pages=2000, logical_pages=2000, initial_pages=200)
    model, hist = calibrate(base, top20=0.7, frozen60=0.3, rounds=2, steps=7)
    assert abs(hist[-1]["top20"] - 0.7) < 0.03 and abs(hist[-1]["frozen60"] - 0.3) < 0.03
    assert (model.skew, model.insert_only) != (base.skew, base.insert_only)


def test_bad_models():
    with pytest.raises(ValueError):
        small(initial_pages=0)
    with pytest.raises(ValueError):
        small(n_writes=10)
    with pytest.raises(ValueError):
        small(insert_only=1.0)


def test_stats_gathered_by_a_run_equal_the_streams():
    from flashrepro.ftl import Geometry, run
    from flashrepro.traces.oltp import StatsTap

    m = small()
    r = run(m, ["greedy", "2r"], Geometry(16, 48, 600), chunk=333, progress=False, tap=StatsTap(m))
    got, want = r.tap.stats(), stream_stats(m)
    assert got.n_writes == want.n_writes == m.n_writes
    assert np.array_equal(got.counts, want.counts) and np.array_equal(got.last, want.last)
