"""configs/suite.toml as typed settings: workloads, shapes, tolerances, leak-check exclusions."""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.resources import SUITE_TOML


@dataclass(frozen=True)
class Tolerance:
    rel: float = 0.0
    abs: float = 0.0
    ignore: bool = False
    reason: str = ""
    minus: str = ""  # compared net of this counter (subtracted from baseline and value alike)

    def allowance(self, base: float | Fraction) -> Fraction:
        """How far from ``base`` a new value may be: abs + rel * |base| (0: exact), exactly (a float is
        taken at its exact value)."""
        return Fraction(self.abs) + Fraction(self.rel) * abs(Fraction(base))

    def allows(self, base: float | Fraction, new: float | Fraction) -> bool:
        return self.ignore or abs(Fraction(new) - Fraction(base)) <= self.allowance(base)


@dataclass(frozen=True)
class Override:
    match: str
    tolerance: Tolerance


@dataclass(frozen=True)
class ThreadCanary:
    """[threads]: T threads each run canary ``kernel`` K times inside one bracket (suite/thread_canary.py),
    for K in 0, N, 2N and each T, ``repeats`` times (lost updates vary from run to run)."""

    kernel: str = "calls"
    n: int = 20000
    repeats: int = 5
    thread_counts: tuple[int, ...] = (1, 2, 4, 8)

    def __post_init__(self) -> None:
        if self.n < 1 or self.repeats < 1 or not self.thread_counts or min(self.thread_counts) < 1:
            raise ConfigError(f"{SUITE_TOML.name}: [threads] needs n >= 1, repeats >= 1 and thread counts >= 1")


@dataclass(frozen=True)
class SuiteConfig:
    processes: int
    values: int
    warmups: int
    null_workload: str
    leak_workload: str
    canary_n: int
    canaries: tuple[str, ...]
    workloads: dict[str, int]  # name -> loops
    kind_tolerances: dict[str, Tolerance]
    overrides: tuple[Override, ...]
    leak_ignore: tuple[str, ...]
    fixed_part_slack: int = 64
    #: pattern -> why (configs/suite.toml [[leak_check.ignore]])
    leak_ignore_reasons: dict[str, str] = field(default_factory=dict)
    threads: ThreadCanary = ThreadCanary()

    def tolerance_for(self, name: str) -> Tolerance:
        return self.rule_for(name)[1]

    def rule_for(self, name: str) -> tuple[str, Tolerance]:
        """The rule (its id in measure/allowances.py's registry, "" for none: exact) and its tolerance."""
        for rule in self.overrides:
            if fnmatch.fnmatchcase(name, rule.match):
                return f"tolerances.override[{rule.match}]", rule.tolerance
        kind = kind_of(name)
        if kind in self.kind_tolerances:
            return f"tolerances.{kind}", self.kind_tolerances[kind]
        return "", Tolerance()

    def leak_ignored(self, name: str) -> bool:
        return self.leak_rule(name) is not None

    def leak_rule(self, name: str) -> str | None:
        """The ``[[leak_check.ignore]]`` rule that leaves ``name`` out of a leak check (its id), or None."""
        pattern = next((p for p in self.leak_ignore if fnmatch.fnmatchcase(name, p)), None)
        return None if pattern is None else f"leak_check.ignore[{pattern}]"


def kind_of(name: str) -> str:
    """The kind of a dotted counter name (see the header of configs/suite.toml)."""
    head = name.split(".", 1)[0]
    if head == "opcode":
        if ".specialization.failure_kinds." in name:
            return "failure_kind"
        return "specialization" if ".specialization." in name else "opcode"
    return {
        "pair": "pair",
        "calls": "call",
        "objects": "object",
        "gc": "gc",
        "rare_events": "rare_event",
        "optimizer": "optimizer",
        "uops": "optimizer",
        "uop_pair": "optimizer",
        "family": "family",
    }.get(head, "other")


def compared(name: str) -> bool:
    """family.* counters are derived from the others and not compared on their own."""
    return not name.startswith("family.")


def _tolerance(raw: dict[str, Any], where: str) -> Tolerance:
    unknown = set(raw) - {"rel", "abs", "ignore", "reason", "match", "minus"}
    if unknown:
        raise ConfigError(f"{SUITE_TOML.name}: {where}: unknown keys {sorted(unknown)}")
    return Tolerance(
        float(raw.get("rel", 0.0)),
        float(raw.get("abs", 0.0)),
        bool(raw.get("ignore", False)),
        str(raw.get("reason", "")),
        str(raw.get("minus", "")),
    )


def load_suite(path: Path = SUITE_TOML) -> SuiteConfig:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the suite config {path}: {exc}") from None
    suite = data.get("suite", {})
    tolerances = dict(data.get("tolerances", {}))
    overrides = tuple(
        Override(str(o["match"]), _tolerance(o, f"override {o.get('match')}")) for o in tolerances.pop("override", [])
    )
    kinds = {k: _tolerance(v, f"tolerances.{k}") for k, v in tolerances.items()}
    workloads = {name: int(w["loops"]) for name, w in data.get("workloads", {}).items()}
    ignored = [_ignored(raw) for raw in data.get("leak_check", {}).get("ignore", ())]
    if not workloads:
        raise ConfigError(f"{path}: no [workloads.<name>] tables")
    return SuiteConfig(
        processes=int(suite.get("processes", 2)),
        values=int(suite.get("values", 1)),
        warmups=int(suite.get("warmups", 0)),
        null_workload=str(suite.get("null_workload", "null")),
        leak_workload=str(suite.get("leak_workload", "leaky")),
        canary_n=int(suite.get("canary_n", 2000)),
        canaries=tuple(suite.get("canaries", ())),
        workloads=workloads,
        kind_tolerances=kinds,
        overrides=overrides,
        leak_ignore=tuple(pattern for pattern, _ in ignored),
        fixed_part_slack=int(data.get("leak_check", {}).get("fixed_part_slack", 64)),
        leak_ignore_reasons=dict(ignored),
        threads=_threads(data.get("threads", {})),
    )


def _ignored(raw: Any) -> tuple[str, str]:
    if not isinstance(raw, dict) or set(raw) != {"match", "reason"} or not str(raw["reason"]).strip():
        raise ConfigError(f"{SUITE_TOML.name}: [[leak_check.ignore]] needs match and reason (got {raw!r})")
    return str(raw["match"]), str(raw["reason"]).strip()


def _threads(raw: dict[str, Any]) -> ThreadCanary:
    unknown = set(raw) - {"kernel", "n", "repeats", "thread_counts"}
    if unknown:
        raise ConfigError(f"{SUITE_TOML.name}: [threads]: unknown keys {sorted(unknown)}")
    default = ThreadCanary()
    return ThreadCanary(
        str(raw.get("kernel", default.kernel)),
        int(raw.get("n", default.n)),
        int(raw.get("repeats", default.repeats)),
        tuple(int(t) for t in raw.get("thread_counts", default.thread_counts)),
    )
