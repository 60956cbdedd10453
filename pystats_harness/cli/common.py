"""What every task shares: the settings from invoke's config, one Context per invocation, argument
parsing, and one way to turn an error into the line a user sees and the exit code."""

from __future__ import annotations

import errno
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.markup import escape

from pystats_harness.builder.configurations import ConfigName, config_name
from pystats_harness.builder.recipe import resolve_rev
from pystats_harness.config import DEFAULTS, load_settings
from pystats_harness.console import Reporter, one_line
from pystats_harness.dispatch.dispatcher import UnitFailed
from pystats_harness.errors import BuildFailed, ConfigError, HarnessError, Interrupted, PathNotWritable
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context

__all__ = [
    "CONFIG_HELP",
    "DEFAULTS",
    "Context",
    "argv_after_double_dash",
    "configuration",
    "context",
    "error_exit",
    "number",
    "resolve",
]


def context(pystats_config: Mapping[str, Any], *, verbose: bool = False, **options: str | None) -> Context:
    """The invocation's context from invoke's ``pystats`` config (invoke.yaml, INVOKE_PYSTATS_*); an option
    given (``--repairs none``) overrides the setting of its name."""
    given = {key: value for key, value in options.items() if value is not None}
    return Context(load_settings({**dict(pystats_config), **given}), Reporter(verbose=verbose))


def resolve(ctx: Context, rev: str | None) -> CommitInfo:
    """``--rev`` (the setting ``default_rev`` when not given) resolved once, in this machine's mirror,
    into the commit every later step uses (RevisionNotFound, exit 3)."""
    return resolve_rev(ctx, rev)


#: The help of every task's ``--repairs``.
REPAIRS_HELP = (
    "auto: a revision whose pystats build upstream broke is built with the stats lines of the upstream fix "
    "(configs/repairs.toml); none: never (default: setting pystats.repairs)"
)
#: The help of every task's ``--config``.
PATCHES_HELP = "auto (default), none, or a comma-separated list of change ids"
CONFIG_HELP = (
    "build configuration: default, tier2, jit or freethreading (configs/configurations.toml; default: setting "
    "pystats.config); a revision that cannot build it is refused before any work (exit 29)"
)


def configuration(ctx: Context, name: str | None) -> ConfigName:
    """``--config`` (the setting ``config`` when not given), checked once and typed: an unknown name is
    ConfigError (exit 2) listing the known ones. Whether the revision can build it is decided when it
    is planned. An empty ``--config`` is not the setting: it is refused as unknown."""
    return config_name((ctx.settings.config if name is None else name).strip())


#: What the operating system says when a path cannot be created or written (a cache directory under /proc,
#: a read-only or foreign one): one line naming the path, as PathNotWritable.
UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT, errno.ENOTDIR})


def error_exit(exc: BaseException) -> tuple[str, int] | None:
    """The one line and the exit code for a harness error or Ctrl-C; None for anything else.

    A build failure's log tail is printed first (the line says "log lines above")."""
    if isinstance(exc, KeyboardInterrupt):
        exc = Interrupted("interrupted")
    if isinstance(exc, OSError) and exc.filename and exc.errno in UNWRITABLE:
        exc = PathNotWritable(Path(os.fsdecode(exc.filename)), exc.strerror or str(exc))
    if not isinstance(exc, HarnessError):
        return None
    if isinstance(exc, BuildFailed | UnitFailed) and exc.log_tail:  # a build's, here or on a cluster worker
        Reporter().console.print(escape("\n".join(exc.log_tail)))
    return f"error: {one_line(str(exc))}", exc.exit_code


def argv_after_double_dash() -> list[str]:
    """Arguments after ``--`` exactly as typed (invoke's remainder loses quoting)."""
    return sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []


def number(name: str, value: Any, kind: type[int] | type[float] = float) -> Any:
    """An option's value as a number (None when not given), or one line saying it is not one."""
    if value is None or value == "":
        return None
    try:
        result = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{name} {value!r} is not {'an integer' if kind is int else 'a number'}") from None
    if kind is float and not math.isfinite(result):
        raise ConfigError(f"--{name} must be a finite number (got {value!r})")
    return result
