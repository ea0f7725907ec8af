"""The FTL under uniform random single-page writes, against the analytic models of its victim rules.

Each model is a limit for a device of many lines (erase blocks) of ``P`` pages, written by independent,
uniformly random single-page host writes over ``U`` logical pages; ``alpha`` is physical over logical pages
and ``rho = 1 / alpha``. The write amplification is WAF = (host writes + GC copies) / host writes =
P / (P - E[J]), ``J`` the valid pages of a victim (each victim's line then takes P - J host writes).

Models
------
* **FIFO**, Desnoyers [1]_ (eq. 4): the victim is the line written one turn of the log ago, so each of its
  pages is still valid with probability ``X`` solving ``X = exp(-alpha (1 - X))`` (the root below 1;
  ``X = 1`` always solves it too), and WAF = 1 / (1 - X) = alpha / (alpha + W0(-alpha e^-alpha)).
  :func:`fifo_valid_share`, :func:`fifo_waf`. The FTL's ``fifo`` is FEMU's: the earliest-closed line *with
  an invalid page*. A line that reaches the head of the log with all its pages valid (probability X^P) is
  skipped, stays the oldest, and is the next victim once its first page is invalidated (U / P host writes
  later on average), with P - 1 valid pages. Desnoyers' argument with that one change (ours): E[J] =
  P X - X^P, so WAF = 1 / (1 - X + X^P / P); and the lines hold the log, WAF / P lines per host write over
  the age T = -U ln X, plus the skipped lines, WAF / P X^P lines per host write waiting U / P each:
  ``alpha = WAF (-ln X + X^P / P)``. Eliminating WAF, X solves ``alpha (1 - X + X^P / P) = -ln X + X^P / P``
  (:func:`femu_fifo_valid_share`, :func:`femu_fifo_waf`); as X^P -> 0 this is Desnoyers' equation. At
  P = 64 the two differ by under 0.1% over alpha 1.05-1.43; at P = 16 and alpha 1.1 by 3% (the FTL's runs
  follow the extended form: :func:`cases`).
* **Van Houdt's mean-field model** [2]_ for the class of rules whose victim depends only on the valid
  counts of randomly sampled lines: ``x_k`` is the share of lines with ``k`` valid pages. At each GC one
  victim leaves (``J = k`` with probability ``p_k(x)``), one full line joins level ``P`` (the line the
  victim's ``J`` copies and ``P - J`` host writes fill), and each of those host writes invalidates a valid
  page chosen uniformly, moving a line from ``k`` to ``k - 1`` with probability ``k x_k / (rho P)``. With
  time in GCs per line, ``dx_k/dt = -p_k + [k = P] + lam ((k + 1) x_{k+1} - k x_k)``,
  ``lam = (P - E[J]) / (rho P)`` (:func:`mean_field_ode`). Summing the fixed point over the levels at or
  above ``k`` gives, with tails ``y_k = sum_{i >= k} x_i`` and ``S_k = P(J >= k)``::

      k lam (y_k - y_{k+1}) = 1 - S_k   (k = 1..P),      sum_{k >= 1} y_k = rho P   (the valid pages).

  For a given ``lam`` the levels follow one by one from ``k = P`` down (each a monotone scalar equation),
  and ``lam`` is set by bisection on the valid pages (:func:`mean_field`). The rules:

  - **d-choices** (Van Houdt's rule: ``d`` lines drawn uniformly, the least valid one taken):
    ``S_k = y_k^d`` over all lines (``among="all"``). The FTL's ``d-choice`` (FEMU's, ``d`` = the policy's
    ``d``, 4 by default) and ``random`` draw only among lines with an invalid page (``among="candidates"``):
    ``S_k = ((y_k - y_P) / (1 - y_P))^d`` for ``k < P`` and ``S_P = 0``.
  - **greedy**: ``d -> infinity`` (the victim is always one of the least valid lines; ``d=None``).
  - **random-all** is ``d = 1`` over all lines: ``E[J] = sum_k y_k = rho P``, so WAF = 1 / (1 - rho) exactly
    in the limit (:func:`random_all_waf`): the victim holds the mean valid count, whatever the distribution.
  - **FEMU's random** is ``d = 1`` over the candidates, and the fixed point has a closed form
    (:func:`femu_random_waf`): level ``P`` gives ``y_P = 1 / (P lam)``, the share of closed lines with no
    invalid page, ``W rho / P``; a victim holds the mean valid count of the others, ``E[J] = (rho P - P y_P)
    / (1 - y_P)``; solving for W gives **WAF = 1 / (1 - rho + rho / P)**. At alpha = 1.10 and P = 64 that is
    9.51 against random-all's 11.0: random-all draws a line with no invalid page with probability
    ``W rho / P`` (about 1 in 7 there) and copies it whole for nothing; FEMU's rule never does. (FEMU's random
    measured at 9.60 on a device of 1,400 lines is this model at P = 64 with alpha lowered by 0.1%, about
    what a reserve line and the open line take from such a device: see below.)

The mean-field model is exact as the number of lines grows at fixed ``P`` (Van Houdt [2]_ reports it
"highly accurate" against simulations of N = 50,000 blocks; for a smooth drift, as d-choices', the error
of a mean-field fixed point at N objects is O(1/N) [3]_). The FIFO model likewise (its one approximation,
that a victim's pages were all written the same time ago, is off by the position of a page within its
line: half a line of the log).

Mapping the FTL onto the models, and the tolerance
--------------------------------------------------
The models let every line hold data except the one being written, and collect when no line is free. The
FTL under the ``reserve`` trigger (the one used here) keeps ``reserve_lines`` (``r``, 1) lines free: when
the host's line fills and at most ``r`` are free, GC passes run until ``r + 1`` are, the host fills the
line the copies opened, takes one more line and fills it, and GC runs again. So ``r`` or ``r + 1`` lines
are free and ``L - r - 1`` or ``L - r`` lines hold data or are being written. The model's lines are those:
``theory`` is the model at ``alpha_model = (L - r - 1/2) P / U``, and the finite-size tolerance
``tol_finite`` is half the difference of the model at ``L - r - 1`` and ``L - r`` lines. It is O(1/L), the
order of the mean-field error itself [3]_, and it covers FIFO's half line. A larger reserve takes its
lines out of the physical space one for one: the same device with ``r`` reserve lines is the model at
``(L - r - 1/2) P / U`` (``theory_nominal``, the model at the geometry's own ``alpha``, shows the size of
the shift). The sampling part of the tolerance, ``tol_sampling``, is Student's t (batch means, one batch
per half a logical space of writes) at a family-wise 1% over the cases of the grid (Bonferroni).

The FTL runs, from empty: every logical page written once in order (a file laid out), a warm-up of
``warmup`` (3) logical spaces of uniform random writes, then ``batches`` (16) batches of half a logical
space each. Three logical spaces rewrite all but e^-3 (5%) of the pages after the fill, and a line is
recycled every ``alpha / WAF`` logical spaces of host writes or sooner, so the state has relaxed; each case
checks it: ``drift`` is the second half's mean WAF minus the first half's, with its standard error.

References
----------
.. [1] P. Desnoyers, "Analytic Modeling of SSD Write Performance", SYSTOR 2012 (ACM TOS 10(2), 2014).
.. [2] B. Van Houdt, "A Mean Field Model for a Class of Garbage Collection Algorithms in Flash-based Solid
   State Drives", SIGMETRICS 2013 (Queueing Systems 77(2), 2014).
.. [3] N. Gast and B. Van Houdt, "A Refined Mean Field Approximation", Proc. ACM Meas. Anal. Comput. Syst.
   1(2), 2017 (SIGMETRICS 2018): the expectation at N objects is the fixed point's value plus O(1/N).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import polars as pl
from numba import njit

RULES = ("fifo", "random-all", "random", "greedy", "d-choice")  # the FTL's victim rules checked here
D_CHOICES = 4  # the FTL's d-choice default (Policy.d), FEMU's


# --- FIFO: Desnoyers --------------------------------------------------------------------------------------
def fifo_valid_share(alpha):
    """The valid share ``X`` of a FIFO victim: the root in (0, 1) of ``X = exp(-alpha (1 - X))``, alpha > 1.

    ``f(X) = X - exp(-alpha (1 - X))`` is negative at 0, vanishes at 1 and has its maximum, positive for
    alpha > 1, at ``1 - ln(alpha) / alpha``: the root lies below that, where f is increasing; bisection
    to machine precision."""
    a = np.asarray(alpha, dtype=float)
    if np.any(a <= 1):
        raise ValueError("alpha must exceed 1 (more physical than logical pages)")
    lo, hi = np.zeros_like(a), 1 - np.log(a) / a
    for _ in range(80):
        mid = (lo + hi) / 2
        below = mid - np.exp(-a * (1 - mid)) < 0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    x = (lo + hi) / 2
    return float(x) if x.ndim == 0 else x


def fifo_waf(alpha):
    """Desnoyers' FIFO write amplification, 1 / (1 - X)."""
    return 1 / (1 - fifo_valid_share(alpha))


def femu_fifo_valid_share(alpha: float, pages_per_line: int) -> float:
    """``X`` for FEMU's FIFO (full lines skipped): the root in (0, 1) of ``g(X) = -ln X + X^P / P -
    alpha (1 - X + X^P / P)``. On (0, 1 / alpha] both ``-ln X - alpha (1 - X)`` (Desnoyers' form, convex,
    least at 1 / alpha, where it is ln alpha - alpha + 1 < 0) and ``(1 - alpha) X^P / P`` decrease, and g
    is +inf at 0 and negative at 1 / alpha; above 1 / alpha g stays negative. So the root is unique:
    bisection on (0, 1 / alpha]."""
    if alpha <= 1:
        raise ValueError("alpha must exceed 1 (more physical than logical pages)")
    P = pages_per_line
    lo, hi = 0.0, 1 / alpha
    for _ in range(80):
        mid = (lo + hi) / 2
        xp = mid ** P / P
        if mid > 0 and -math.log(mid) + xp - alpha * (1 - mid + xp) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def femu_fifo_waf(alpha: float, pages_per_line: int) -> float:
    """FEMU's FIFO (full lines skipped) in Desnoyers' model: 1 / (1 - X + X^P / P)."""
    x = femu_fifo_valid_share(alpha, pages_per_line)
    return 1 / (1 - x + x ** pages_per_line / pages_per_line)


def desnoyers_greedy_waf(alpha, pages_per_line):
    """Desnoyers' approximation of greedy [1]_ (eq. 12): the FIFO model at ``k alpha``, divided by ``k``,
    ``k = 1 + 1 / (2P)``. Shown beside Van Houdt's model, not checked against."""
    k = 1 + 1 / (2 * pages_per_line)
    return fifo_waf(k * np.asarray(alpha, dtype=float)) / k


# --- random -------------------------------------------------------------------------------------------------
def random_all_waf(alpha):
    """A victim uniform among all lines: 1 / (1 - rho) = alpha / (alpha - 1)."""
    a = np.asarray(alpha, dtype=float)
    return a / (a - 1)


def femu_random_waf(alpha, pages_per_line):
    """A victim uniform among the lines with an invalid page (FEMU's ``random``): 1 / (1 - rho + rho / P)."""
    rho = 1 / np.asarray(alpha, dtype=float)
    return 1 / (1 - rho + rho / pages_per_line)


# --- Van Houdt's mean-field model ---------------------------------------------------------------------------
@njit(cache=True)
def _at_least(y, y_full, d, candidates):
    """``S = P(J >= k)`` from the tail ``y = y_k`` (k < P): the least valid of ``d`` draws (``d = 0``:
    infinitely many, greedy) over all lines or over the candidates (``y_full = y_P``, lines with no
    invalid page, excluded)."""
    if candidates:
        if y_full >= 1.0:
            return 1.0
        y = (y - y_full) / (1.0 - y_full)
    if d == 0:
        return 1.0 if y >= 1.0 else 0.0
    return y ** d if y > 1e-30 else 0.0  # (a subnormal power made the solve 50x slower; 1e-30^d is nothing)


@njit(cache=True)
def _tails(lam, P, d, candidates, y):
    """The fixed point's tails ``y[1..P]`` for a given ``lam`` (``y[0] = 1``, ``y[P + 1] = 0``): from level
    P down, each ``y_k`` in ``[y_{k+1}, 1]`` solving ``k lam (y_k - y_{k+1}) = 1 - S(y_k)``, whose left side
    increases and right side decreases in ``y_k`` (bisection). Level P: ``S_P = y_P^d`` over all lines,
    0 over the candidates."""
    y[P + 1] = 0.0
    for k in range(P, 0, -1):
        nxt = y[k + 1]
        lo, hi = nxt, 1.0
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            if k == P and candidates:
                s = 0.0
            elif k == P:
                s = _at_least(mid, 0.0, d, False)
            else:
                s = _at_least(mid, y[P], d, candidates)
            if k * lam * (mid - nxt) < 1.0 - s:
                lo = mid
            else:
                hi = mid
        y[k] = 0.5 * (lo + hi)  # greedy's levels below its least valid one: 1 (to the last bit)
    y[0] = 1.0


@njit(cache=True)
def _solve(rho, P, d, candidates):
    """``lam`` by bisection (in log space) on the valid pages ``sum_{k>=1} y_k = rho P``, which decrease as
    ``lam`` grows; returns the tails. ``lam = (P - E[J]) / (rho P) = alpha / WAF`` lies in (0, alpha]."""
    y = np.zeros(P + 2)
    lo, hi = math.log(1e-9), math.log(1.0 / rho)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        _tails(math.exp(mid), P, d, candidates, y)
        if y[1:P + 1].sum() > rho * P:
            lo = mid
        else:
            hi = mid
    lam = math.exp(0.5 * (lo + hi))
    _tails(lam, P, d, candidates, y)
    return lam, y


@dataclasses.dataclass(frozen=True)
class MeanField:
    """Van Houdt's fixed point for one rule: ``x[k]`` the share of lines with ``k`` valid pages, ``victim[k]``
    the probability that a victim has ``k``, ``lam`` the invalidation rate per GC and per valid page times
    ``rho P``; ``waf`` = P / (P - E[J]) from the victims, ``waf_from_lam`` the same from ``lam`` (equal
    at the fixed point, by conservation of valid pages)."""

    alpha: float
    pages_per_line: int
    d: int | None
    among: str
    lam: float
    x: np.ndarray
    victim: np.ndarray

    @property
    def mean_victim_valid(self) -> float:
        return float(np.arange(self.pages_per_line + 1) @ self.victim)

    @property
    def waf(self) -> float:
        return self.pages_per_line / (self.pages_per_line - self.mean_victim_valid)

    @property
    def waf_from_lam(self) -> float:
        return 1 / (self.lam / self.alpha)


def mean_field(alpha: float, pages_per_line: int, d: int | None = D_CHOICES, among: str = "candidates") -> MeanField:
    """Van Houdt's mean-field fixed point: the least valid of ``d`` lines drawn uniformly with replacement
    (``d=None``: greedy), drawn from ``among`` "all" lines (Van Houdt's d-choices) or the "candidates"
    (lines with an invalid page: the FTL's d-choice and random)."""
    if alpha <= 1:
        raise ValueError("alpha must exceed 1")
    if among not in ("all", "candidates"):
        raise ValueError(f"among must be 'all' or 'candidates', got {among!r}")
    if d is not None and d < 1:
        raise ValueError(f"d must be >= 1 or None (greedy), got {d}")
    P = int(pages_per_line)
    lam, y = _solve(1 / alpha, P, 0 if d is None else int(d), among == "candidates")
    x = y[:P + 1] - y[1:P + 2]
    S = np.empty(P + 2)  # S[k] = P(J >= k)
    S[0] = 1.0
    S[P + 1] = 0.0
    for k in range(1, P + 1):  # from the fixed-point equation: exact for greedy's boundary level too
        S[k] = 1 - k * lam * x[k]
    S[1:P + 1] = np.clip(S[1:P + 1], 0, 1)
    victim = S[:P + 1] - S[1:P + 2]
    return MeanField(float(alpha), P, d, among, float(lam), x, victim)


def mean_field_ode(alpha: float, pages_per_line: int, d: int, among: str = "all", t_end: float = 50.0,
                   steps: int = 20000, x0: np.ndarray | None = None) -> np.ndarray:
    """Van Houdt's ODE integrated by the classical Runge-Kutta method from ``x0`` (default: the lines' valid
    pages spread as evenly as ``rho`` allows) to ``t_end`` GCs per line; returns ``x``. For tests: its
    limit is :func:`mean_field`'s fixed point."""
    P, rho = int(pages_per_line), 1 / alpha
    if x0 is None:  # every line at floor or ceil of rho P valid pages
        x0 = np.zeros(P + 1)
        k = int(rho * P)
        x0[k + 1], x0[k] = rho * P - k, 1 - (rho * P - k)
    levels = np.arange(P + 1)

    def drift(x):
        y = np.concatenate([np.cumsum(x[::-1])[::-1], [0.0]])  # y[k] = sum_{i>=k} x_i
        y = np.clip(y, 0, 1)
        if among == "candidates":
            z = np.clip((y[:P] - y[P]) / (1 - y[P]), 0, 1)
            S = np.concatenate([z ** d, [0.0, 0.0]])
        else:
            S = np.concatenate([y[:P + 1] ** d, [0.0]])
        S[0] = 1.0
        p = S[:P + 1] - S[1:P + 2]
        ej = levels @ p
        lam = (P - ej) / (levels @ x)
        flow = levels * x
        dx = -p + lam * (np.append(flow[1:], 0.0) - flow)
        dx[P] += 1
        return dx

    x, h = np.array(x0, dtype=float), t_end / steps
    for _ in range(steps):
        k1 = drift(x)
        k2 = drift(x + h / 2 * k1)
        k3 = drift(x + h / 2 * k2)
        k4 = drift(x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


# --- one rule's model ---------------------------------------------------------------------------------------
def model_waf(rule: str, alpha: float, pages_per_line: int, d: int = D_CHOICES) -> float:
    """The model of the FTL's victim ``rule`` at ``alpha``: FIFO (Desnoyers, full lines skipped), random-all
    (1 / (1 - rho)), FEMU's random (its closed form), greedy and d-choice (Van Houdt's mean field over the
    candidates)."""
    if rule == "fifo":
        return femu_fifo_waf(alpha, pages_per_line)
    if rule == "random-all":
        return float(random_all_waf(alpha))
    if rule == "random":
        return float(femu_random_waf(alpha, pages_per_line))
    if rule == "greedy":
        return mean_field(alpha, pages_per_line, None).waf
    if rule == "d-choice":
        return mean_field(alpha, pages_per_line, d, "candidates").waf
    raise ValueError(f"no model for victim rule {rule!r}; modelled: {', '.join(RULES)}")


MODEL_NAMES = {"fifo": "Desnoyers FIFO, full lines skipped", "random-all": "1 / (1 - rho)",
               "random": "1 / (1 - rho + rho / P)", "greedy": "Van Houdt mean field, d -> inf",
               "d-choice": "Van Houdt mean field, d over candidates"}


def alt_model(rule: str, alpha: float, pages_per_line: int, d: int = D_CHOICES) -> tuple[str | None, float]:
    """A second model shown beside ``theory`` (not checked): Desnoyers' closed form for FEMU's fifo, the
    textbook random rule for FEMU's random, Van Houdt's d-choices over all lines for the FTL's d-choice,
    Desnoyers' greedy approximation."""
    if rule == "fifo":
        return "Desnoyers FIFO closed form", float(fifo_waf(alpha))
    if rule == "random":
        return "random-all: 1 / (1 - rho)", float(random_all_waf(alpha))
    if rule == "d-choice":
        return "Van Houdt d-choices over all lines", mean_field(alpha, pages_per_line, d, "all").waf
    if rule == "greedy":
        return "Desnoyers greedy approximation", float(desnoyers_greedy_waf(alpha, pages_per_line))
    return None, float("nan")


# --- sampling error -----------------------------------------------------------------------------------------
def student_t_quantile(p: float, nu: int) -> float:
    """The ``p`` quantile (p > 1/2) of Student's t with ``nu`` degrees of freedom: its density integrated by
    Simpson's rule on a fine grid, inverted by bisection (accurate to about 1e-6 for the p used here)."""
    c = math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)) / math.sqrt(nu * math.pi)

    def cdf(t):
        n = 4000  # even
        u = np.linspace(0.0, t, n + 1)
        f = c * (1 + u * u / nu) ** (-(nu + 1) / 2)
        w = np.ones(n + 1)
        w[1:-1:2], w[2:-1:2] = 4, 2
        return 0.5 + (t / n) / 3 * (w @ f)

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


# --- the FTL's runs -----------------------------------------------------------------------------------------
SCALES = {
    # physical pages per device, alphas, pages per line, warm-up (logical spaces), batches (half a logical
    # space each)
    "ci": {"physical_pages": 1 << 13, "alphas": (1.1, 1.43), "pages": (16,), "warmup": 3, "batches": 16},
    "quick": {"physical_pages": 1 << 15, "alphas": (1.05, 1.1, 1.2, 1.43), "pages": (16, 64), "warmup": 3,
              "batches": 16},
    "paper": {"physical_pages": 1 << 18, "alphas": (1.05, 1.1, 1.2, 1.3, 1.43), "pages": (16, 64), "warmup": 3,
              "batches": 16},
}
FAMILY_LEVEL = 0.01  # the chance that sampling alone puts any case of a grid out of its tolerance


def geometry_for(alpha: float, pages_per_line: int, physical_pages: int):
    """``physical_pages // P`` lines over ``round(physical / alpha)`` logical pages."""
    from ..ftl import Geometry

    lines = physical_pages // pages_per_line
    return Geometry(pages_per_line, lines, int(round(lines * pages_per_line / alpha)))


def _textbook_random_all() -> bool:
    from ..ftl.victims import random_all

    return random_all.TAKES_FULL_FIRST


def run_steady(rule: str, geometry, seed: int = 0, warmup: int = 3, batches: int = 16, d: int = D_CHOICES,
               trigger="reserve") -> np.ndarray:
    """The FTL's WAF in each of ``batches`` batches of half a logical space of uniform random writes, after
    the logical pages are written once in order and ``warmup`` logical spaces of uniform random writes.
    The writes depend only on ``seed`` and the geometry (every rule sees the same stream); the random rules
    draw from ``seed`` too."""
    from ..ftl import FTL, Policy
    from ..ftl import _kernel as K

    U = geometry.logical_pages
    ftl = FTL(geometry, Policy(rule, rule, d=d, seed=seed), trigger)
    rng = np.random.default_rng([seed, geometry.pages_per_line, geometry.n_lines, U])
    ftl.write(np.arange(U, dtype=np.int32))
    for _ in range(warmup):
        ftl.write(rng.integers(0, U, U, dtype=np.int32))
    c = ftl.state.counters
    out = np.empty(batches)
    for b in range(batches):
        host0, copies0 = int(c[K.HOST]), int(c[K.COPY:].sum())
        ftl.write(rng.integers(0, U, U // 2, dtype=np.int32))
        out[b] = 1 + (int(c[K.COPY:].sum()) - copies0) / (int(c[K.HOST]) - host0)
    return out


def theory_row(rule: str, alpha: float, geometry, reserve_lines: int = 1, d: int = D_CHOICES) -> dict:
    """The model's columns for one case (see :func:`cases`)."""
    P, L, U = geometry.pages_per_line, geometry.n_lines, geometry.logical_pages

    def at(lines):
        return model_waf(rule, lines * P / U, P, d)

    hi, lo = at(L - reserve_lines - 1), at(L - reserve_lines)  # fewer data lines: more copies
    name, alt = alt_model(rule, (L - reserve_lines - 0.5) * P / U, P, d)
    return {"alpha_geometry": L * P / U, "alpha_model": (L - reserve_lines - 0.5) * P / U,
            "model": MODEL_NAMES[rule], "theory": at(L - reserve_lines - 0.5), "theory_nominal": at(L),
            "tol_finite": abs(hi - lo) / 2, "alt_model": name, "theory_alt": alt}


def cases(scale: str = "paper", seed: int = 0, rules=RULES, d: int = D_CHOICES, progress: bool = False) -> pl.DataFrame:
    """The FTL's victim rules against their models under uniform random single-page writes: one row per
    (rule, alpha, pages_per_line), the FTL run on one core under the ``reserve`` trigger (1 reserve line).

    ``scale``: "ci" (a device of 8,192 pages, two alphas: seconds), "quick", "paper" (262,144 pages,
    alpha 1.05 to 1.43, 16 and 64 pages per line: about a minute). Columns:

    * ``rule``, ``d`` (d-choice's draws, else null), ``alpha`` (the grid's), ``pages_per_line``, ``lines``,
      ``logical_pages``, ``reserve_lines``;
    * ``alpha_geometry`` (physical / logical pages of the device: ``Geometry.spare_fraction + 1``),
      ``alpha_model`` = (lines - reserve - 1/2) x pages per line / logical pages, the space the model's
      lines stand for (module docstring);
    * ``model`` (its name), ``theory`` (the model at ``alpha_model``), ``theory_nominal`` (at
      ``alpha_geometry``: what the reserve changes);
    * ``ours`` (mean WAF over the batches), ``se`` (its standard error, batch means), ``error`` = ours -
      theory, ``rel_error`` = error / theory;
    * ``tol_finite`` (half the model's change between lines - reserve - 1 and lines - reserve data lines),
      ``tol_sampling`` (Student's t over the batches at a family-wise 1% over the grid, times ``se``),
      ``tolerance`` (their sum), ``within`` (abs(error) <= tolerance);
    * ``drift`` (mean WAF of the second half of the batches minus the first half's) and ``drift_se``;
    * ``warmup_writes``, ``measured_writes`` (host writes after the in-order fill), ``batches``;
    * ``alt_model``, ``theory_alt``: a second model beside it, not checked (FEMU's random: random-all's
      model; d-choice: Van Houdt's draws over all lines; greedy: Desnoyers' approximation; fifo: Desnoyers'
      closed form, which takes full lines too);
    * ``textbook``: False for random-all while the kernel refuses a first victim with no invalid page
      (then its first draws skip such lines, which makes it FEMU's random in law and puts it below its
      model: :mod:`flashrepro.ftl.victims.random_all`); True otherwise;
    * ``seconds``: CPU seconds of the run (timing, not a result).
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; known: {', '.join(SCALES)}")
    cfg = SCALES[scale]
    grid = [(a, P, r) for P in cfg["pages"] for a in cfg["alphas"] for r in rules]
    B = cfg["batches"]
    t_mult = student_t_quantile(1 - FAMILY_LEVEL / (2 * len(grid)), B - 1)
    textbook = _textbook_random_all()
    rows = []
    for alpha, P, rule in grid:
        g = geometry_for(alpha, P, cfg["physical_pages"])
        t0 = time.process_time()
        w = run_steady(rule, g, seed, cfg["warmup"], B, d)
        secs = time.process_time() - t0
        th = theory_row(rule, alpha, g, 1, d)
        ours, se = float(w.mean()), float(w.std(ddof=1) / math.sqrt(B))
        h1, h2 = w[:B // 2], w[B // 2:]
        tol = th["tol_finite"] + t_mult * se
        err = ours - th["theory"]
        rows.append({
            "rule": rule, "d": d if rule == "d-choice" else None, "alpha": alpha, "pages_per_line": P,
            "lines": g.n_lines, "logical_pages": g.logical_pages, "reserve_lines": 1,
            "alpha_geometry": th["alpha_geometry"], "alpha_model": th["alpha_model"], "model": th["model"],
            "theory": th["theory"], "theory_nominal": th["theory_nominal"], "ours": ours, "se": se,
            "error": err, "rel_error": err / th["theory"], "tol_finite": th["tol_finite"],
            "tol_sampling": t_mult * se, "tolerance": tol, "within": abs(err) <= tol,
            "drift": float(h2.mean() - h1.mean()),
            "drift_se": float(math.sqrt(h1.var(ddof=1) / len(h1) + h2.var(ddof=1) / len(h2))),
            "warmup_writes": cfg["warmup"] * g.logical_pages, "measured_writes": B * (g.logical_pages // 2),
            "batches": B, "alt_model": th["alt_model"], "theory_alt": th["theory_alt"],
            "textbook": textbook or rule != "random-all", "seconds": secs,
        })
        if progress:
            r = rows[-1]
            print(f"{rule:10s} alpha={alpha:.2f} P={P:3d}: ours {ours:.4f} +- {se:.4f}, theory {r['theory']:.4f} "
                  f"(tol {tol:.4f}) {secs:.1f}s", flush=True)
    return pl.DataFrame(rows, schema_overrides={"d": pl.Int64})
