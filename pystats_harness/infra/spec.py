"""What a container is, as plain data (no engine here): what it mounts, how it is confined, what it
answered. :mod:`pystats_harness.infra.engine` turns a :class:`ContainerSpec` into the engine's call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mount:
    source: str  # host path, or a named volume when ``volume`` is set
    target: str
    read_only: bool = False
    volume: bool = False


@dataclass(frozen=True)
class ContainerSpec:
    image: str
    command: Sequence[str]
    mounts: Sequence[Mount] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    workdir: str | None = None
    network: bool = False
    hostname: str | None = None  # None: the engine's (the container id: unresolvable without network)
    host_network: bool = False  # the host's network stack (a build reaching ccache's Redis on 127.0.0.1)
    name_prefix: str = "pystats-harness"
    stdin: bool = False  # the command's stdin stays open for the stream ``engine.run`` is given (then its end)
    # Confinement; each default is the engine's own (unconfined). Runs and builds set them all.
    user: str | None = None  # "uid:gid"; None: the image's user (root)
    read_only_root: bool = False  # the image's file system read-only; only mounts and ``tmpfs`` writable
    tmpfs: tuple[str, ...] = ()  # writable in-memory directories (charged to the memory limit)
    cap_drop: tuple[str, ...] = ()  # ("ALL",): no capabilities, not even root's
    no_new_privileges: bool = False  # setuid binaries gain nothing
    memory: str | None = None  # "2g": hard limit without swap; reaching it gets the container OOM-killed
    pids: int | None = None  # processes + threads the container may have at once


@dataclass(frozen=True)
class ContainerResult:
    exit_code: int
    stdout: str
    stderr: str
    oom_killed: bool = False  # the kernel killed a process of the container at its memory limit
    echoed: bool = False  # stdout and stderr were written to the host's as they came, every byte
