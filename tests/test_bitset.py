"""The ordered bitmap against a sorted Python set."""

import bisect

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrepro import jitkit as J


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 300_000), ops=st.lists(st.tuples(st.booleans(), st.floats(0, 1, exclude_max=True)),
                                               max_size=200), probes=st.lists(st.floats(0, 1, exclude_max=True),
                                                                               max_size=30))
def test_matches_sorted_set(n, ops, probes):
    words, n0, n1, n2 = J.bits_new(n)
    members = set()
    for insert, x in ops:
        r = int(x * n)
        if insert:
            J.bits_add(words, n0, n1, r)
            members.add(r)
        elif r in members:
            J.bits_remove(words, n0, n1, r)
            members.discard(r)
    srt = sorted(members)
    for x in probes + [0.0]:
        r = int(x * n)
        i = bisect.bisect_left(srt, r)
        want = srt[i] if i < len(srt) else -1
        assert J.bits_next(words, n0, n1, n2, r) == want
        wrap = want if want >= 0 else (srt[0] if srt else -1)
        assert J.bits_next_cyclic(words, n0, n1, n2, r) == wrap
        assert bool(J.bits_contains(words, r)) == (r in members)


def test_far_apart_members():
    n = 64**3 * 2 + 5
    words, n0, n1, n2 = J.bits_new(n)
    for r in (3, n - 1):
        J.bits_add(words, n0, n1, r)
    assert J.bits_next(words, n0, n1, n2, 4) == n - 1
    assert np.count_nonzero(words) == 6  # two bits on each level
    J.bits_remove(words, n0, n1, n - 1)
    assert J.bits_next(words, n0, n1, n2, 4) == -1
    assert J.bits_next_cyclic(words, n0, n1, n2, 4) == 3
    assert np.count_nonzero(words) == 3
