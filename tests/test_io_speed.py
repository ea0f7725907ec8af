"""Issue 12 section 7: the fast way through ``flashrepro simulate`` gives what the slow way gives."""

import numpy as np
import pytest
from conftest import random_trace
from test_contract import event_trace

from flashrepro.cache import POLICIES, simulate_stream
from flashrepro.cache.onepass import simulate_source
from flashrepro.traces.store import MemoryTrace

SEG = {"segment_kib": 16}


def _params(policy):
    return dict(SEG) if policy.startswith("seg_") else {}


def _files(tr):
    """The same trace with a file column (the unit space then carries each unit's file)."""
    import dataclasses

    rng = np.random.default_rng(7)
    return dataclasses.replace(tr, file=rng.integers(0, 5, len(tr)).astype(np.int32))


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("make", [lambda: random_trace(3), lambda: event_trace(5), lambda: _files(random_trace(6))],
                         ids=["plain", "events", "files"])
def test_one_pass_counters_equal_the_streamed_ones(policy, make):
    """The whole trace in one pass (the command line's way) and the two-pass stream in batches of 97 requests:
    every counter equal, for every policy; and above the size bound the stream is what runs."""
    tr = make()
    streamed = simulate_stream(MemoryTrace(tr), policy, 64, flush_at_end=True, batch_requests=97,
                               **_params(policy)).to_dict()
    seen = []
    whole = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, progress=seen.append, **_params(policy))
    assert whole.to_dict() == streamed
    assert seen and seen[-1] == len(tr) and seen == sorted(seen)
    big = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, whole_max_requests=len(tr) - 1,
                          **_params(policy))
    assert big.to_dict() == streamed
