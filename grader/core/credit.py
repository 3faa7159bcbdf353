"""Performance credit: a passed timing test earns its points on a curve, not all or nothing.

A timing test's figure is a ratio where higher is better (a speedup over a harness
yardstick, a share of the copy ceiling), so `reference / value` is how many times
slower the student's kernel is than the yardstick solution's on the same test. That
`reference` figure comes from the same GPU in the same job: the `--calibration`
grading (calibration.py checks the GPU), which is `submissions/typical`'s, an honest,
ordinary solution written from the READMEs. Not `solutions/`: the references run at
the roofline (lab6's scan near CUB's, lab5's product near cuBLAS's), and a curve
against them would take marks from code that does everything the lab teaches. A
lab's `lab.json` sets the curve:

    "credit": {"full_within": 1.2, "zero_at": 2.0}

full marks within 1.2 times the yardstick, as Stanford's CS149 grades, none at 2
times or slower, linear in between. A test that failed its bar earns nothing, as
before; the curve only shares out the points of a passed one. Capped at full
marks, a figure higher than the yardstick's (noise, or a forged report) gains
nothing, so scoring from figures gives student code nothing new to aim at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.core.errors import GraderUsageError

CREDIT_KEY = "credit"


@dataclass(frozen=True)
class CreditCurve:
    """Credit from the slowdown against the yardstick: 1 up to `full_within`, 0 from
    `zero_at`, a straight line between."""

    full_within: float
    zero_at: float

    def fraction(self, value: float, reference: float) -> float:
        if value <= 0 or reference <= 0:
            return 0.0
        slowdown = reference / value
        if slowdown <= self.full_within:
            return 1.0
        if slowdown >= self.zero_at:
            return 0.0
        return (self.zero_at - slowdown) / (self.zero_at - self.full_within)


@dataclass(frozen=True)
class Credit:
    """What the curve gave one passed timing test."""

    fraction: float
    value: float
    reference: float
    curve: CreditCurve

    @property
    def slowdown(self) -> float:
        return self.reference / self.value if self.value > 0 else float("inf")

    def as_data(self) -> dict[str, float]:
        return {
            "fraction": round(self.fraction, 4),
            "reference": round(self.reference, 4),
            "slowdown": round(self.slowdown, 4),
            "full_within": self.curve.full_within,
            "zero_at": self.curve.zero_at,
        }


def read_curve(doc: Mapping[str, Any], where: str) -> CreditCurve | None:
    """The lab's curve from its lab.json (`where` names the file), or None."""
    raw = doc.get(CREDIT_KEY)
    if raw is None:
        return None
    try:
        curve = CreditCurve(float(raw["full_within"]), float(raw["zero_at"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise GraderUsageError(
            f'{where}: "{CREDIT_KEY}" must be {{"full_within": 1.2, "zero_at": 2.0}} ({exc})'
        ) from None
    if not 1 <= curve.full_within < curve.zero_at:
        raise GraderUsageError(
            f'{where}: "{CREDIT_KEY}" needs 1 <= full_within < zero_at, '
            f"not {curve.full_within:g} and {curve.zero_at:g}"
        )
    return curve
