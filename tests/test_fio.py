"""fio's zipf generator: Numba against the Python reference and against a C port, plus the true-Zipf mode."""

import shutil
import subprocess

import numpy as np
import pytest
from reference import fio_zipf_blocks

from flashrepro.traces.fio import FioZipf

CASES = [(0, 2_097_152, 0.9), (12345, 2_097_152, 0.5), (2**32 - 1, 2_097_152, 1.1), (7, 1000, 1.2),
         (99, 15_000_000, 0.9)]


def blocks(seed, n, theta, count, **kw):
    return np.concatenate(list(FioZipf(theta, n, count, seed, **kw).chunks(size=3000)))


@pytest.mark.parametrize("seed,n,theta", CASES[:4])
def test_numba_matches_python_reference(seed, n, theta):
    new = blocks(seed, n, theta, 20_000).tolist()
    assert new == fio_zipf_blocks(seed, n, theta, 20_000)
    old = blocks(seed, n, theta, 20_000, hash="prime64-old").tolist()
    assert old == fio_zipf_blocks(seed, n, theta, 20_000, mult=0x9E37FFFFFFFC0001)
    assert old != new


def test_zeta_is_capped_at_ten_million_terms():
    seed, n, theta = CASES[4]
    cap = 1000  # the cap is a parameter so the reference can check it without 10M Python steps
    assert blocks(seed, n, theta, 5000, max_terms=cap).tolist() == fio_zipf_blocks(seed, n, theta, 5000, cap)
    assert blocks(seed, n, theta, 5000, max_terms=cap).tolist() != blocks(seed, n, theta, 5000).tolist()


@pytest.fixture(scope="module")
def fio_zipf_c(tmp_path_factory):
    """tests/c/fio_zipf.c compiled, once for every case."""
    exe = tmp_path_factory.mktemp("fio_zipf_c") / "fio_zipf"
    src = __file__.replace("test_fio.py", "c/fio_zipf.c")
    subprocess.run(["cc", "-O2", "-o", str(exe), src, "-lm"], check=True)
    return exe


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("seed,n,theta", CASES)
def test_numba_matches_c(fio_zipf_c, seed, n, theta):
    exe = fio_zipf_c
    out = subprocess.run([str(exe), str(seed), str(n), str(theta), "50000"], check=True, capture_output=True,
                         text=True).stdout.split()
    assert blocks(seed, n, theta, 50_000).tolist() == [int(x) for x in out]
    old = subprocess.run([str(exe), str(seed), str(n), str(theta), "50000", "0x9E37FFFFFFFC0001"], check=True,
                         capture_output=True, text=True).stdout.split()
    assert blocks(seed, n, theta, 50_000, hash="prime64-old").tolist() == [int(x) for x in old]


@pytest.mark.parametrize("theta,n", [(0.9, 50_000), (0.5, 3), (1.2, 4096), (0.99, 77_777)])
def test_true_mode_is_the_binary_search_of_each_draw(theta, n):
    """True Zipf mode against a plain reference: splitmix64 in Python integers, a 53-bit uniform, and
    NumPy's binary search over the unnormalised CDF (the kernel walks from a guide table instead)."""
    seed, count = 7, 30_000
    cdf = np.cumsum(np.arange(1, n + 1, dtype=np.float64) ** -theta)
    perm = np.random.default_rng(seed).permutation(n)
    state, mask, u = seed, 2**64 - 1, []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        u.append((z >> 11) * (1.0 / 9007199254740992.0))
    # each draw's search, all at once (the same float64 products and comparisons as one at a time)
    rank = np.searchsorted(cdf, np.array(u) * cdf[n - 1], side="right")
    want = perm[np.minimum(rank, n - 1)].tolist()
    assert blocks(seed, n, theta, count, mode="true").tolist() == want


def test_fio_mapping_is_not_one_to_one_and_true_mode_is():
    n, count = 50_000, 400_000
    fio = np.bincount(blocks(1, n, 0.9, count), minlength=n)
    true = np.bincount(blocks(1, n, 0.9, count, mode="true"), minlength=n)
    # both are skewed: the top block holds about rank 1's share, 1 / zeta(50000, 0.9) = 0.048
    assert fio.max() / count > 0.04 and true.max() / count > 0.04
    # fio's rank -> block hash modulo n: at n = 50,000 (not a power of two) the image of all n ranks misses blocks
    # (GOLDEN_RATIO_64 reaches 96.5% of the blocks, the old constant under 90%)
    for mult, most in ((0x61C8864680B583EB, 0.97), (0x9E37FFFFFFFC0001, 0.9)):
        image = np.unique((np.arange(n, dtype=np.uint64) * np.uint64(mult)) % np.uint64(n))
        assert len(image) < most * n
    assert np.count_nonzero(true) > np.count_nonzero(fio)
    # the exact Zipf mass of the top 1% of blocks, against what each mode produced
    ranks = np.arange(1, n + 1) ** -0.9
    expect = ranks[: n // 100].sum() / ranks.sum()
    top = lambda c: np.sort(c)[::-1][: n // 100].sum() / count  # noqa: E731
    assert top(true) == pytest.approx(expect, abs=0.01)
    assert abs(top(fio) - expect) > 0.005  # fio's collisions and Gray's approximation move the mass


@pytest.mark.parametrize("mult", [0x61C8864680B583EB, 0x9E37FFFFFFFC0001])
def test_hash_is_a_bijection_for_a_power_of_two(mult):
    """8 GB of 4 KiB blocks is 2**21: any odd multiplier permutes the blocks, so every rank has its own."""
    n = 2**21
    image = (np.arange(n, dtype=np.uint64) * np.uint64(mult)) % np.uint64(n)
    hit = np.zeros(n, bool)
    hit[image] = True  # n ranks reach all n blocks: no two share one (np.unique's sort took seconds)
    assert hit.all()


def test_prefill_is_a_setting():
    assert FioZipf(0.9, 100, 10).prefill == 100 and FioZipf(0.9, 100, 10, prefilled=False).prefill == 0


def test_bad_parameters():
    with pytest.raises(ValueError, match="hash"):
        FioZipf(0.9, 100, 10, hash="crc")
    with pytest.raises(ValueError, match="theta"):
        FioZipf(1.0, 100, 10)
    with pytest.raises(ValueError, match="mode"):
        FioZipf(0.9, 100, 10, mode="zipf")
