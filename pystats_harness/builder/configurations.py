"""Named build configurations (``--config NAME``), declared once in configs/configurations.toml, and the
pure choice of what a configuration means at a revision (:func:`choose`), made by probing its tree as
the patches are chosen: the configure flags, the run-time switch, the LLVM version, or why not.

A :class:`Chosen` is what a plan records; the default configuration's adds nothing (no flags, no
switch, no part of the cache key), so builds made before configurations keep their keys.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NewType

from pystats_harness.builder.series import Reader
from pystats_harness.errors import ConfigError, ConfigurationUnsupported
from pystats_harness.resources import CONFIGURATIONS_TOML

#: A configuration's name as checked at the edge (``--config``): the one type it travels as, from the
#: task to the plan (a bare string is not one; :func:`config_name` makes one from the known names).
ConfigName = NewType("ConfigName", str)
DEFAULT = ConfigName("default")
#: The free-threaded build (``--disable-gil``): its ABI is ``cp3Nt`` and its object counters depend on
#: whether the process has started a thread (gh-117783).
FREE_THREADING = ConfigName("freethreading")


def is_free_threaded(manifest: Mapping[str, Any]) -> bool:
    """Whether a build's manifest is of the free-threaded configuration."""
    return manifest.get("configuration") == FREE_THREADING


@dataclass(frozen=True)
class Requirement:
    """A file of the tree must match ``pattern``; ``missing`` says what lacks when it does not."""

    file: str
    pattern: str
    missing: str

    def holds(self, read: Reader) -> bool:
        text = read(self.file)
        return text is not None and re.search(self.pattern, text, re.MULTILINE) is not None


@dataclass(frozen=True)
class Form:
    """One way of building a configuration, fit for the revisions where all ``requires`` hold."""

    id: str
    description: str = ""
    flags: tuple[str, ...] = ()
    runtime_args: tuple[str, ...] = ()
    runtime_env: tuple[tuple[str, str], ...] = ()
    requires: tuple[Requirement, ...] = ()
    llvm: tuple[tuple[str, str], ...] = ()  # (file, pattern with the version as group 1), first found wins


@dataclass(frozen=True)
class Configuration:
    name: str
    label: str
    forms: tuple[Form, ...]
    hint: str = ""
    exempt: tuple[tuple[str, str], ...] = ()  # fingerprint probe id -> why it cannot hold here


@dataclass(frozen=True)
class Llvm:
    """The LLVM versions the builder's Debian has, and the packages a variant image installs for one."""

    available: tuple[int, ...] = ()
    packages: tuple[str, ...] = ()

    def packages_for(self, version: int) -> tuple[str, ...]:
        return tuple(p.format(version=version) for p in self.packages)


@dataclass(frozen=True)
class Configurations:
    llvm: Llvm
    by_name: Mapping[str, Configuration] = field(hash=False)

    def get(self, name: str) -> Configuration:
        """The configuration called ``name``, or ConfigError (exit 2) listing the known ones."""
        if name not in self.by_name:
            known = ", ".join(self.by_name)
            raise ConfigError(
                f"unknown configuration {name!r}; known configurations: {known} (configs/configurations.toml)"
            )
        return self.by_name[name]


@dataclass(frozen=True)
class Chosen:
    """What a configuration means at one revision: recorded in the plan, the manifest and the entry."""

    name: str = DEFAULT
    form: str = "plain"
    flags: tuple[str, ...] = ()
    runtime_args: tuple[str, ...] = ()
    runtime_env: tuple[tuple[str, str], ...] = ()
    llvm: int | None = None
    exempt: tuple[tuple[str, str], ...] = ()

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT

    def key_part(self) -> dict[str, Any] | None:
        """What the cache key adds for this configuration (None for the default: keys stay as they were)."""
        if self.is_default:
            return None
        return {"name": self.name, "form": self.form, "flags": list(self.flags), **self.runtime()}

    def runtime(self) -> dict[str, Any]:
        """The run-time switch every run of the build uses (``runtime.json`` in the entry)."""
        return {"args": list(self.runtime_args), "env": dict(self.runtime_env)}

    def describe(self) -> str:
        """One line for ``invoke build --dry-run``."""
        parts = [f"{self.name} ({self.form})"]
        if self.runtime_args or self.runtime_env:
            env = " ".join(f"{k}={v}" for k, v in self.runtime_env)
            parts.append(f"every run: {' '.join([*self.runtime_args, env]).strip()}")
        if self.llvm is not None:
            parts.append(f"LLVM {self.llvm}")
        return "; ".join(parts)


DEFAULT_CHOSEN = Chosen()


def _requirement(raw: Any, where: str) -> Requirement:
    if not isinstance(raw, dict) or set(raw) != {"file", "match", "missing"}:
        raise ConfigError(f"{where}: each requirement needs exactly 'file', 'match' and 'missing': {raw!r}")
    try:
        re.compile(raw["match"])
    except re.error as exc:
        raise ConfigError(f"{where}: bad regex {raw['match']!r}: {exc}") from None
    return Requirement(str(raw["file"]), str(raw["match"]), str(raw["missing"]))


def _form(raw: dict[str, Any], where: str) -> Form:
    unknown = set(raw) - {"id", "description", "flags", "runtime_args", "runtime_env", "requires", "llvm"}
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
    flags = tuple(raw.get("flags", ()))
    if not all(isinstance(f, str) and f.startswith("-") for f in flags):
        raise ConfigError(f"{where}: 'flags' must be options starting with '-'")
    return Form(
        str(raw["id"]),
        str(raw.get("description", "")),
        flags,
        tuple(str(a) for a in raw.get("runtime_args", ())),
        tuple((str(k), str(v)) for k, v in raw.get("runtime_env", {}).items()),
        tuple(_requirement(r, where) for r in raw.get("requires", ())),
        tuple((str(s["file"]), str(s["pattern"])) for s in raw.get("llvm", ())),
    )


def _configuration(name: str, raw: dict[str, Any], where: str) -> Configuration:
    forms = tuple(_form(f, f"{where} form {f.get('id')!r}") for f in raw.get("form", ()))
    if not forms:
        raise ConfigError(f"{where}: a configuration needs at least one [[configuration.{name}.form]]")
    exempt = tuple((str(k), str(v)) for k, v in raw.get("fingerprint", {}).items())
    return Configuration(name, str(raw.get("label", name)), forms, str(raw.get("hint", "")), exempt)


@functools.cache
def load_configurations(path: Path = CONFIGURATIONS_TOML) -> Configurations:
    """Read and check configs/configurations.toml (ConfigError, exit 2, naming what is wrong)."""
    try:
        data = tomllib.loads(path.read_text())
        llvm = data.get("llvm", {})
        found = {
            name: _configuration(name, raw, f"{path} configuration {name!r}")
            for name, raw in data["configuration"].items()
        }
        versions = Llvm(tuple(int(v) for v in llvm.get("available", ())), tuple(llvm.get("packages", ())))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read configurations {path}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"configurations {path} are malformed: missing or bad field {exc}") from None
    if DEFAULT not in found or found[DEFAULT].forms[0].flags or found[DEFAULT].forms[0].runtime_args:
        raise ConfigError(f"{path}: configuration {DEFAULT!r} must exist and add nothing")
    return Configurations(versions, found)


def config_name(name: str) -> ConfigName:
    """``name`` as a :data:`ConfigName` once it names a known configuration (else ConfigError, exit 2,
    listing the known ones); whether a revision can build it is decided when it is planned."""
    load_configurations().get(name)
    return ConfigName(name)


def _llvm_version(form: Form, read: Reader) -> tuple[int, str] | None:
    for file, pattern in form.llvm:
        text = read(file)
        m = re.search(pattern, text, re.MULTILINE) if text is not None else None
        if m:
            return int(m.group(1)), file
    return None


def _fit(form: Form, read: Reader, llvm: Llvm) -> tuple[int | None, str | None]:
    """(LLVM version, None) when ``form`` fits the tree, else (None, the first reason it does not)."""
    for requirement in form.requires:
        if not requirement.holds(read):
            return None, requirement.missing
    if not form.llvm:
        return None, None
    found = _llvm_version(form, read)
    if found is None:
        return None, f"no LLVM version found in {', '.join(f for f, _ in form.llvm)}"
    version, file = found
    if version not in llvm.available:
        have = ", ".join(map(str, llvm.available)) or "none"
        return None, f"{file} requires LLVM {version}, which the builder's Debian does not have (it has {have})"
    return version, None


def choose(configuration: Configuration, read: Reader, llvm: Llvm, what: str) -> Chosen:
    """The first form of ``configuration`` that fits the tree ``read`` reads, or ConfigurationUnsupported
    (exit 29) naming why no form fits ``what`` (the revision) and what to try."""
    reasons: list[str] = []
    for form in configuration.forms:
        version, why = _fit(form, read, llvm)
        if why is None:
            return Chosen(
                configuration.name,
                form.id,
                form.flags,
                form.runtime_args,
                form.runtime_env,
                version,
                configuration.exempt,
            )
        if why not in reasons:
            reasons.append(why)
    hint = f"; {configuration.hint}" if configuration.hint else ""
    raise ConfigurationUnsupported(
        f"{what} cannot build configuration {configuration.name} with pystats: {'; '.join(reasons)}{hint}",
        configuration=configuration.name,
        reasons=tuple(reasons),
    )


def variant_image(image: str, llvm: int) -> str:
    """The builder image's variant with LLVM ``llvm`` (``invoke image --llvm N`` makes it)."""
    return f"{image}-llvm{llvm}"
