"""A minimal local copy of ``flashrepro.robustness``'s ``Axis`` and ``Space`` (issue 23's contract), used by
:mod:`.robustness` until the core module lands; replaced by flashrepro.robustness on merge."""

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
        """``u`` in [0, 1) -> the axis value."""
        u = min(max(float(u), 0.0), math.nextafter(1.0, 0.0))
        if self.scale == "linear":
            return self.low + u * (self.high - self.low)
        if self.scale == "log":
            return float(math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))))
        if self.scale == "int":
            lo, hi = int(self.low), int(self.high)
            return min(lo + int(math.floor(u * (hi - lo + 1))), hi)
        if self.scale == "choice":
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        raise ValueError(f"unknown axis scale {self.scale!r}")


@dataclasses.dataclass(frozen=True)
class Space:
    paper: int
    axes: tuple

    def default(self) -> dict:
        return {a.name: a.default for a in self.axes}

    def sample(self, n: int, seed: int) -> list[dict]:
        from scipy.stats import qmc

        u = qmc.LatinHypercube(d=len(self.axes), seed=seed).random(n)
        return [{a.name: a.value(x) for a, x in zip(self.axes, row, strict=True)} for row in u]
