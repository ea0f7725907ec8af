"""What every Numba kernel shares: array-backed data structures and a prefetch hint.

Kernels (cache policies, the FTL, the miss-ratio curve) keep their state as NumPy arrays indexed by dense
ranks, never as Python objects. The structures here are the ones more than one kernel needs:

* **Intrusive doubly linked lists** (``list_*``) over nodes ``0..n_nodes-1`` plus sentinels: each node has
  a predecessor (towards the front) and a successor (towards the back), and a node on no list has
  predecessor -1. Each sentinel ``S`` closes one circular list, whose front is S's successor and whose
  back is S's predecessor, so insert and unlink need no branch for an empty list or its ends. LRU keeps
  its most recently used page at the front; the FTL's FIFO keeps the oldest closed line at the front; its
  valid-count buckets are ``P + 1`` lists over the same nodes.
* **Records** (``rec_*``): the same lists when a node is on several of them or has fields of its own: one
  int32 row per node holding every list's links and its fields, so a move touches one row (CFLRU).
* **An ordered bitset** (``bits_*``): a three-level 64-ary bitmap over ranks 0..n-1 with insert, remove and
  "next member at or after r" in a few word operations (Spatial Clock keeps resident pages in LSN order).
* **A flat bitset** (``flat_*``): one bit per rank, for listing the members of a small range in order.
* **A Fenwick tree** (``fenwick_*``): prefix sums of marks at integer times in O(log n) (CFLRU's window
  test, the Mattson stack distances of the LRU miss-ratio curve).
* :func:`prefetch`: a hint that overlaps the cache miss of a future random access with current work.
* :func:`load` and :func:`store`: an array element by an index known to be in range, without the fix-up for
  negative indices that Numba adds to every ``arr[i]`` with a signed ``i``.
* :func:`scalars`: a kernel's scalar state as named fields, a one-element record array.

Everything is ``@njit(inline="always")`` where it sits in a hot loop, so using a helper costs nothing
over writing its body out.
"""

from __future__ import annotations

import functools
import types as pytypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

PREFETCH_DISTANCE = 16  # references ahead; see benchmarks/ (a simulator knows its future stream)

def copy_with_globals(fn, name: str, scope: dict):
    """A copy of the Python function ``fn`` named ``name`` (its qualified name too: Numba names a cache file
    after it) that looks its global names up in ``scope`` instead of its module's: a name bound there is a
    constant of the copy when Numba compiles it. driver.compose makes each policy's loop this way, and segment
    each policy's step."""
    out = pytypes.FunctionType(fn.__code__, scope, name, fn.__defaults__)
    out.__qualname__, out.__doc__, out.__module__ = name, fn.__doc__, fn.__module__
    return out


njit_no_refcount = functools.partial(njit, cache=True, _nrt=False)
"""``@njit(cache=True)`` for a kernel's inner steps, compiled without Numba's reference counting (NRT).

A step called (not inlined) with a state that is a tuple of arrays counts every array up on entry and down
on exit: two atomic operations per array per call, 14-16% of the FTL's time in ``perf`` (its state has 27
arrays). Numba drops those counts itself only for functions whose arguments are plain arrays. A step
compiled with this decorator borrows the arrays its caller holds, which is safe when it allocates no array
(Numba refuses ``np.empty`` and the like there, at compile time) and returns none (``test_ftl_refcounts``
checks every such FTL step's signatures). Helpers it calls without an ``nrt`` setting of their own are
compiled the same way (Numba inherits the flag), so a step must not call one that allocates.
"""


@intrinsic
def prefetch(typingctx, arr, flat_index):
    """Hint the CPU to fetch ``arr.flat[flat_index]`` into cache (LLVM ``llvm.prefetch``, for writing).

    Page-indexed state is a random access into megabytes per reference; kernels prefetch the state of
    the reference ``PREFETCH_DISTANCE`` ahead so that its cache miss overlaps the current work. It has
    no effect on results.
    """
    sig = types.void(arr, flat_index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(builder.gep(ary.data, [args[1]]), i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _flat_array(arr):
    return isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"


@intrinsic
def load(typingctx, arr, index):
    """``arr[index]`` for a 1-d contiguous array and an index known to be in ``[0, len(arr))``, without Numba's
    fix-up for negative indices (a shift, an and and an add per access: the loops of ``lru`` and ``clock`` are
    1.2-1.3x faster without them, measured). Like ``arr[index]`` without boundscheck, an index out of range is
    undefined: only for indices a kernel has from its own state."""
    if not _flat_array(arr) or not isinstance(index, types.Integer):
        return None
    sig = arr.dtype(arr, index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return context.unpack_value(builder, signature.return_type, builder.gep(ary.data, [args[1]]))

    return sig, codegen


@intrinsic
def store(typingctx, arr, index, value):
    """``arr[index] = value`` (cast to the array's type) with :func:`load`'s contract on ``index``."""
    if not _flat_array(arr) or not isinstance(index, types.Integer):
        return None
    sig = types.void(arr, index, value)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        v = context.cast(builder, args[2], signature.args[2], signature.args[0].dtype)
        context.pack_value(builder, signature.args[0].dtype, v, builder.gep(ary.data, [args[1]]))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an unsigned 64-bit integer (LLVM ``ctpop``: one instruction)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])

    return sig, codegen


# --- intrusive doubly linked lists ---------------------------------------------------------------------
# One flat int32 array: link[2x] is the node before x, link[2x + 1] the node after it. (A (n, 2) array
# reads the same but makes Numba multiply by a run-time stride on every step of a pointer chase.)
def scalars(fields) -> np.recarray:
    """A zeroed one-element record array of ``fields`` (``[(name, dtype), ...]`` or a dtype), aligned. Its record
    ``r[0]`` is read and written by field name, in Python and in a kernel, where ``r[0]`` is a reference into
    the array. A kernel's state keeps its scalars so (every field of the state an array) and each step takes the
    record itself: a record held in the state tuple, or passed to a step as an argument, made Numba's code for
    the FTL's host loop and CLOCK-HBM's loop slower (measured with perf stat)."""
    return np.zeros(1, np.dtype(fields, align=True)).view(np.recarray)


@njit(cache=True)
def list_new(n_nodes, n_sentinels=1):
    """Nodes 0..n_nodes-1 on no list, and ``n_sentinels`` empty lists with sentinels n_nodes, n_nodes + 1, ..."""
    link = np.full(2 * (n_nodes + n_sentinels), -1, np.int32)
    for s in range(n_nodes, n_nodes + n_sentinels):
        link[2 * s] = s
        link[2 * s + 1] = s
    return link


@njit(cache=True, inline="always")
def list_contains(link, x):
    return link[2 * x] >= 0


@njit(cache=True, inline="always")
def list_prev(link, x):
    return link[2 * x]


@njit(cache=True, inline="always")
def list_next(link, x):
    return link[2 * x + 1]


@njit(cache=True, inline="always")
def list_front(link, S):
    """The first node of list ``S`` (``S`` itself when the list is empty)."""
    return link[2 * S + 1]


@njit(cache=True, inline="always")
def list_back(link, S):
    """The last node of list ``S`` (``S`` itself when the list is empty)."""
    return link[2 * S]


@njit(cache=True, inline="always")
def list_unlink(link, x):
    a = link[2 * x]
    b = link[2 * x + 1]
    link[2 * a + 1] = b
    link[2 * b] = a
    link[2 * x] = -1


@njit(cache=True, inline="always")
def list_push_front(link, S, x):
    first = link[2 * S + 1]
    link[2 * x] = S
    link[2 * x + 1] = first
    link[2 * first] = x
    link[2 * S + 1] = x


@njit(cache=True, inline="always")
def list_push_back(link, S, x):
    last = link[2 * S]
    link[2 * x + 1] = S
    link[2 * x] = last
    link[2 * last + 1] = x
    link[2 * S] = x


@njit(cache=True)
def list_back_to_front(link, S, size):
    """The ``size`` nodes on list ``S``, back first (for LRU: least recently used first)."""
    order = np.empty(size, np.int64)
    k = 0
    x = link[2 * S]
    while x != S:
        order[k] = x
        k += 1
        x = link[2 * x]
    return order


# --- records: several lists' links and a node's own fields in one row ------------------------------------
# A kernel whose node is on more than one list, or has fields of its own read with its links, keeps them in one
# int32 array of rows of ``W`` slots (``node[W * x + slot]``): the links of list ``L`` in slots ``L``
# (towards the front) and ``L + 1`` (towards the back), the other slots the node's own fields. Moving a node
# then touches one row of its own instead of one cache line per array (CFLRU: two lists, a dirty and a window
# flag and the page, in a 32-byte row, ran 1.6x faster than in separate arrays). Sentinel rows as for lists.
@njit(cache=True)
def rec_new(n_nodes, width, lists, n_sentinels=1):
    """Rows for nodes 0..n_nodes-1 (every slot -1: on no list) and ``n_sentinels`` sentinels closing an empty
    list at each link pair in ``lists`` (a tuple of slot numbers)."""
    node = np.full(width * (n_nodes + n_sentinels), -1, np.int32)
    for s in range(n_nodes, n_nodes + n_sentinels):
        for L in lists:
            node[width * s + L] = s
            node[width * s + L + 1] = s
    return node


@njit(cache=True, inline="always")
def rec_front(node, W, S, L):
    return node[W * S + L + 1]


@njit(cache=True, inline="always")
def rec_back(node, W, S, L):
    return node[W * S + L]


@njit(cache=True, inline="always")
def rec_prev(node, W, x, L):
    return node[W * x + L]


@njit(cache=True, inline="always")
def rec_next(node, W, x, L):
    return node[W * x + L + 1]


@njit(cache=True, inline="always")
def rec_unlink(node, W, x, L):
    a = node[W * x + L]
    b = node[W * x + L + 1]
    node[W * a + L + 1] = b
    node[W * b + L] = a
    node[W * x + L] = -1


@njit(cache=True, inline="always")
def rec_push_front(node, W, S, x, L):
    first = node[W * S + L + 1]
    node[W * x + L] = S
    node[W * x + L + 1] = first
    node[W * first + L] = x
    node[W * S + L + 1] = x


@njit(cache=True)
def rec_back_to_front(node, W, S, L, size):
    """The ``size`` nodes on list ``L`` of sentinel ``S``, back first."""
    order = np.empty(size, np.int64)
    k = 0
    x = node[W * S + L]
    while x != S:
        order[k] = x
        k += 1
        x = node[W * x + L]
    return order


# --- ordered bitset --------------------------------------------------------------------------------------
ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def bits_new(n):
    """An empty set over ranks 0..n-1: ``(words, n0, n1, n2)``; level 0 (one bit per rank), then level 1
    (one bit per non-empty level-0 word), then level 2, with n0, n1, n2 words per level."""
    n0 = (n + 63) // 64
    n1 = (n0 + 63) // 64
    n2 = (n1 + 63) // 64
    return np.zeros(n0 + n1 + n2, np.uint64), n0, n1, n2


@njit(cache=True, inline="always")
def bits_add(words, n0, n1, r):
    w = r >> 6
    words[w] |= ONE << np.uint64(r & 63)
    w1 = w >> 6
    words[n0 + w1] |= ONE << np.uint64(w & 63)
    words[n0 + n1 + (w1 >> 6)] |= ONE << np.uint64(w1 & 63)


@njit(cache=True, inline="always")
def bits_remove(words, n0, n1, r):
    w = r >> 6
    words[w] &= ~(ONE << np.uint64(r & 63))
    if words[w] == 0:
        w1 = w >> 6
        words[n0 + w1] &= ~(ONE << np.uint64(w & 63))
        if words[n0 + w1] == 0:
            words[n0 + n1 + (w1 >> 6)] &= ~(ONE << np.uint64(w1 & 63))


@njit(cache=True, inline="always")
def bits_contains(words, r):
    return (words[r >> 6] >> np.uint64(r & 63)) & ONE != 0


@njit(cache=True, inline="always")
def bits_next(words, n0, n1, n2, r):
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
def bits_next_cyclic(words, n0, n1, n2, r):
    """The smallest member >= r, wrapping round to the smallest member; -1 if the set is empty."""
    q = bits_next(words, n0, n1, n2, r)
    if q < 0 and r > 0:
        q = bits_next(words, n0, n1, n2, 0)
    return q


# --- a flat bitset: one bit per rank, in uint64 words (``np.zeros((n + 63) // 64, np.uint64)``) -------------
# For a set whose members in a small range are listed often (CLOCK-DNV's buffered pages of one flash block):
# iterate ``m = flat_word(words, w, lo, hi)``, ``while m: r = (w << 6) + trailing_zeros(m); m &= m - ONE``.
@njit(cache=True, inline="always")
def flat_add(words, r):
    words[r >> 6] |= ONE << np.uint64(r & 63)


@njit(cache=True, inline="always")
def flat_remove(words, r):
    words[r >> 6] &= ~(ONE << np.uint64(r & 63))


@njit(cache=True, inline="always")
def flat_word(words, w, lo, hi):
    """Word ``w`` of the set, keeping only the members in [lo, hi)."""
    m = words[w]
    if w == lo >> 6:
        m &= ALL << np.uint64(lo & 63)
    if w == (hi - 1) >> 6 and (hi & 63) != 0:
        m &= ~(ALL << np.uint64(hi & 63))
    return m


# --- Fenwick tree ----------------------------------------------------------------------------------------
@njit(cache=True)
def fenwick_new(n):
    """Counts at positions 0..n-1, all zero."""
    return np.zeros(n + 1, np.int64)


@njit(cache=True, inline="always")
def fenwick_add(tree, t, delta):
    j = t + 1
    while j < tree.shape[0]:
        tree[j] += delta
        j += j & (-j)


@njit(cache=True)
def fenwick_ones(tree, k):
    """Set the counts to 1 at positions 0..k-1 and 0 elsewhere, in one pass (each node's sum pushed up to its
    parent) rather than k additions."""
    m = tree.shape[0] - 1
    tree[:] = 0
    for j in range(1, m + 1):
        if j <= k:
            tree[j] += 1
        up = j + (j & (-j))
        if up <= m:
            tree[up] += tree[j]


@njit(cache=True, inline="always")
def fenwick_before(tree, t):
    """The sum of the counts at positions < t."""
    s = 0
    j = t
    while j > 0:
        s += tree[j]
        j -= j & (-j)
    return s


# --- allocation ------------------------------------------------------------------------------------------
def zeros_aligned(shape, dtype, align: int = 64) -> np.ndarray:
    """Zeros whose first element starts on an ``align``-byte boundary (a cache line by default).

    NumPy promises 16 bytes, so rows of a (n, 4) uint64 array would straddle two cache lines every other
    row; aligned, a kernel that keeps one 32-byte record per node touches one line per node."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    buf = np.zeros(nbytes + align, np.uint8)
    off = -buf.ctypes.data % align
    return buf[off:off + nbytes].view(dtype).reshape(shape)


# --- intrusive lists inside records ----------------------------------------------------------------------
# The same circular lists as ``list_*``, with a node's links kept in its own record (a NumPy structured array
# with int32 fields ``prev`` and ``next``, sentinels included), so that a node's links and its data share a
# cache line: a kernel that reads a node's data whenever it moves it touches one line per node, not two.
@njit(cache=True, inline="always")
def rlist_init(recs, S):
    """Make record ``S`` the sentinel of an empty list."""
    recs[S].prev = S
    recs[S].next = S


@njit(cache=True, inline="always")
def record(recs, i):
    """Record ``i`` of a structured array, ``i`` known to be in ``[0, len(recs))`` (a node or a sentinel, never
    -1): indexed as unsigned, without Numba's fix-up for negative indices (a shift, an and and an add per
    access). Assigning its fields writes the array."""
    return recs[np.uint64(i)]


@njit(cache=True, inline="always")
def rlist_unlink(recs, x):
    a = record(recs, x).prev
    b = record(recs, x).next
    record(recs, a).next = b
    record(recs, b).prev = a
    record(recs, x).prev = -1


@njit(cache=True, inline="always")
def rlist_push_front(recs, S, x):
    first = record(recs, S).next
    record(recs, x).prev = S
    record(recs, x).next = first
    record(recs, first).prev = x
    record(recs, S).next = x


@njit(cache=True)
def rlist_back_to_front(recs, S, size):
    """The ``size`` nodes on list ``S``, back first."""
    order = np.empty(size, np.int64)
    k = 0
    x = recs[S].prev
    while x != S:
        order[k] = x
        k += 1
        x = recs[x].prev
    return order
