"""flashrepro.theory.cache: the models' solvers on hand-checkable cases, the exact results against Markov
chains solved here, and the kernels against both on seeded IRM streams, with tolerances from the sampling
error (fixed seeds, seconds)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from flashrepro.cache import simulate
from flashrepro.theory import cache as tc
from flashrepro.traces import PageRefs, synthetic


def _dirichlet(n, seed):
    return np.random.default_rng(seed).dirichlet(np.ones(n))


# --- the solvers on cases worked by hand -------------------------------------------------------------------
@pytest.mark.parametrize("n,C", [(10, 1), (10, 9), (1000, 10), (1000, 500), (100_000, 99_999)])
def test_uniform_popularity_gives_c_over_n(n, C):
    """Every policy holds C of n equally popular items: hit ratio C / n; T has a closed form in both models."""
    q = np.full(n, 1 / n)
    # (a cache of all but one item leaves the equations nearly flat at the root: T to 1e-10 there)
    assert tc.che_time(q, C) == pytest.approx(-n * math.log1p(-C / n), rel=1e-10)
    assert tc.ttl_time(q, C) == pytest.approx(n * C / (n - C), rel=1e-10)
    for f in (tc.che_hit_ratio, tc.fifo_random_hit_ratio) + ((tc.exact_fifo_random,) if n * C <= 10**6 else ()):
        assert f(q, C) == pytest.approx(C / n, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("a", [0.5, 0.8, 0.95])
def test_two_items_one_frame(a):
    """q = (a, 1 - a), C = 1: the model's T solves aT/(1+aT) + bT/(1+bT) = 1, i.e. T = 1/sqrt(ab); every policy
    holds the last item asked for, so the exact hit ratio is a^2 + b^2 (LRU, FIFO and RANDOM alike)."""
    b = 1 - a
    q = np.array([a, b])
    T = 1 / math.sqrt(a * b)
    assert tc.ttl_time(q, 1) == pytest.approx(T, rel=1e-12)
    assert tc.fifo_random_hit_ratio(q, 1) == pytest.approx(a * a * T / (1 + a * T) + b * b * T / (1 + b * T), rel=1e-12)
    for f in (tc.exact_lru, tc.exact_fifo_random):
        assert f(q, 1) == pytest.approx(a * a + b * b, rel=1e-12)


def test_limits_and_monotonicity():
    q = tc.zipf_popularity(500, 0.9)
    for f in (tc.che_hit_ratio, tc.fifo_random_hit_ratio, tc.exact_fifo_random):
        assert f(q, 0) == 0 and f(q, 500) == 1 and f(q, 10**6) == 1
        h = [f(q, C) for C in (1, 5, 50, 250, 450, 499)]
        assert all(x < y for x, y in zip(h, h[1:], strict=False)) and 0 < h[0] and h[-1] < 1
    assert tc.che_time(q, 0) == tc.ttl_time(q, 0) == 0
    assert math.isinf(tc.che_time(q, 500)) and math.isinf(tc.ttl_time(q, 500))
    T = [tc.ttl_time(q, C) for C in (1, 100, 400, 490, 499)]
    assert all(x < y for x, y in zip(T, T[1:], strict=False)) and T[-1] > 1e3 * T[0]
    # the model's hit ratio tends to 1 as the cache takes every item (C = n is the limit: 1)
    assert tc.fifo_random_hit_ratio(q, 499) > tc.fifo_random_hit_ratio(q, 490) > 0.99


@pytest.mark.parametrize("q", [tc.zipf_popularity(200_000, 1.1), tc.zipf_popularity(50, 0.0), _dirichlet(300, 4)],
                         ids=["zipf", "uniform", "dirichlet"])
@pytest.mark.parametrize("share", [0.001, 0.1, 0.7, 0.999])
def test_the_equations_hold_at_the_roots(q, share):
    C = max(1, int(share * len(q)))
    T = tc.che_time(q, C)
    assert np.sum(-np.expm1(-q * T)) == pytest.approx(C, rel=1e-11)
    T = tc.ttl_time(q, C)
    assert np.sum(q * T / (1 + q * T)) == pytest.approx(C, rel=1e-11)
    assert tc.fifo_random_hit_ratio(q, C) == pytest.approx(1 - C / T, rel=1e-9, abs=1e-12)  # its identity
    assert tc.che_hit_ratio(q, C) >= tc.fifo_random_hit_ratio(q, C) - 1e-12  # LRU above FIFO, equal if uniform


def test_items_never_asked_for_change_nothing_and_bad_input_is_refused():
    for n, C, fs in ((40, 10, (tc.che_hit_ratio, tc.fifo_random_hit_ratio, tc.exact_fifo_random)),
                     (7, 2, (tc.exact_lru,))):
        q = _dirichlet(n, 5)
        padded = np.concatenate([q, np.zeros(100)]) * 3  # unnormalised, with items of probability 0
        for f in fs:
            assert f(padded, C) == pytest.approx(f(q, C), rel=1e-12)
    for bad in ([], [0.0, 0.0], [0.5, -0.1], [[0.5, 0.5]], [np.nan, 1.0]):
        with pytest.raises(ValueError):
            tc.che_time(np.asarray(bad, float), 1)
    for C in (-1, 2.5, True):
        with pytest.raises(ValueError):
            tc.ttl_time(q, C)
    with pytest.raises(ValueError, match="too many"):
        tc.exact_lru(tc.zipf_popularity(30, 1.0), 10)


# --- exact results against Markov chains -------------------------------------------------------------------
def _stationary(start, step, q):
    """The stationary law of the chain whose move on a request for item j is ``step(s, j)``, a list of (next
    state, probability) pairs, on the states reachable from ``start``; and its hit ratio sum_s pi(s) q(s).
    (Reachable states only: FIFO with C = n - 1 keeps the cyclic order of the n items, so its ordered states
    fall into classes that never meet; each gives the same hit ratio.)"""
    index, todo = {start: 0}, [start]
    while todo:
        s = todo.pop()
        for j in range(len(q)):
            for nxt, _ in step(s, j):
                if nxt not in index:
                    index[nxt] = len(index)
                    todo.append(nxt)
    states = sorted(index, key=index.get)
    P = np.zeros((len(states), len(states)))
    for s in states:
        for j, qj in enumerate(q):
            for nxt, w in step(s, j):
                P[index[s], index[nxt]] += qj * w
    A = P.T - np.eye(len(states))
    A[-1] = 1  # one balance equation is redundant (one closed class): normalisation instead
    b = np.zeros(len(states))
    b[-1] = 1
    pi = np.linalg.solve(A, b)
    return float(sum(pi[k] * sum(q[i] for i in s) for k, s in enumerate(states)))


def lru_chain(q, C):
    """Ordered states, most recent first: a hit moves the item to the front, a miss drops the last."""
    return _stationary(tuple(range(C)),
                       lambda s, j: [((j,) + tuple(x for x in s if x != j), 1.0)] if j in s else [((j,) + s[:-1], 1.0)],
                       q)


def fifo_chain(q, C):
    """Ordered states, oldest first: a hit changes nothing, a miss drops the oldest and appends the item."""
    return _stationary(tuple(range(C)), lambda s, j: [(s, 1.0)] if j in s else [(s[1:] + (j,), 1.0)], q)


def random_chain(q, C):
    """Sets: a miss replaces each of the C items with probability 1 / C."""
    return _stationary(frozenset(range(C)),
                       lambda s, j: [(s, 1.0)] if j in s else [((s - {i}) | {j}, 1 / C) for i in s], q)


def product_form(q, C):
    """sum_S P(S) q(S) over the C-sets, P(S) ~ prod_{i in S} q_i, enumerated."""
    w = [(math.prod(q[i] for i in S), sum(q[i] for i in S)) for S in itertools.combinations(range(len(q)), C)]
    return sum(a * b for a, b in w) / sum(a for a, _ in w)


POPULARITIES = [tc.zipf_popularity(5, 0.9), tc.zipf_popularity(6, 1.3), _dirichlet(6, 1), _dirichlet(5, 2)]


@pytest.mark.parametrize("q", POPULARITIES, ids=["zipf5", "zipf6", "dir6", "dir5"])
def test_exact_formulas_are_the_markov_chains(q):
    for C in range(1, len(q)):
        lru, fifo, rand = lru_chain(q, C), fifo_chain(q, C), random_chain(q, C)
        assert tc.exact_lru(q, C) == pytest.approx(lru, rel=1e-10)
        assert fifo == pytest.approx(rand, rel=1e-10)  # Gelenbe: FIFO and RANDOM hit alike under IRM
        assert tc.exact_fifo_random(q, C) == pytest.approx(fifo, rel=1e-10)
        assert product_form(q, C) == pytest.approx(fifo, rel=1e-10)
        if 1 < C:
            assert lru > fifo  # LRU beats FIFO under IRM with skewed popularity (the chains tell them apart)


def test_the_product_form_at_size_is_the_enumeration_and_stays_finite():
    """The convolution at scale T against enumeration (n = 14), and at a size where e_C overflows a double
    many times over (n = 10^5, C = 1000) it stays finite and between the model's 1 - (C + 1)/T and 1."""
    q = _dirichlet(14, 9)
    for C in (1, 4, 7, 13):
        assert tc.exact_fifo_random(q, C) == pytest.approx(product_form(q, C), rel=1e-11)
    q = tc.zipf_popularity(100_000, 0.8)
    T = tc.ttl_time(q, 1000)
    h = tc.exact_fifo_random(q, 1000)
    assert 1 - 1001 / T < h < 1  # (C + 1) P(C+1) / P(C) <= C + 1: the mode sits at the integer mean C


@pytest.mark.parametrize("alpha", [0.6, 0.9, 1.2])
def test_the_models_error_stays_inside_the_allowance(alpha):
    """cases() allows miss / C for each model's own error. Against the exact values: LRU (King) and FIFO and
    RANDOM (the product form) on 8 items at every size, FIFO and RANDOM on 10^3 and 10^5 items."""
    q = tc.zipf_popularity(8, alpha)
    for C in range(1, 8):
        for model, exact in ((tc.che_hit_ratio, tc.exact_lru), (tc.fifo_random_hit_ratio, tc.exact_fifo_random)):
            h = model(q, C)
            assert abs(exact(q, C) - h) <= (1 - h) / C, (model.__name__, C)
    for n, sizes in ((1000, (1, 10, 100)), (100_000, (10, 100, 1000))):
        q = tc.zipf_popularity(n, alpha)
        for C in sizes:
            h = tc.fifo_random_hit_ratio(q, C)
            assert abs(tc.exact_fifo_random(q, C) - h) <= (1 - h) / C, (n, C)


# --- the streams and the runs --------------------------------------------------------------------------------
def test_irm_stream_is_the_inverse_cdf_of_zipf_ranks_in_any_chunking():
    n, m, alpha = 50_000, 300_000, 0.9
    w = np.arange(1, n + 1, dtype=np.float64) ** -alpha  # unnormalised: the CDF exactly as zipf_ranks builds it
    whole = np.concatenate(list(tc.irm_stream(w, m, 42)))
    assert np.array_equal(whole, synthetic.zipf_ranks(np.random.default_rng(42), n, m, alpha))
    assert np.array_equal(whole, np.concatenate(list(tc.irm_stream(w, m, 42, chunk=7777))))


@pytest.mark.parametrize("policy,params", [("lru", {}), ("fifo", {}), ("random", {"seed": 3}), ("clock", {})])
def test_run_irm_gives_simulates_counts(policy, params):
    """run_irm feeds Simulator chunk by chunk with pages numbered by popularity; simulate on the same stream
    (its own unit space and chunking) counts the same hits, and run_irm's batches add up to them."""
    q = tc.zipf_popularity(20_000, 1.0)
    runs = [tc.IRMRun("x", policy, 300, 1000, 7000, 9, params)]
    got = tc.run_irm(q, runs, 5, chunk=10_000)[0]
    items = np.concatenate(list(tc.irm_stream(q, runs[0].length, 5)))
    refs = PageRefs(items, np.zeros(len(items), bool), np.arange(len(items)))
    head = simulate(PageRefs(items[:1000], np.zeros(1000, bool), np.arange(1000)), policy, 300, **params)
    full = simulate(refs, policy, 300, **params)
    assert got.batch_hits.sum() == full.counters["hits"] - head.counters["hits"]
    assert len(got.batch_hits) == 9 and got.batch_hits.min() > 0


def _hit_runs(q, C, seed, length=20_000, batches=20, warmup=2000):
    runs = [tc.IRMRun(p, p, C, warmup, length, batches, kw)
            for p, kw in (("lru", {}), ("fifo", {}), ("random", {"seed": 11}))]
    return {r.run.label: r for r in tc.run_irm(q, runs, seed)}


@pytest.mark.parametrize("q,C", [(POPULARITIES[0], 2), (POPULARITIES[1], 3), (POPULARITIES[2], 2)],
                         ids=["zipf5-2", "zipf6-3", "dir6-2"])
def test_kernels_hit_the_exact_value_on_a_tiny_catalogue(q, C):
    """400,000 requests after a warm-up of 2,000 (the chains mix in a few dozen requests): each kernel within
    4 batch-means standard errors of its exact value, and FIFO and RANDOM of each other; LRU's exact value
    is far outside FIFO's tolerance, so the check tells the policies apart."""
    res = _hit_runs(q, C, 2024)
    exact = {"lru": tc.exact_lru(q, C), "fifo": tc.exact_fifo_random(q, C), "random": tc.exact_fifo_random(q, C)}
    for p, r in res.items():
        assert abs(r.hit_ratio - exact[p]) <= 4 * r.se, (p, r.hit_ratio, exact[p], r.se)
    f, r = res["fifo"], res["random"]
    assert abs(f.hit_ratio - r.hit_ratio) <= 4 * math.hypot(f.se, r.se)
    assert abs(f.hit_ratio - exact["lru"]) > 4 * f.se


@pytest.mark.parametrize("alpha,C", [(0.8, 100), (1.2, 100), (0.8, 1000)])
def test_approximations_at_the_smallest_tight_size(alpha, C):
    """10^4 items, caches of 1% and 10%, warm-up 5 T and batches of at least 3 T as in cases(). FIFO and RANDOM
    within 4 standard errors of their exact value (the product form, computable here) and of each other; each
    kernel within 4 standard errors plus the model's allowance (miss / C) of its approximation."""
    q = tc.zipf_popularity(10_000, alpha)
    T = tc.ttl_time(q, C)
    res = _hit_runs(q, C, [7, C], length=max(25_000, math.ceil(3 * T)), warmup=math.ceil(5 * T))
    exact = tc.exact_fifo_random(q, C)
    model = {"lru": tc.che_hit_ratio(q, C), "fifo": tc.fifo_random_hit_ratio(q, C)}
    model["random"] = model["fifo"]
    for p, r in res.items():
        assert abs(r.hit_ratio - model[p]) <= 4 * r.se + (1 - model[p]) / C, (p, r.hit_ratio, model[p], r.se)
        if p != "lru":
            assert abs(r.hit_ratio - exact) <= 4 * r.se, (p, r.hit_ratio, exact, r.se)
    f, r = res["fifo"], res["random"]
    assert abs(f.hit_ratio - r.hit_ratio) <= 4 * math.hypot(f.se, r.se)


def test_batch_means_error_matches_the_spread_over_independent_streams():
    """The sampling part of the tolerance: over 12 independent streams the estimates spread as the batch-means
    standard error says (ratio of the two between 0.5 and 2; an error blind to the cache's memory would come
    out several times too small)."""
    q = tc.zipf_popularity(10_000, 1.0)
    C = 300
    T = tc.ttl_time(q, C)
    est, se = [], []
    for s in range(12):
        r = _hit_runs(q, C, [100 + s], length=math.ceil(3 * T), batches=10, warmup=math.ceil(5 * T))["fifo"]
        est.append(r.hit_ratio)
        se.append(r.se)
    assert 0.5 < np.std(est, ddof=1) / np.mean(se) < 2


def test_cases_table(monkeypatch):
    """cases() at a small scale: every documented column; LRU, FIFO, RANDOM within tolerance of their models,
    textbook CLOCK between FIFO and LRU, the default CLOCK above LRU; the same table on every call."""
    monkeypatch.setitem(tc.SCALES, "tiny", {"n": 10_000, "alphas": (0.9,), "fractions": (0.01, 0.1),
                                            "measured": 200_000, "batches": 10})
    df = tc.cases("tiny", seed=3)
    assert df.columns == ["case", "policy", "params", "model", "alpha", "catalogue_pages", "capacity_pages",
                          "cache_fraction", "characteristic_time", "theory", "exact", "ours", "se", "abs_err",
                          "rel_err", "sampling_tol", "model_tol", "tolerance", "within", "lower", "upper",
                          "model_lower", "model_upper", "within_ours", "within_models", "position", "warmup",
                          "batch", "batches", "requests", "seed", "note"]
    assert df.height == 2 * len(tc.POLICIES)
    assert df.filter(df["case"] != "clock-unreferenced")["within"].all()
    assert set(df.filter(df["case"] == "clock")["position"]) == {"between"}
    assert set(df.filter(df["case"] == "clock-unreferenced")["position"]) == {"above lru"}
    fifo = df.filter(df["case"] == "fifo")
    assert (fifo["exact"] - fifo["theory"]).abs().max() <= fifo["model_tol"].min()
    T = df["characteristic_time"]
    assert (df["warmup"] >= 5 * T).all() and (df["batch"] >= 3 * T).all()
    assert df.equals(tc.cases("tiny", seed=3))
    with pytest.raises(ValueError, match="scale"):
        tc.cases("huge")
