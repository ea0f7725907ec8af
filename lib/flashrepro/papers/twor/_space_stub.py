"""A minimal local copy of ``flashrepro.robustness``'s ``Axis`` and ``Space`` (the issue 23 contract), so paper 4's
space can be declared and tested before the core module lands; replaced by flashrepro.robustness on merge."""

from __future__ import annotations

import dataclasses
import math

from scipy.stats import qmc


@dataclasses.dataclass(frozen=True)
class Axis:
    name: str  # a keyword of the paper's point() function
    low: float  # range (for "choice": ignored)
    high: float
    default: object  # the value at the claims' calibrated point
    why: str  # ONE sentence: why this range
    scale: str = "linear"  # "linear" | "log" (log-uniform) | "int" (integers low..high inclusive) | "choice"
    choices: tuple = ()  # for "choice": the values; [0,1) split evenly

    def value(self, u: float):
        """``u`` in [0, 1) -> the axis value."""
        u = min(max(float(u), 0.0), math.nextafter(1.0, 0.0))
        if self.scale == "linear":
            return self.low + u * (self.high - self.low)
        if self.scale == "log":
            return math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        if self.scale == "int":
            return int(self.low) + min(int(u * (int(self.high) - int(self.low) + 1)), int(self.high) - int(self.low))
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
        u = qmc.LatinHypercube(d=len(self.axes), rng=seed).random(n)
        return [{a.name: a.value(x) for a, x in zip(self.axes, row, strict=True)} for row in u]
