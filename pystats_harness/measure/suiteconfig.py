"""configs/suite.toml as typed settings: workloads, shapes, tolerances, leak-check exclusions."""

from __future__ import annotations

import fnmatch
import itertools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar, cast

from pystats_harness.errors import ConfigError
from pystats_harness.resources import SUITE_TOML

_N = TypeVar("_N", int, Fraction)


@dataclass(frozen=True)
class Tolerance:
    rel: float = 0.0
    abs: float = 0.0
    ignore: bool = False
    reason: str = ""
    minus: str = ""  # compared net of this counter (subtracted from baseline and value alike)
    plus: str = ""  # compared as the sum with this counter (added to both sides alike)
    measured: str = ""  # what the allowance was measured on (the leak check's rules say it)
    #: compared only where the counter that differs from this one in its last name part by this word
    #: (``collections`` for ``gc.0.object_visits``: ``gc.0.collections``) is equal on both sides
    given: str = ""
    #: compared as the sum over these forms of one instruction, in every place of the name that holds
    #: one (``pair.CACHE.RESUME``: ``pair.CACHE.RESUME`` + ``pair.CACHE.RESUME_CHECK``)
    forms: tuple[str, ...] = ()

    @property
    def combines(self) -> bool:
        """Whether the compared value is not the counter's own: net of, or summed with, other counters."""
        return bool(self.minus or self.plus or self.forms)

    def condition(self, name: str) -> str:
        """The counter that must be equal for ``name`` to be compared ("" for none)."""
        return name.rsplit(".", 1)[0] + "." + self.given if self.given else ""

    def value(self, counts: Mapping[str, _N], name: str) -> _N:
        """What is compared of ``name``: its count, net of ``minus``, plus ``plus``."""
        got = counts.get(name, 0)
        if self.forms:
            parts = name.split(".")
            choices = [self.forms if p in self.forms else (p,) for p in parts]
            got = sum(counts.get(".".join(n), 0) for n in itertools.product(*choices))
        net = got - (counts.get(self.minus, 0) if self.minus else 0) + (counts.get(self.plus, 0) if self.plus else 0)
        return cast(_N, net)  # type: ignore[redundant-cast]  # int or Fraction (a baseline's per-loop values)

    def within(self, a: float | Fraction, b: float | Fraction) -> bool:
        """Symmetric (neither side is the reference): ``|a - b| <= abs + rel * max(|a|, |b|)``, exactly."""
        x, y = Fraction(a), Fraction(b)
        return abs(x - y) <= Fraction(self.abs) + Fraction(self.rel) * max(abs(x), abs(y))

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
    #: configs/suite.toml [[leak_check.rule]]: how two processes of one build may differ, first match wins
    leak_rules: tuple[Override, ...] = ()
    fixed_part_slack: int = 64
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
        found = self.leak_rule(name)
        return found is not None and found[1].ignore

    def leak_rule(self, name: str) -> tuple[str, Tolerance] | None:
        """The ``[[leak_check.rule]]`` for ``name`` (its id in the registry, and what it allows), or None:
        compared exactly."""
        rule = next((r for r in self.leak_rules if fnmatch.fnmatchcase(name, r.match)), None)
        return None if rule is None else (f"leak_check.rule[{rule.match}]", rule.tolerance)


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
    unknown = set(raw) - {"rel", "abs", "ignore", "reason", "match", "minus", "plus", "measured", "given", "forms"}
    if unknown:
        raise ConfigError(f"{SUITE_TOML.name}: {where}: unknown keys {sorted(unknown)}")
    return Tolerance(
        float(raw.get("rel", 0.0)),
        float(raw.get("abs", 0.0)),
        bool(raw.get("ignore", False)),
        str(raw.get("reason", "")),
        str(raw.get("minus", "")),
        str(raw.get("plus", "")),
        str(raw.get("measured", "")),
        str(raw.get("given", "")),
        tuple(str(f) for f in raw.get("forms", ())),
    )


def _leak_rule(raw: Any) -> Override:
    """One ``[[leak_check.rule]]``: a match, a reason, and what was measured (an ignored counter says why
    it cannot be compared instead)."""
    if not isinstance(raw, dict) or not str(raw.get("match", "")).strip() or not str(raw.get("reason", "")).strip():
        raise ConfigError(f"{SUITE_TOML.name}: [[leak_check.rule]] needs match and reason (got {raw!r})")
    tolerance = _tolerance(raw, f"[[leak_check.rule]] {raw['match']}")
    if not tolerance.ignore and not tolerance.measured.strip():
        raise ConfigError(f"{SUITE_TOML.name}: [[leak_check.rule]] {raw['match']}: an allowance needs `measured`")
    return Override(str(raw["match"]), tolerance)


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
    leak_check = data.get("leak_check", {})
    if "ignore" in leak_check:
        raise ConfigError(f"{path.name}: [[leak_check.ignore]] is now [[leak_check.rule]] with ignore = true")
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
        leak_rules=tuple(_leak_rule(raw) for raw in leak_check.get("rule", ())),
        fixed_part_slack=int(leak_check.get("fixed_part_slack", 64)),
        threads=_threads(data.get("threads", {})),
    )


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
