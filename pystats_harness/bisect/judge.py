"""How a value is judged (:class:`Judge`): good, bad or skipped (what measuring gave is
:class:`~pystats_harness.measure.outcome.Outcome`).

Judging: ``direction="up"`` means the metric went up (bad when ``value > threshold``), ``"down"``
that it went down (bad when ``value < threshold``).  A value exactly at the threshold is good.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from pystats_harness.errors import ConfigError, EndpointsDoNotDiffer


class Direction(enum.StrEnum):
    UP = "up"  # the metric went up: bad means above the threshold
    DOWN = "down"  # bad means below the threshold


class Verdict(enum.StrEnum):
    GOOD = "good"
    BAD = "bad"
    SKIPPED = "skipped"


def parse_direction(text: str | Direction | None) -> Direction | None:
    """``--direction`` as given (None: inferred from the endpoints)."""
    if text is None or text == "":
        return None
    try:
        return Direction(text)
    except ValueError:
        raise ConfigError(f"--direction must be 'up' or 'down' (got {text!r})") from None


@dataclass(frozen=True)
class Judge:
    """Decides whether a value is good or bad."""

    good_value: float
    bad_value: float
    threshold: float
    direction: Direction
    threshold_explicit: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "direction", Direction(self.direction))

    @classmethod
    def from_endpoints(
        cls,
        good_value: float,
        bad_value: float,
        *,
        threshold: float | None = None,
        direction: str | Direction | None = None,
    ) -> Judge:
        """Threshold: the midpoint of good and bad unless given.  Direction: from good vs bad unless given."""
        given = parse_direction(direction)
        if threshold is not None and not math.isfinite(threshold):
            raise ConfigError(f"--threshold must be a finite number (got {threshold!r})")
        inferred = Direction.DOWN if bad_value < good_value else Direction.UP
        return cls(
            float(good_value),
            float(bad_value),
            float(threshold) if threshold is not None else (good_value + bad_value) / 2,
            given or inferred,
            threshold is not None,
        )

    def is_bad(self, value: float) -> bool:
        if not math.isfinite(value):
            raise ValueError(f"cannot judge a non-finite value ({value})")
        return value > self.threshold if self.direction is Direction.UP else value < self.threshold

    def verdict(self, value: float) -> Verdict:
        return Verdict.BAD if self.is_bad(value) else Verdict.GOOD

    def describe(self) -> str:
        """``"bad means > 0.5"``."""
        return f"bad means {'>' if self.direction is Direction.UP else '<'} {self.threshold:.6g}"


def validate_endpoints(
    good_value: float,
    bad_value: float,
    judge: Judge,
    *,
    metric: str = "the metric",
    good_label: str = "good",
    bad_label: str = "bad",
) -> None:
    """Raise :class:`EndpointsDoNotDiffer` unless good judges good and bad judges bad."""
    for label, value in ((good_label, good_value), (bad_label, bad_value)):
        if not math.isfinite(value):
            raise EndpointsDoNotDiffer(
                f"{metric} is undefined ({value}) at {label}; a bisect needs a value "
                "at both ends (check the counter names and the workload)"
            )
    good_ok, bad_ok = not judge.is_bad(good_value), judge.is_bad(bad_value)
    if good_ok and bad_ok:
        return
    values = f"{good_label} gives {good_value:.6g} and {bad_label} gives {bad_value:.6g}"
    if good_value == bad_value:
        why = "they are equal, so there is no change to bisect"
    elif good_ok:
        why = f"both are good by '{judge.describe()}', so there is nothing to find"
    elif bad_ok:
        why = f"both are bad by '{judge.describe()}', so the change is before {good_label}"
    else:
        why = f"by '{judge.describe()}' {good_label} is bad and {bad_label} is good"
    fix = (
        "swap --good/--bad or pass --direction " + ("down" if judge.direction == "up" else "up")
        if not good_ok and not bad_ok and not judge.threshold_explicit
        else "check --good/--bad, --direction and --threshold"
    )
    raise EndpointsDoNotDiffer(f"{metric}: {values}; {why}; {fix}")
