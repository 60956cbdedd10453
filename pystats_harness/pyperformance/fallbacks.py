"""configs/sites.toml: what a benchmark's site does where a pin cannot be had for an interpreter whose C ABI
is not its release's (a development or a free-threaded build), read into typed data.

Three kinds (see the file): ``constraint`` (the lock resolved again with a constraint its pins allow, so the
package is not needed), ``env`` (its sdist built again with environment variables set: without an
optional C extension), ``omit`` (the site made without it). Every use is a :class:`Used`, named in the
site's outcome and in the verdicts of the benchmarks that ran on it.
"""

from __future__ import annotations

import enum
import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.pyperformance.interpreters import x_y
from pystats_harness.resources import SITES_TOML


class Kind(enum.StrEnum):
    CONSTRAINT = "constraint"
    ENV = "env"
    OMIT = "omit"


@dataclass(frozen=True)
class Fallback:
    """What to do for ``package`` (a distribution name as the locks spell it) where it cannot be had."""

    package: str
    kind: Kind
    why: str
    constraint: str = ""  # Kind.CONSTRAINT: a requirement line added to the benchmark's requirements
    env: Mapping[str, str] = field(default_factory=dict)  # Kind.ENV: set for the sdist's second build
    python_below: str = ""  # X.Y: the fallback serves only interpreters older than it ("" every one)

    def serves(self, python: str) -> bool:
        """Whether it may be taken on X.Y ``python`` (``3.16``)."""
        return not self.python_below or x_y(python) < x_y(self.python_below)

    def describe(self) -> str:
        """What was done, in a few words: ``resolved with pydantic<2``, ``built with MSGPACK_PUREPYTHON=1``."""
        if self.kind is Kind.CONSTRAINT:
            return f"resolved with {self.constraint} (not {self.package})"
        if self.kind is Kind.ENV:
            return f"built with {' '.join(f'{k}={v}' for k, v in sorted(self.env.items()))}"
        return "left out"

    def to_driver(self) -> dict[str, Any]:
        """What the in-container site driver needs (it imports nothing of the harness)."""
        return {"kind": self.kind.value, "env": dict(self.env), "why": self.why}


@dataclass(frozen=True)
class Used:
    """One fallback a site took: the package, what was done, why it may be done, and why it had to be."""

    package: str
    done: str
    why: str
    because: str  # the failure (or the plan's reason) that made the pin unavailable

    def line(self) -> str:
        return f"{self.package} {self.done}: {self.because} ({self.why})"

    def to_dict(self) -> dict[str, str]:
        return {"package": self.package, "done": self.done, "why": self.why, "because": self.because}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Used:
        return cls(str(data["package"]), str(data["done"]), str(data["why"]), str(data["because"]))


def parse(data: Mapping[str, Any], source: str = "sites.toml") -> dict[str, Fallback]:
    """Pure: the ``[fallback.<package>]`` tables; one ConfigError line naming the table that is wrong."""
    found: dict[str, Fallback] = {}
    for package, raw in data.get("fallback", {}).items():
        where = f"{source}: [fallback.{package}]"
        if not isinstance(raw, dict) or not str(raw.get("why", "")).strip():
            raise ConfigError(f"{where} needs kind and why")
        try:
            kind = Kind(str(raw.get("kind")))
        except ValueError:
            raise ConfigError(
                f"{where}: kind must be one of {[k.value for k in Kind]}, got {raw.get('kind')!r}"
            ) from None
        allowed = {"kind", "why", "python_below"} | {
            Kind.CONSTRAINT: {"constraint"},
            Kind.ENV: {"env"},
            Kind.OMIT: set(),
        }[kind]
        if set(raw) - allowed:
            raise ConfigError(f"{where}: kind {kind.value} takes {sorted(allowed)}, got {sorted(raw)}")
        constraint, env = str(raw.get("constraint", "")).strip(), raw.get("env", {})
        below = str(raw.get("python_below", "")).strip()
        if below and re.fullmatch(r"3\.\d+", below) is None:
            raise ConfigError(f'{where}: python_below is an X.Y such as "3.14", got {raw.get("python_below")!r}')
        if kind is Kind.CONSTRAINT and not constraint:
            raise ConfigError(f"{where}: kind constraint needs a constraint (a requirement line)")
        if kind is Kind.ENV and (not isinstance(env, dict) or not env):
            raise ConfigError(f"{where}: kind env needs env, a table of variables")
        found[package] = Fallback(
            package, kind, str(raw["why"]).strip(), constraint, {str(k): str(v) for k, v in env.items()}, below
        )
    return found


def serving(fallbacks: Mapping[str, Fallback], python: str) -> dict[str, Fallback]:
    """Pure: the fallbacks that may be taken on X.Y ``python`` (``python_below``)."""
    return {name: f for name, f in fallbacks.items() if f.serves(python)}


@functools.cache
def load(path: Path = SITES_TOML) -> dict[str, Fallback]:
    """configs/sites.toml's fallbacks (read once per process)."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the sites config {path}: {exc}") from None
    return parse(data, path.name)


def constraints_for(pins: list[str] | tuple[str, ...], fallbacks: Mapping[str, Fallback]) -> list[Fallback]:
    """Pure: the constraint fallbacks that apply to a lock's pins (by package name)."""
    names = {pin.partition("==")[0].lower().replace("_", "-") for pin in pins}
    return [f for name, f in sorted(fallbacks.items()) if f.kind is Kind.CONSTRAINT and name in names]
