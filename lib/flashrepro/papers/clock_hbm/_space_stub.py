"""A minimal local copy of ``flashrepro.robustness.Axis`` and ``Space`` as issue 23's contract gives them, until
the core module lands (replaced by flashrepro.robustness on merge)."""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Axis:
    name: str
    low: float
    high: float
    default: object
    why: str
    scale: str = "linear"  # "linear" | "log" | "int" | "choice"
    choices: tuple = ()

    def value(self, u: float):
        u = float(u)
        if self.scale == "choice":
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        if self.scale == "linear":
            return float(self.low + u * (self.high - self.low))
        if self.scale == "log":
            return float(math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))))
        lo, hi = int(self.low), int(self.high)
        return min(lo + int(u * (hi - lo + 1)), hi)


@dataclasses.dataclass(frozen=True)
class Space:
    paper: int
    axes: tuple

    def default(self) -> dict:
        return {a.name: a.default for a in self.axes}

    def sample(self, n: int, seed: int) -> list[dict]:
        from scipy.stats import qmc

        u = qmc.LatinHypercube(d=len(self.axes), rng=int(seed)).random(int(n))
        return [{a.name: a.value(x) for a, x in zip(self.axes, row, strict=True)} for row in u]
