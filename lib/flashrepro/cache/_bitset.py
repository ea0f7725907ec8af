"""An ordered set of dense page ranks as a three-level 64-ary bitmap: insert, remove and "next member at
or after r" in a few word operations. Spatial Clock keeps resident pages in LSN order with it.

The state is one uint64 array: level 0 (one bit per rank), then level 1 (one bit per non-empty level-0
word), then level 2 (one bit per non-empty level-1 word); ``offsets`` holds where each level starts.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def new(n):
    """An empty set over ranks 0..n-1: (words, n0, n1, n2) with n0, n1, n2 words per level."""
    n0 = (n + 63) // 64
    n1 = (n0 + 63) // 64
    n2 = (n1 + 63) // 64
    return np.zeros(n0 + n1 + n2, np.uint64), n0, n1, n2


@njit(cache=True, inline="always")
def add(words, n0, n1, r):
    w = r >> 6
    words[w] |= ONE << np.uint64(r & 63)
    w1 = w >> 6
    words[n0 + w1] |= ONE << np.uint64(w & 63)
    words[n0 + n1 + (w1 >> 6)] |= ONE << np.uint64(w1 & 63)


@njit(cache=True, inline="always")
def remove(words, n0, n1, r):
    w = r >> 6
    words[w] &= ~(ONE << np.uint64(r & 63))
    if words[w] == 0:
        w1 = w >> 6
        words[n0 + w1] &= ~(ONE << np.uint64(w & 63))
        if words[n0 + w1] == 0:
            words[n0 + n1 + (w1 >> 6)] &= ~(ONE << np.uint64(w1 & 63))


@njit(cache=True, inline="always")
def contains(words, r):
    return (words[r >> 6] >> np.uint64(r & 63)) & ONE != 0


@njit(cache=True, inline="always")
def next_at_or_after(words, n0, n1, n2, r):
    """The smallest member >= r, or -1."""
    if r >= n0 * 64:
        return -1
    w = r >> 6
    m = words[w] & (ALL << np.uint64(r & 63))
    if m != 0:
        return (w << 6) + trailing_zeros(m)
    w += 1  # first level-0 word after w that is non-empty
    if w >= n0:
        return -1
    w1 = w >> 6
    m = words[n0 + w1] & (ALL << np.uint64(w & 63))
    if m == 0:
        w1 += 1
        if w1 >= n1:
            return -1
        w2 = w1 >> 6
        m2 = words[n0 + n1 + w2] & (ALL << np.uint64(w1 & 63))
        while m2 == 0:
            w2 += 1
            if w2 >= n2:
                return -1
            m2 = words[n0 + n1 + w2]
        w1 = (w2 << 6) + trailing_zeros(m2)
        m = words[n0 + w1]
    w = (w1 << 6) + trailing_zeros(m)
    return (w << 6) + trailing_zeros(words[w])


@njit(cache=True, inline="always")
def next_cyclic(words, n0, n1, n2, r):
    """The smallest member >= r, wrapping round to the smallest member; -1 if the set is empty."""
    q = next_at_or_after(words, n0, n1, n2, r)
    if q < 0 and r > 0:
        q = next_at_or_after(words, n0, n1, n2, 0)
    return q
