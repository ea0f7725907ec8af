"""A minimal local copy of ``flashrepro.robustness.Axis``/``Space`` as issue 23's contract states them, until the
core module lands (the integrator switches the import in :mod:`.robustness` and deletes this file)."""

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
        if self.scale == "choice":
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        if self.scale == "int":
            return int(min(self.low + math.floor(u * (self.high - self.low + 1)), self.high))
        if self.scale == "log":
            return float(math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))))
        return float(self.low + u * (self.high - self.low))


@dataclasses.dataclass(frozen=True)
class Space:
    paper: int
    axes: tuple

    def default(self) -> dict:
        return {a.name: a.default for a in self.axes}

    def sample(self, n: int, seed: int) -> list[dict]:
        from scipy.stats import qmc

        u = qmc.LatinHypercube(d=len(self.axes), seed=seed).random(n)
        return [{a.name: a.value(float(x)) for a, x in zip(self.axes, row, strict=True)} for row in u]
