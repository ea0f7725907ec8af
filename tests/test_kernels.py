"""Every registered kernel against its reference implementation, reference by reference."""

import itertools

import numpy as np
import pytest
from conftest import random_trace
from flashrepro.cache import POLICIES, lru_mrc, simulate
from reference import REFERENCES, stack_distances


def test_every_policy_has_a_reference():
    assert set(POLICIES) <= set(REFERENCES), f"policies without a reference: {set(POLICIES) - set(REFERENCES)}"


def _param_grid(policy):
    names = REFERENCES[policy][1]
    for values in itertools.product([False, True], repeat=len(names)):
        yield dict(zip(names, values, strict=True))


CASES = [(pol, params, seed, cap, flush)
         for pol in sorted(REFERENCES) for params in _param_grid(pol)
         for seed, cap in [(1, 1), (2, 7), (3, 40), (4, 150), (5, 1000)] for flush in (False, True)]


@pytest.mark.parametrize("policy,params,seed,capacity,flush", CASES)
def test_kernel_matches_reference(policy, params, seed, capacity, flush):
    tr = random_trace(seed)
    refs = tr.to_pages()
    res = simulate(tr, policy, capacity, flush_at_end=flush, log_io=True, **params)
    fn = REFERENCES[policy][0]
    hits, ios, counters = fn(refs.page.tolist(), refs.is_write.tolist(), capacity, flush, **params)
    # reference by reference: the outcome of every page reference and every device I/O, in order
    first_miss = np.flatnonzero(res.hit != np.array(hits))
    assert first_miss.size == 0, f"first differing reference: {first_miss[:1]}"
    log = res.io_log
    got = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(), strict=True))
    assert got == ios
    assert np.all(log.n_pages == 1)
    assert {k: res.counters[k] for k in counters} == counters


def test_io_log_maps_back_to_requests():
    tr = random_trace(9)
    res = simulate(tr, "lru", 20, log_io=True)
    refs = tr.to_pages()
    assert np.array_equal(res.io_log.req, refs.req[res.io_log.ref])
    after = res.io_log.to_trace(tr.time_s)
    assert len(after) == len(res.io_log)
    assert after.n_writes == res.counters["device_write_requests"]
    assert after.n_reads == res.counters["device_read_requests"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stack_distances_match_reference(seed):
    from flashrepro.cache.mrc import _stack_distances

    refs = random_trace(seed, n=1500).to_pages()
    got = _stack_distances(refs.dense, refs.n_unique)
    assert got.tolist() == stack_distances(refs.dense.tolist())


@pytest.mark.parametrize("seed", [4, 5])
def test_mrc_equals_lru_at_every_capacity(seed):
    tr = random_trace(seed, n=2000)
    mrc = lru_mrc(tr)
    caps = [1, 2, 3, 5, 10, 30, 100, 299, 300, 1000]
    assert mrc.misses(caps).tolist() == [simulate(tr, "lru", c).counters["misses"] for c in caps]
