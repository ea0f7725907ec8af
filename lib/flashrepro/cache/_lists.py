"""Intrusive circular doubly linked lists over dense page ranks, shared by the LRU-family kernels.

``link`` has shape (n + 1, 2): ``link[p, 0]`` is the previous node (towards the MRU end), ``link[p, 1]``
the next (towards the LRU end), and ``link[p, 0] == -1`` means p is not on the list. Node ``S = n`` is
the sentinel: ``link[S, 1]`` is the MRU page and ``link[S, 0]`` the LRU page, so insert and unlink need no
branch for an empty list or its ends.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def new(n):
    """An empty list over pages 0..n-1 (sentinel n)."""
    link = np.full((n + 1, 2), -1, np.int32)
    link[n, 0] = n
    link[n, 1] = n
    return link


@njit(cache=True, inline="always")
def unlink(link, p):
    a = link[p, 0]
    b = link[p, 1]
    link[a, 1] = b
    link[b, 0] = a
    link[p, 0] = -1


@njit(cache=True, inline="always")
def push_mru(link, S, p):
    first = link[S, 1]
    link[p, 0] = S
    link[p, 1] = first
    link[first, 0] = p
    link[S, 1] = p


@njit(cache=True)
def lru_order(link, S, size):
    """The listed pages, least recently used first."""
    order = np.empty(size, np.int64)
    k = 0
    p = link[S, 0]
    while p != S:
        order[k] = p
        k += 1
        p = link[p, 0]
    return order
