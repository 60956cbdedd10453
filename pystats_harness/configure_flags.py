"""configs/configure.toml: the extra ./configure flags of every build, and those added for a revision
whose tree has a file (``[[when_tree_has]]``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ConfigError


def load_configure_flags(path: Path) -> tuple[str, ...]:
    """Extra configure flags from configs/configure.toml (``--enable-pystats`` is always added)."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"configure flags file {path} does not exist; set pystats.configure_flags_file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configure flags file {path} is not valid TOML: {exc}") from None
    flags = data.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) and f.startswith("-") for f in flags):
        raise ConfigError(f"{path}: 'flags' must be a list of options starting with '-'")
    unknown = set(data) - {"flags", "when_tree_has"}
    if unknown:
        raise ConfigError(f"{path}: unknown keys {sorted(unknown)}; only 'flags' and 'when_tree_has' are read")
    return tuple(flags)


@dataclass(frozen=True)
class TreeFlags:
    """configs/configure.toml ``[[when_tree_has]]``: flags added for a tree that has ``path``."""

    path: str
    flags: tuple[str, ...]
    why: str


def load_tree_flags(path: Path) -> tuple[TreeFlags, ...]:
    """The flags configs/configure.toml adds when a revision's tree has a file (read like its ``flags``)."""
    load_configure_flags(path)  # the same file: its errors first
    found = []
    for raw in tomllib.loads(path.read_text()).get("when_tree_has", []):
        flags = raw.get("flags") if isinstance(raw, dict) else None
        if not isinstance(flags, list) or not all(isinstance(f, str) and f.startswith("-") for f in flags):
            flags = None
        if flags is None or not str(raw.get("path", "")).strip() or not str(raw.get("why", "")).strip():
            raise ConfigError(f"{path}: each [[when_tree_has]] needs path, flags (options starting with '-') and why")
        found.append(TreeFlags(str(raw["path"]), tuple(flags), str(raw["why"])))
    return tuple(found)
