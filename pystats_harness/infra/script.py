"""A host script in a run's interpreter arguments: where it is among them, and the read-only mount of its
directory that lets the container run it (pure, but for looking the path up on this host).

The script is the first argument that is not an interpreter option, as CPython reads its command line
(``python3 [options] [-c CODE | -m MOD | SCRIPT | -] [args]``). It names a path on this host:

- an existing file (or directory with ``__main__.py``): its directory is mounted read-only at
  ``/script``, the run's working directory, and the argument becomes ``/script/NAME``; the arguments
  after it pass through unchanged (a relative path among them is read from the script's directory);
- a relative path that does not exist here: refused (exit 2), since it can only have meant a host file;
- a script the run's user cannot read, or whose directory it cannot enter: refused (exit 34) with the ``chmod``;
- an absolute path that does not exist here: passed through, a path in the container (``/src/…``).

``-c CODE``, ``-m MOD`` and ``-`` (the program on stdin) mount nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from shlex import quote

from pystats_harness.errors import ConfigError, HarnessError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.spec import Mount

SCRIPT_DIR_IN_CONTAINER = "/script"
#: CPython's short options that take a value (Python/getopt.c: ``c:``, ``m:``, ``W:``, ``X:``).
OPTIONS_WITH_VALUE = frozenset("cmWX")
#: Long options that take a value (as ``--opt value`` or ``--opt=value``).
LONG_OPTIONS_WITH_VALUE = frozenset({"--check-hash-based-pycs"})


class ScriptUnreadable(HarnessError):
    """The run's user ``uid`` cannot read the host script or enter its directory (``path`` is the one it
    cannot, ``what`` says which); ``fix`` is the chmod that lets it. Refused before any work."""

    exit_code = ExitCode.SCRIPT_UNREADABLE

    def __init__(self, given: str, path: Path, uid: int, *, what: str, fix: str) -> None:
        super().__init__(f"{given}: the run's user (uid {uid}) cannot {what}; `{fix}`, then run again")
        self.given, self.path, self.uid, self.what, self.fix = given, path, uid, what, fix


@dataclass(frozen=True)
class ScriptRun:
    """Interpreter arguments as the container runs them, with what they need mounted."""

    args: tuple[str, ...]
    mounts: tuple[Mount, ...] = ()
    workdir: str | None = None


def _short_group(arg: str) -> tuple[bool, int]:
    """``-bX…`` read as CPython does: (whether it ends the options (``-c``/``-m``), arguments it uses)."""
    for at, letter in enumerate(arg[1:], start=1):
        if letter in OPTIONS_WITH_VALUE:
            value_attached = at < len(arg) - 1
            return letter in "cm", 1 if value_attached else 2
    return False, 1


def script_position(args: Sequence[str]) -> int | None:
    """Index of the script (or ``-``) in interpreter arguments; None with ``-c``/``-m`` or no script."""
    at = 0
    while at < len(args):
        arg = args[at]
        if arg == "--":
            return at + 1 if at + 1 < len(args) else None
        if arg == "-" or not arg.startswith("-"):
            return at
        if arg.startswith("--"):
            at += 2 if arg in LONG_OPTIONS_WITH_VALUE else 1
            continue
        ends, used = _short_group(arg)
        if ends:
            return None
        at += used
    return None


def _readable_by(info: os.stat_result, uid: int, bits: tuple[int, int, int]) -> bool:
    """Whether user ``uid`` (with group ``uid``, as nobody:nogroup) has the permission of ``bits``
    (owner, group, other) on a file of mode ``info``."""
    owner, group, other = bits
    if info.st_uid == uid:
        return bool(info.st_mode & owner)
    if info.st_gid == uid:
        return bool(info.st_mode & group)
    return bool(info.st_mode & other)


def _check_reachable(script: Path, directory: Path, given: str, uid: int) -> None:
    if directory == Path("/"):
        raise ConfigError(
            f"{given}: a script at the root of this host is not mounted (that would be all of /); "
            "move it into a directory of its own"
        )
    if not _readable_by(script.stat(), uid, (stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH)):
        raise ScriptUnreadable(given, script, uid, what="read it", fix=f"chmod o+r {quote(str(script))}")
    if not _readable_by(directory.stat(), uid, (stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH)):
        raise ScriptUnreadable(
            given, directory, uid, what="enter its directory", fix=f"chmod o+x {quote(str(directory))}"
        )


def host_script(args: Sequence[str], cwd: Path, *, uid: int) -> ScriptRun:
    """``args`` with a host script made runnable in the container (see the module's docstring); ``uid``
    is the run's user, who must be able to read the script and enter its directory."""
    at = script_position(args)
    if at is None or args[at] == "-":
        return ScriptRun(tuple(args))
    given = args[at]
    path = cwd / given
    if not path.exists():
        if Path(given).is_absolute():
            return ScriptRun(tuple(args))  # a path in the container (e.g. /src/Tools/scripts/…)
        raise ConfigError(
            f"{given}: no such file on this host ({path}); a relative script path is read here "
            "(an absolute path that is not here is run as a path in the container)"
        )
    script = path.resolve()
    _check_reachable(script, script.parent, given, uid)
    mount = Mount(str(script.parent), SCRIPT_DIR_IN_CONTAINER, read_only=True)
    inside = f"{SCRIPT_DIR_IN_CONTAINER}/{script.name}"
    return ScriptRun((*args[:at], inside, *args[at + 1 :]), (mount,), SCRIPT_DIR_IN_CONTAINER)
