"""Seeded generators: same seed, same trace; the distributions they promise."""

import numpy as np
import pytest

from flashrepro.traces import catalog, synthetic


@pytest.mark.parametrize("make", [
    lambda s: synthetic.zipf(1000, 5000, 0.9, seed=s, write_fraction=0.3),
    lambda s: synthetic.uniform(1000, 5000, seed=s, write_fraction=0.3),
    lambda s: synthetic.sequential(10_000, 5000, seed=s, write_fraction=0.3),
    lambda s: synthetic.mixture(synthetic.Mixture(n_pages=20_000, hot_pages=500), 5000, seed=s),
])
def test_seeded(make):
    a, b, c = make(1), make(1), make(2)
    for col in ("time_s", "op", "offset_bytes", "size_bytes"):
        assert np.array_equal(getattr(a, col), getattr(b, col))
    assert not np.array_equal(a.offset_bytes, c.offset_bytes)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 0.9, 1.2])
def test_zipf_rank_frequencies(alpha):
    n_items, n = 50, 400_000
    ranks = synthetic.zipf_ranks(np.random.default_rng(3), n_items, n, alpha)
    p = np.arange(1, n_items + 1, dtype=float) ** -alpha
    p /= p.sum()
    freq = np.bincount(ranks, minlength=n_items) / n
    # each frequency within 5 binomial standard deviations of its probability
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n))


def test_write_fraction_and_sizes():
    tr = synthetic.zipf(1000, 20_000, 0.9, seed=4, write_fraction=0.25)
    assert abs(tr.n_writes / len(tr) - 0.25) < 0.02
    assert set(tr.size_bytes.tolist()) == {4096}
    seq = synthetic.sequential(100_000, 128, seed=1, run_requests=64, request_pages=8)
    assert np.all(np.diff(seq.offset_bytes[:64]) == 8 * 4096)


def test_mixture_components():
    spec = synthetic.Mixture(n_pages=100_000, hot_pages=1000, p_hot=0.5, p_seq=0.3)
    tr = synthetic.mixture(spec, 50_000, seed=5)
    pages = tr.offset_bytes // 4096
    assert np.all(pages + tr.size_bytes // 4096 <= spec.n_pages)
    hot_share = np.mean(pages < spec.hot_pages)
    assert 0.5 <= hot_share <= 0.5 + 0.2 * 0.02 + 0.02  # hot requests plus the few cold ones landing there
    assert np.all(np.isin(tr.size_bytes // 4096, spec.size_pages))
    with pytest.raises(ValueError):
        synthetic.Mixture(n_pages=10, hot_pages=20)


def test_catalog_synthetic_always_available():
    for name in catalog.names("synthetic/"):
        assert catalog.available(name)
        assert len(catalog.get(name, "ci")) == 20_000
    with pytest.raises(ValueError, match="unknown workload"):
        catalog.get("nope")
    with pytest.raises(ValueError, match="unknown scale"):
        catalog.get("synthetic/uniform", scale="huge")
