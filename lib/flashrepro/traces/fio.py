"""fio's ``random_distribution=zipf:theta`` block sequence as fio's source states it, and a true-Zipf alternative.

fio (lib/zipf.c, lib/rand.h) draws each block as follows:

* a taus88 stream (L'Ecuyer's three-component Tausworthe generator, 32-bit), seeded by fio's
  ``init_rand_seed(seed)``: ``s1 = 53 * 69069 ^ seed`` (at least 2), ``s2 = s1 * 69069 ^ seed`` (at
  least 8), ``s3 = s2 * 69069 ^ seed`` (at least 16), all modulo 2**32, then six draws discarded;
* the first draw after seeding is ``rand_off``;
* ``zeta(n)`` summed over at most the first 10M terms (``ZIPF_MAX_GEN``), in fio's order and form,
  ``sum pow(1 / i, theta)``;
* Gray et al.'s approximate inverse ("Quickly generating billion-record synthetic databases") for the
  rank: ``u = rand32 / (2**32 - 1)``; rank 1 if ``u * zeta < 1``, rank 2 if below ``1 + 0.5**theta``,
  else ``1 + floor(n * (eta * u - eta + 1) ** alpha)``;
* the block is ``((rank - 1) * GOLDEN_RATIO_64 + rand_off) mod n`` (64-bit wrap-around), fio's
  ``__hash_u64`` with ``GOLDEN_RATIO_64 = 0x61C8864680B583EB`` (hash.h since fio 2.10); releases before
  used ``0x9E37FFFFFFFC0001`` (``hash="prime64-old"``).

``seed`` is the value fio passes to ``zipf_init``; fio derives it from the file name's jhash, the job's
thread number and (in newer releases) its ``randseed``, so give the value your fio build computes.
Both multipliers are odd, so for ``n`` a power of two the hash is a bijection modulo ``n`` and every
rank has its own block (8 GB of 4 KiB blocks is 2**21). For other ``n`` several ranks can land on one
block and some blocks get none. ``mode="true"`` draws exact Zipf ranks over a random permutation.

This is checked against a Python reference and a C port written here from fio's lib/zipf.c, lib/rand.h
and hash.h (tests/c/fio_zipf.c), not against fio's own binary.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
from numba import njit

from .synthetic import Guide, guide_search

M32 = 0xFFFFFFFF
ZIPF_MAX_GEN = 10_000_000
GOLDEN_RATIO_64 = 0x61C8864680B583EB  # fio's hash.h since 2.10
GR_PRIME_64 = 0x9E37FFFFFFFC0001  # fio before 2.10
HASHES = {"golden64": GOLDEN_RATIO_64, "prime64-old": GR_PRIME_64}


@njit(cache=True, inline="always")
def _taus88(state):
    s1, s2, s3 = state[0], state[1], state[2]
    s1 = (((s1 & 4294967294) << 12) & M32) ^ ((((s1 << 13) & M32) ^ s1) >> 19)
    s2 = (((s2 & 4294967288) << 4) & M32) ^ ((((s2 << 2) & M32) ^ s2) >> 25)
    s3 = (((s3 & 4294967280) << 17) & M32) ^ ((((s3 << 3) & M32) ^ s3) >> 11)
    state[0], state[1], state[2] = s1, s2, s3
    return s1 ^ s2 ^ s3


def taus88_seed(seed: int) -> np.ndarray:
    """fio's ``__init_rand32``: the LCG seeding with its minimum values, then six discarded draws."""
    seed &= M32
    s1 = ((53 * 69069) ^ seed) & M32
    s1 = s1 + 1 if s1 < 1 else s1
    s2 = ((s1 * 69069) ^ seed) & M32
    s2 = s2 + 7 if s2 < 7 else s2
    s3 = ((s2 * 69069) ^ seed) & M32
    s3 = s3 + 15 if s3 < 15 else s3
    state = np.array([s1 & M32, s2 & M32, s3 & M32], np.int64)
    for _ in range(6):
        _taus88(state)
    return state


@njit(cache=True, nogil=True)
def taus88_draws(state, out):
    """Fill ``out`` with the next 32-bit draws of the stream (state advances)."""
    for i in range(out.shape[0]):
        out[i] = _taus88(state)


@njit(cache=True)
def fio_zetan(n, theta, max_terms):
    z = 0.0
    for i in range(min(n, max_terms)):
        z += (1.0 / (i + 1)) ** theta
    return z


@njit(cache=True, nogil=True)
def _fio_zipf_fill(state, n, theta, zetan, rand_off, mult, out):
    zeta2 = 1.0 ** theta + 0.5 ** theta
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / n) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    two = 1.0 + 0.5 ** theta
    fn = float(n)
    un = np.uint64(n)
    prime = np.uint64(mult)
    off = np.uint64(rand_off)
    for i in range(out.shape[0]):
        u = _taus88(state) / 4294967295.0
        z = u * zetan
        if z < 1.0:
            val = np.uint64(1)
        elif z < two:
            val = np.uint64(2)
        else:
            val = np.uint64(1) + np.uint64(fn * (eta * u - eta + 1.0) ** alpha)
        out[i] = ((val - np.uint64(1)) * prime + off) % un


@njit(cache=True)
def _splitmix(state):
    state[0] = (state[0] + np.uint64(0x9E3779B97F4A7C15))
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _true_zipf_fill(rng, cdf, start, step, perm, out):
    """``perm`` at the inverse CDF of each draw: ``min(searchsorted(cdf, u * cdf[-1], "right"), n - 1)``,
    found from a guide table (:class:`flashrepro.traces.synthetic.Guide`; the same index, 2.6-3.7x faster
    than a binary search over fio's 2M-block CDF)."""
    total = cdf[cdf.shape[0] - 1]
    for i in range(out.shape[0]):
        u = (_splitmix(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        out[i] = perm[guide_search(cdf, start, step, u * total)]


@dataclasses.dataclass
class FioZipf:
    """A write stream of ``n_writes`` fio zipf blocks over ``n_blocks`` (the fio file laid out first).

    ``mode="fio"`` is fio's generator; ``mode="true"`` draws exact Zipf(theta) ranks (inverse CDF over
    all ``n_blocks`` terms) placed on blocks by a seeded random permutation, so ranks and blocks are
    one to one. ``hash`` names fio's rank -> block multiplier (:data:`HASHES`).
    """

    theta: float
    n_blocks: int
    n_writes: int
    seed: int = 0
    mode: str = "fio"
    name: str = ""
    max_terms: int = ZIPF_MAX_GEN
    hash: str = "golden64"
    prefilled: bool = True

    def __post_init__(self):
        if self.hash not in HASHES:
            raise ValueError(f"hash must be one of {sorted(HASHES)}, got {self.hash!r}")
        if self.mode not in ("fio", "true"):
            raise ValueError(f"mode must be 'fio' or 'true', got {self.mode!r}")
        if not (self.theta > 0 and self.theta != 1.0):
            raise ValueError("fio's zipf needs theta > 0 and theta != 1")
        if self.n_blocks < 3 or self.n_blocks >= 2**31:
            raise ValueError("n_blocks must be in 3 .. 2**31 - 1")
        self.name = self.name or f"fio-zipf{self.theta:g}" + ("" if self.mode == "fio" else "-true")

    @property
    def logical_pages(self) -> int:
        return self.n_blocks

    @property
    def prefill(self) -> int:
        """The file laid out before the measured writes (``prefilled``), or nothing: fio lays out a file
        only for read jobs or ``overwrite=1``, and a job on the raw device starts from an empty one."""
        return self.n_blocks if self.prefilled else 0

    def chunks(self, size: int = 1 << 22) -> Iterator[np.ndarray]:
        if self.mode == "fio":
            state = taus88_seed(self.seed)
            first = np.zeros(1, np.int64)
            taus88_draws(state, first)
            rand_off = int(first[0])  # fio's zs->rand_off, the first draw after seeding
            zetan = fio_zetan(self.n_blocks, self.theta, self.max_terms)
            mult = np.uint64(HASHES[self.hash])
            fill = lambda out: _fio_zipf_fill(state, self.n_blocks, self.theta, zetan, rand_off, mult, out)  # noqa: E731
        else:
            ranks = np.arange(1, self.n_blocks + 1, dtype=np.float64)
            g = Guide(np.cumsum(ranks ** -self.theta))
            perm = np.random.default_rng(self.seed).permutation(self.n_blocks).astype(np.int32)
            rng = np.array([self.seed], np.uint64)
            fill = lambda out: _true_zipf_fill(rng, g.cdf, g.start, g.step, perm, out)  # noqa: E731
        left = self.n_writes
        while left:
            k = min(size, left)
            out = np.empty(k, np.int32)
            fill(out)
            left -= k
            yield out
