"""Cache replacement under the independent reference model (IRM), against the kernels.

Under the IRM every request is for item ``i`` with probability ``q_i``, independently of all others. The
field has near-exact approximations for the simplest policies, and exact results for tiny catalogues:

* **LRU, Che's approximation** (Che, Tung, Wang 2002): the characteristic time ``T`` solves
  ``sum_i (1 - exp(-q_i T)) = C``, item ``i`` is in the cache with probability ``1 - exp(-q_i T)`` and the
  hit ratio is ``sum_i q_i (1 - exp(-q_i T))`` (:func:`che_time`, :func:`che_hit_ratio`). Fricker, Robert and
  Roberts (2012, "A versatile and accurate approximation for LRU cache performance", ITC 24) explain why it
  is so accurate and show it asymptotically exact as the cache grows; Olmos, Kauffmann, Simonian and Carlinet
  ("Cache miss estimation for non-stationary request processes", arXiv:1511.07392) expand the miss
  probability in powers of ``1 / C``, Che's value being the first term.
* **FIFO and RANDOM, the characteristic-time approximation** (Martina, Garetto, Leonardi 2014, "A unified
  approach to the performance analysis of caching systems", INFOCOM; arXiv:1307.6702): ``T`` solves
  ``sum_i q_i T / (1 + q_i T) = C`` and the hit ratio is ``sum_i q_i^2 T / (1 + q_i T)``, which equals
  ``1 - C / T`` (:func:`ttl_time`, :func:`fifo_random_hit_ratio`).
* **Exact**: FIFO and RANDOM share the stationary law ``P(S) ~ prod_{i in S} q_i`` over the sets of ``C``
  items (King 1971 for FIFO, Gelenbe 1973 for RANDOM), whose hit ratio is ``1 - (C + 1) e_{C+1}(q) /
  e_C(q)`` with ``e_k`` the elementary symmetric polynomials (:func:`exact_fifo_random`, any size, cost
  ``n * C``). LRU by King's formula over ordered ``C``-tuples (:func:`exact_lru`, ``n`` up to about 10).

Both approximations are the first term of an expansion in ``1 / C``: their miss ratio is off by a relative
``O(1 / C)``, the error largest for small caches (Hasslinger, Ntougias, Hasslinger, Hohlfeld, "Scope and
accuracy of analytic and approximate results for FIFO, clock-based and LRU caching performance", Future
Internet 15(3):91, 2023, bound it in a worst-case study of small caches). :func:`cases` allows ``miss / C``
for it (``1 / T`` for FIFO and RANDOM); tests/test_theory_cache.py checks against the exact values that the
actual error stays inside that allowance: LRU on 8 items (King's formula), FIFO and RANDOM on 8 to 10^5
items (the product form), Zipf exponents 0.6 to 1.2, every cache size tried.

:func:`cases` runs the kernels on seeded IRM Zipf streams and puts them beside the models (notebook 07's
input). The root finding is a Newton iteration kept inside an analytic bracket (both equations are
increasing and concave in ``T``, so Newton from the bracket's left end rises monotonically to the root):
scipy, whose ``brentq`` would also do, is not a dependency of the package.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import typing

import numpy as np
from numba import njit

from ..traces.synthetic import Guide

if typing.TYPE_CHECKING:
    import polars as pl

# --- popularity ------------------------------------------------------------------------------------------


def zipf_popularity(n: int, alpha: float) -> np.ndarray:
    """``q_i`` proportional to ``(i + 1)^-alpha`` for ``i = 0..n-1``, summing to 1 (rank 0 the most popular)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    w = np.arange(1, n + 1, dtype=np.float64) ** -float(alpha)
    return w / w.sum()


def _popularity(q) -> np.ndarray:
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or len(q) == 0 or not np.all(np.isfinite(q)) or np.any(q < 0) or q.sum() <= 0:
        raise ValueError("q must be a non-empty 1-d array of finite request probabilities >= 0, not all 0")
    q = q[q > 0]  # items never requested are never cached: they change neither equation
    return q / q.sum()


def _capacity(C) -> int:
    if isinstance(C, bool) or not isinstance(C, (int, np.integer)) or C < 0:
        raise ValueError(f"the cache size must be a whole number of items >= 0, got {C!r}")
    return int(C)


# --- root finding ----------------------------------------------------------------------------------------


def _increasing_concave_root(f, lo: float, hi: float, rtol: float = 1e-14, max_iter: int = 500) -> float:
    """The root of ``f`` (returning ``(value, derivative)``), increasing and concave on ``[lo, hi]`` with
    ``f(lo) <= 0 <= f(hi)``.

    Newton from ``lo``: on a concave increasing function each tangent's root lies at or below the root, so
    the iterates rise monotonically towards it, quadratically near it. Each value also narrows the bracket;
    a Newton step that leaves it or fails to halve the previous step (where rounding makes ``f`` noisy, e.g.
    a cache of all but one item) is replaced by bisection, so the bracket always shrinks (Numerical
    Recipes' ``rtsafe``). Returns once the step or the bracket is below ``rtol`` of the root."""
    x, step_before = lo, hi - lo
    for _ in range(max_iter):
        v, d = f(x)
        if v == 0:
            return x
        if v > 0:
            hi = x
        else:
            lo = x
        nxt = x - v / d if d > 0 else math.nan
        if not lo <= nxt <= hi or 2 * abs(nxt - x) > abs(step_before):
            nxt = 0.5 * (lo + hi)
        step_before, x = nxt - x, nxt
        if abs(step_before) <= rtol * abs(x) or hi - lo <= rtol * abs(x):
            return x
    raise RuntimeError(f"no convergence in {max_iter} steps (bracket [{lo}, {hi}])")


def che_time(q, C: int) -> float:
    """Che's characteristic time: the ``T`` that solves ``sum_i (1 - exp(-q_i T)) = C`` (in requests).

    0 for ``C = 0``; infinite when the cache holds every requested item. Bracket: ``1 - e^-x <= x`` gives
    ``f(C) <= 0``; ``1 - e^{-q_i T} >= 1 - e^{-q_min T}`` gives ``f >= 0`` at ``-log(1 - C/n) / q_min``."""
    q = _popularity(q)
    n, C = len(q), _capacity(C)
    if C == 0:
        return 0.0
    if C >= n:
        return math.inf

    def f(T):
        e = np.exp(-q * T)
        return float(np.sum(-np.expm1(-q * T)) - C), float(np.dot(q, e))

    return _increasing_concave_root(f, float(C), -math.log1p(-C / n) / float(q.min()))


def che_item_hit(q, T: float) -> np.ndarray:
    """Che's probability that each item is in the cache (and so its hit ratio): ``1 - exp(-q_i T)``."""
    return -np.expm1(-np.asarray(q, dtype=np.float64) * T)


def che_hit_ratio(q, C: int) -> float:
    """LRU's hit ratio by Che's approximation: ``sum_i q_i (1 - exp(-q_i T))``."""
    q = _popularity(q)
    T = che_time(q, C)
    if math.isinf(T):
        return 1.0
    return float(np.dot(q, che_item_hit(q, T)))


def ttl_time(q, C: int) -> float:
    """The characteristic time of FIFO and RANDOM (Martina, Garetto, Leonardi 2014): the ``T`` that solves
    ``sum_i q_i T / (1 + q_i T) = C``.

    0 for ``C = 0``; infinite when the cache holds every requested item. Bracket: ``x / (1 + x) <= x``
    gives ``f(C) <= 0``; the term is increasing in ``q_i``, so ``f >= 0`` at ``C / (q_min (n - C))``."""
    q = _popularity(q)
    n, C = len(q), _capacity(C)
    if C == 0:
        return 0.0
    if C >= n:
        return math.inf

    def f(T):
        x = q * T
        return float(np.sum(x / (1 + x)) - C), float(np.sum(q / (1 + x) ** 2))

    return _increasing_concave_root(f, float(C), C / (float(q.min()) * (n - C)))


def ttl_item_hit(q, T: float) -> np.ndarray:
    """The characteristic-time probability that each item is in a FIFO or RANDOM cache: ``q_i T / (1 + q_i T)``."""
    x = np.asarray(q, dtype=np.float64) * T
    return x / (1 + x)


def fifo_random_hit_ratio(q, C: int) -> float:
    """FIFO's and RANDOM's hit ratio by the characteristic-time approximation: ``sum_i q_i^2 T / (1 + q_i T)``."""
    q = _popularity(q)
    T = ttl_time(q, C)
    if math.isinf(T):
        return 1.0
    return float(np.dot(q, ttl_item_hit(q, T)))


# --- exact results ---------------------------------------------------------------------------------------


@njit(cache=True)
def _poisson_binomial_head(p, top):
    """``P(S = k)`` for ``k = 0..top``, up to a common factor, for ``S`` a sum of independent Bernoulli(p_i):
    the convolution one item at a time, truncated at ``top`` (exact below it: mass only moves up). The
    vector is rescaled whenever its largest entry falls below 1e-200, so nothing underflows that matters."""
    v = np.zeros(top + 1)
    v[0] = 1.0
    for i in range(p.shape[0]):
        a = p[i]
        b = 1.0 - a
        for k in range(top, 0, -1):
            v[k] = v[k] * b + v[k - 1] * a
        v[0] *= b
        m = v.max()
        if m < 1e-200:
            v /= m
    return v


def exact_fifo_random(q, C: int) -> float:
    """The exact stationary hit ratio of FIFO and of RANDOM under the IRM (they are equal).

    Both have the stationary law ``P(S) ~ prod_{i in S} q_i`` over the sets of ``C`` items, so the hit ratio is
    ``sum_S P(S) q(S) = 1 - (C + 1) e_{C+1}(q) / e_C(q)`` (``sum_i q_i = 1``), ``e_k`` the elementary symmetric
    polynomials. With ``x_i = q_i T`` (any ``T > 0``), ``e_k(x) / prod_i (1 + x_i)`` is ``P(S = k)`` for ``S`` a
    sum of independent Bernoulli(``x_i / (1 + x_i)``), computed by convolution up to ``C + 1``: exact, in
    ``n * C`` steps. ``T`` is the characteristic time, so that ``P(S = C)`` sits at the distribution's mean.
    """
    q = _popularity(q)
    n, C = len(q), _capacity(C)
    if C == 0:
        return 0.0
    if C >= n:
        return 1.0
    T = ttl_time(q, C)
    v = _poisson_binomial_head(ttl_item_hit(q, T), C + 1)
    return float(1.0 - (C + 1) * (v[C + 1] / v[C]) / T)


def exact_lru(q, C: int, max_terms: int = 5_000_000) -> float:
    """The exact stationary hit ratio of LRU under the IRM, by King's formula (1971): the cache's ordered
    content ``(i_1, .., i_C)`` (most recent first) has probability ``prod_k q_{i_k} / (1 - q_{i_1} - .. -
    q_{i_{k-1}})``, and the hit ratio is the sum over those states of ``P(state) * (q_{i_1} + .. + q_{i_C})``.
    For tiny catalogues: ``n! / (n - C)!`` states (refused above ``max_terms``)."""
    q = _popularity(q)
    n, C = len(q), _capacity(C)
    if C == 0:
        return 0.0
    if C >= n:
        return 1.0
    if math.perm(n, C) > max_terms:
        raise ValueError(f"{math.perm(n, C):,} ordered states for n={n}, C={C}: too many for King's formula")
    total = 0.0
    for state in itertools.permutations(range(n), C):
        prob, before = 1.0, 0.0
        for i in state:
            prob *= q[i] / (1.0 - before)
            before += q[i]
        total += prob * before
    return total


# --- IRM streams through the kernels ---------------------------------------------------------------------


def irm_stream(q, n_requests: int, seed, chunk: int = 1 << 22):
    """Item numbers drawn independently with probabilities ``q`` (``q`` need not be normalised), in chunks
    of at most ``chunk`` (int64 arrays): the uniforms come from ``numpy.random.default_rng(seed)``, and each
    is turned into the item by the inverse CDF, as :func:`flashrepro.traces.synthetic.zipf_ranks` does (the
    same uniforms give the same items)."""
    q = np.asarray(q, dtype=np.float64)
    cdf = np.cumsum(q)
    cdf /= cdf[-1]
    g = Guide(cdf)
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_requests:
        m = min(chunk, n_requests - done)
        yield g(rng.random(m))
        done += m


@dataclasses.dataclass(frozen=True)
class IRMRun:
    """One policy run on an IRM stream: ``warmup`` requests dropped, then ``batches`` batches of ``batch``
    requests each, whose hit ratios give the estimate and its batch-means standard error."""

    label: str
    policy: str
    capacity: int
    warmup: int
    batch: int
    batches: int
    params: dict = dataclasses.field(default_factory=dict)

    @property
    def length(self) -> int:
        return self.warmup + self.batch * self.batches


@dataclasses.dataclass(frozen=True)
class IRMResult:
    run: IRMRun
    batch_hits: np.ndarray  # hits in each batch

    @property
    def hit_ratio(self) -> float:
        return float(self.batch_hits.sum() / (self.run.batch * self.run.batches))

    @property
    def se(self) -> float:
        """Batch-means standard error of :attr:`hit_ratio` (batches long against the cache's memory: see
        :func:`cases`)."""
        r = self.batch_hits / self.run.batch
        return float(r.std(ddof=1) / math.sqrt(len(r)))


def run_irm(q, runs: list[IRMRun], seed, chunk: int = 1 << 22) -> list[IRMResult]:
    """Every run over one IRM stream (:func:`irm_stream`; item ``i`` is page ``i``), generated chunk by chunk
    and fed to each run's :class:`~flashrepro.cache.Simulator` (the driver :func:`~flashrepro.cache.simulate`
    runs) until that run's own length, so a stream of 10^8 requests is never held whole. The policies treat
    pages alike whatever their number, so numbering pages by popularity changes nothing.

    ``tests/test_theory_cache.py`` checks that each run's counters are :func:`~flashrepro.cache.simulate`'s on
    the same stream."""
    from ..cache import Simulator, make_params
    from ..cache.contract import HITS
    from ..traces.trace import RefStream, Units

    q = np.asarray(q, dtype=np.float64)
    units = Units.contiguous(len(q))
    sims = [Simulator(r.policy, units, {"capacity_pages": r.capacity}, make_params(r.policy, **r.params))
            for r in runs]
    # request positions where a run's count of hits is read: the end of its warm-up and of each batch
    marks = [r.warmup + r.batch * np.arange(r.batches + 1) for r in runs]
    hits_at = [[0] if r.warmup == 0 else [] for r in runs]
    total = max(r.length for r in runs)
    zeros_event = np.zeros(min(chunk, total), np.int8)
    zeros_time = np.zeros(min(chunk, total))
    no_file = np.full(min(chunk, total), -1, np.int32)
    ones = np.ones(min(chunk, total), np.int64)
    start = 0
    for items in irm_stream(q, total, seed, chunk):
        end = start + len(items)
        for k, (run, sim) in enumerate(zip(runs, sims, strict=True)):
            pos = start
            stop = min(end, run.length)
            while pos < stop:
                nxt = marks[k][np.searchsorted(marks[k], pos, side="right")] if pos < run.length else stop
                nxt = min(nxt, stop)
                a, b = pos - start, nxt - start
                sim.feed(RefStream(items[a:b], zeros_event[a:b], zeros_time[a:b], no_file[a:b], ones[a:b]))
                pos = nxt
                if pos in marks[k]:
                    hits_at[k].append(int(sim.counters[HITS]))
        start = end
    out = []
    for run, h in zip(runs, hits_at, strict=True):
        out.append(IRMResult(run, np.diff(np.asarray(h, np.int64))))
    return out


# --- the cases: ours against the models ------------------------------------------------------------------

SCALES = {
    # catalogue pages, Zipf exponents, cache sizes as shares of the catalogue, the least number of measured
    # requests per case, batches per case
    "paper": {"n": 1_000_000, "alphas": (0.6, 0.8, 1.0, 1.2), "fractions": (0.001, 0.01, 0.1),
              "measured": 8_000_000, "batches": 20},
    "quick": {"n": 100_000, "alphas": (0.6, 0.8, 1.0, 1.2), "fractions": (0.001, 0.01, 0.1),
              "measured": 2_000_000, "batches": 20},
    "ci": {"n": 100_000, "alphas": (0.8, 1.2), "fractions": (0.01, 0.1), "measured": 1_000_000, "batches": 20},
}
WARMUP_T = 5  # warm-up: this many FIFO characteristic times (the longest memory of the four policies)
BATCH_T = 3  # each batch at least this many characteristic times, so that batch means are nearly independent
SE_FACTOR = 4  # the sampling part of the tolerance: this many batch-means standard errors

# the policies of the cases: label -> (registered policy, parameters, the model it is checked against)
POLICIES = {
    "lru": ("lru", {}, "che"),
    "fifo": ("fifo", {}, "ttl"),
    "random": ("random", {"seed": 1}, "ttl"),
    "clock": ("clock", {"insert_referenced": True}, "between"),
    "clock-unreferenced": ("clock", {}, "between"),
}
NOTES = {
    "clock": "a new page enters referenced (the faulting access sets its bit, the textbook CLOCK)",
    "clock-unreferenced": "the package's default CLOCK (libCacheSim's): a new page enters unreferenced, so it "
                          "stays only if hit again before the hand comes round, a frequency filter (like "
                          "Martina et al.'s k-LRU) that beats LRU under IRM: above the bracket by design",
}


def cases(scale: str = "paper", seed: int = 0) -> pl.DataFrame:
    """The kernels against the models on seeded IRM Zipf streams: one row per (case, Zipf alpha, cache size).

    For each ``alpha`` one stream (:func:`irm_stream`, seed ``(seed, round(1000 * alpha))``; page ``i`` has
    rank ``i``) feeds every case and cache size (common random numbers). Each run drops a warm-up of
    ``WARMUP_T = 5`` FIFO characteristic times ``T`` (:func:`ttl_time`, the longest memory of the four
    policies: LRU's content is stationary once ``C`` distinct pages came, about ``che_time``; RANDOM keeps a
    share ``e^-5`` of its earlier content), then measures ``batches`` batches of ``max(measured / batches,
    3 T)`` requests. Scales: ``"paper"`` (10^6 pages, alpha 0.6-1.2, cache 0.1%, 1%, 10%, at least 8M measured
    requests per run), ``"quick"`` (10^5 pages, 2M), ``"ci"`` (10^5 pages, alpha 0.8 and 1.2, 1% and 10%, 1M).

    **Tolerance** = ``4 * se + model_tol``:

    * ``se``: the batch-means standard error over the ``batches`` batches, each at least ``3 T`` long so that
      neighbouring batch means are nearly uncorrelated (the cache's content, which decides a request's hit
      probability, is renewed on the scale of ``T``);
    * ``model_tol``: the model's own accuracy at this size. Both approximations are the first term of an
      expansion in ``1 / C`` (Fricker, Robert, Roberts 2012; Olmos et al., arXiv:1511.07392, for Che's;
      Martina et al. 2014 for the characteristic time): the model's miss ratio is off by a relative
      ``O(1 / C)``, allowed here as ``miss / C`` (for FIFO and RANDOM that is ``1 / T``: their model's hit ratio
      is ``1 - C / T``). tests/test_theory_cache.py checks against the exact values (King's formula, the
      product form) that the actual error stays inside this allowance on small Zipf catalogues; the ``exact``
      column shows it at this size where the product form is computed.

    CLOCK has no model of this kind: its rows check that it lies between FIFO and LRU (ours for both, within
    ``4 * sqrt(se_clock^2 + se_bound^2)``), and between the two models (within that plus each model's
    ``model_tol``). The textbook CLOCK (a new page enters referenced) does; the package's default CLOCK
    (unreferenced insertion, as libCacheSim's) lies above LRU under IRM, as a frequency filter should.

    Columns: ``case`` (lru, fifo, random, clock, clock-unreferenced), ``policy`` and ``params`` (the registered
    policy and its parameters, JSON), ``model`` (``che``, ``ttl``: the characteristic-time approximation of FIFO
    and RANDOM, or ``between``: FIFO <= CLOCK <= LRU), ``alpha``, ``catalogue_pages``, ``capacity_pages``,
    ``cache_fraction``, ``characteristic_time`` (the model's ``T``, requests; for CLOCK rows the FIFO one),
    ``theory`` (the model's hit ratio; null for CLOCK), ``exact`` (the exact product-form hit ratio for FIFO and
    RANDOM where ``n * C <= 2e9``, else null), ``ours`` (hit ratio of the measured requests), ``se``,
    ``abs_err`` (``ours - theory``), ``rel_err`` (``abs_err / theory``), ``sampling_tol`` (``4 se``), ``model_tol``,
    ``tolerance``, ``within`` (``|abs_err| <= tolerance``; for CLOCK: inside both brackets), ``lower`` and
    ``upper`` (CLOCK rows: ours for FIFO and LRU), ``model_lower`` and ``model_upper`` (CLOCK rows: the
    FIFO/RANDOM and Che hit ratios), ``within_ours`` and ``within_models`` (CLOCK rows: each bracket),
    ``position`` (CLOCK rows: ``between``, ``above lru`` or ``below fifo``, by ours with the tolerance),
    ``warmup``, ``batch``, ``batches``, ``requests`` (measured), ``seed``, ``note``.
    """
    import polars as pl

    if scale not in SCALES:
        raise ValueError(f"scale must be one of {sorted(SCALES)}, got {scale!r}")
    s = SCALES[scale]
    n = s["n"]
    rows = []
    for alpha in s["alphas"]:
        q = zipf_popularity(n, alpha)
        sizes = [max(1, int(round(f * n))) for f in s["fractions"]]
        models, runs = _plan(q, sizes, s)
        results = {(r.run.label, r.run.capacity): r for r in run_irm(q, runs, [int(seed), int(round(1000 * alpha))])}
        for C in sizes:
            for label, (policy, params, model) in POLICIES.items():
                res = results[(label, C)]
                row = _measured_row(label, policy, params, model, alpha, n, C, res, seed)
                if model in ("che", "ttl"):
                    row.update(_against_model(res, C, *models[C][model]))
                else:
                    row.update(_between(res, C, results[("fifo", C)], results[("lru", C)], models[C]))
                rows.append(row)
    return pl.DataFrame(rows, schema={k: getattr(pl, t) for k, t in CASE_COLUMNS.items()})


# cases()'s columns and their polars types, in order
CASE_COLUMNS = {"case": "String", "policy": "String", "params": "String", "model": "String", "alpha": "Float64",
                "catalogue_pages": "Int64", "capacity_pages": "Int64", "cache_fraction": "Float64",
                "characteristic_time": "Float64", "theory": "Float64", "exact": "Float64", "ours": "Float64",
                "se": "Float64", "abs_err": "Float64", "rel_err": "Float64", "sampling_tol": "Float64",
                "model_tol": "Float64", "tolerance": "Float64", "within": "Boolean", "lower": "Float64",
                "upper": "Float64", "model_lower": "Float64", "model_upper": "Float64", "within_ours": "Boolean",
                "within_models": "Boolean", "position": "String", "warmup": "Int64", "batch": "Int64",
                "batches": "Int64", "requests": "Int64", "seed": "Int64", "note": "String"}


def _plan(q, sizes, s) -> tuple[dict, list]:
    """For popularities ``q`` at each cache size: the models (``{C: {"ttl": (T, hit ratio, exact), "che": (T,
    hit ratio, None)}}``, ``exact`` the product form where ``n * C <= 2e9``) and every case's :class:`IRMRun`
    (warm-up ``WARMUP_T`` FIFO characteristic times, batches of at least ``BATCH_T`` of them)."""
    models, runs = {}, []
    for C in sizes:
        T_ttl, T_che = ttl_time(q, C), che_time(q, C)
        exact = exact_fifo_random(q, C) if len(q) * C <= 2e9 else None
        models[C] = {"ttl": (T_ttl, 1 - C / T_ttl, exact), "che": (T_che, che_hit_ratio(q, C), None)}
        warmup = int(math.ceil(WARMUP_T * T_ttl))
        batch = int(max(math.ceil(s["measured"] / s["batches"]), math.ceil(BATCH_T * T_ttl)))
        for label, (policy, params, _) in POLICIES.items():
            runs.append(IRMRun(label, policy, C, warmup, batch, s["batches"], params))
    return models, runs


def _measured_row(label, policy, params, model, alpha, n, C, res, seed) -> dict:
    """A row of :func:`cases` with what was measured (``res``, an :class:`IRMResult`); the judgement empty."""
    run = res.run
    row = dict.fromkeys(CASE_COLUMNS)
    row.update(case=label, policy=policy, params=json.dumps(params, sort_keys=True), model=model, alpha=alpha,
               catalogue_pages=n, capacity_pages=C, cache_fraction=C / n, ours=res.hit_ratio, se=res.se,
               sampling_tol=SE_FACTOR * res.se, warmup=run.warmup, batch=run.batch, batches=run.batches,
               requests=run.batch * run.batches, seed=int(seed), note=NOTES.get(label, ""))
    return row


def _against_model(res, C, T, theory, exact) -> dict:
    """A case with a model (Che's or the characteristic time): within ``4 se`` plus the model's ``miss / C``."""
    model_tol = (1 - theory) / C
    tol = SE_FACTOR * res.se + model_tol
    err = res.hit_ratio - theory
    return dict(characteristic_time=T, theory=theory, exact=exact, abs_err=err, rel_err=err / theory if theory > 0
                else None, model_tol=model_tol, tolerance=tol, within=abs(err) <= tol)


def _between(res, C, lo, hi, models) -> dict:
    """A CLOCK case: between ours for FIFO (``lo``) and LRU (``hi``), and between their models, each bracket
    widened by the combined sampling error (and the models' ``miss / C``)."""
    t_lo = SE_FACTOR * math.hypot(res.se, lo.se)
    t_hi = SE_FACTOR * math.hypot(res.se, hi.se)
    m_lo, m_hi = models["ttl"][1], models["che"][1]
    tol_m_lo, tol_m_hi = t_lo + (1 - m_lo) / C, t_hi + (1 - m_hi) / C
    x = res.hit_ratio
    in_ours = lo.hit_ratio - t_lo <= x <= hi.hit_ratio + t_hi
    in_models = m_lo - tol_m_lo <= x <= m_hi + tol_m_hi
    position = "below fifo" if x < lo.hit_ratio - t_lo else "above lru" if x > hi.hit_ratio + t_hi else "between"
    return dict(characteristic_time=models["ttl"][0], tolerance=max(t_lo, t_hi), position=position,
                lower=lo.hit_ratio, upper=hi.hit_ratio, model_lower=m_lo, model_upper=m_hi, within_ours=in_ours,
                within_models=in_models, within=in_ours and in_models)
