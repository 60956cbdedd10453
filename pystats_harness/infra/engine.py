"""The Docker engine, the only module that imports ``docker`` (the SDK; no CLI, no buildx). Every
container lives in :class:`Container`, a context manager that always removes it (also on Ctrl-C)."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import docker.errors
import docker.models.containers
import requests.exceptions

import docker
from pystats_harness.errors import EngineUnavailable, ImageError, RunFailed
from pystats_harness.infra import feed
from pystats_harness.infra.engine_faults import ENGINE_GONE, timed_out
from pystats_harness.infra.proc import pid_alive
from pystats_harness.infra.spec import ContainerResult as ContainerResult
from pystats_harness.infra.spec import ContainerSpec as ContainerSpec
from pystats_harness.infra.spec import Mount as Mount

LABEL = "pystats-harness"

#: A connected engine client (what :func:`connect` returns); other modules name the type, never import docker.
Client = docker.DockerClient


#: Mount options of a ``tmpfs`` directory (the engine's default adds ``noexec``).
TMPFS_OPTIONS = "rw,exec,nosuid,nodev,mode=1777"


def create_options(spec: ContainerSpec) -> dict[str, Any]:
    """Pure: the keyword arguments of ``containers.create`` for ``spec`` (name and labels aside)."""
    return {
        "command": list(spec.command),
        "mounts": [
            docker.types.Mount(
                target=m.target, source=m.source, type="volume" if m.volume else "bind", read_only=m.read_only
            )
            for m in spec.mounts
        ],
        "environment": dict(spec.env),
        "working_dir": spec.workdir,
        "network_mode": "host" if spec.host_network else (None if spec.network else "none"),
        "hostname": spec.hostname,
        "user": spec.user,
        "read_only": spec.read_only_root,
        "tmpfs": {path: TMPFS_OPTIONS for path in spec.tmpfs} or None,
        "cap_drop": list(spec.cap_drop) or None,
        "security_opt": ["no-new-privileges"] if spec.no_new_privileges else None,
        "mem_limit": spec.memory,
        "memswap_limit": spec.memory,  # the same value: no swap on top of the limit
        "pids_limit": spec.pids,
        "stdin_open": spec.stdin,
    }


def connect() -> docker.DockerClient:
    """A client for the local engine, or EngineUnavailable with how to start one."""
    try:
        client = docker.from_env(timeout=600)
        client.ping()
        return client
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        reason = str(exc).split("(")[0].strip() or type(exc).__name__
        raise EngineUnavailable(
            f"the Docker engine is not reachable ({reason}); start it with `dockerd &` "
            "(Debian: apt-get install docker.io) or set DOCKER_HOST, then retry"
        ) from None


def image_id(client: docker.DockerClient, tag: str) -> str | None:
    try:
        return client.images.get(tag).id
    except docker.errors.ImageNotFound:
        return None


def require_image(client: docker.DockerClient, tag: str) -> str:
    found = image_id(client, tag)
    if found is None:
        raise ImageError(
            f"builder image {tag} not found; build it with `invoke image` (offline: `invoke image --bootstrap`)"
        )
    return found


def import_rootfs(client: docker.DockerClient, tar_path: Path, tag: str, changes: Sequence[str]) -> str:
    """``docker import`` of a root filesystem tarball; returns the image id."""
    repo, _, version = tag.rpartition(":")
    try:
        client.api.import_image_from_file(
            str(tar_path), repository=repo or tag, tag=version or "latest", changes=list(changes)
        )
    except docker.errors.APIError as exc:
        raise ImageError(f"importing {tar_path} as {tag} failed: {exc.explanation or exc}") from None
    return require_image(client, tag)


def build_image(
    client: docker.DockerClient, context: Path, tag: str, buildargs: Mapping[str, str], on_line: Callable[[str], None]
) -> str:
    """Build ``context``/Dockerfile with the engine's own builder, streaming its output."""
    last_error = None
    try:
        for chunk in client.api.build(
            path=str(context), tag=tag, buildargs=dict(buildargs), rm=True, forcerm=True, decode=True
        ):
            if "stream" in chunk:
                for line in chunk["stream"].splitlines():
                    if line.strip():
                        on_line(line)
            if "error" in chunk:
                last_error = chunk["error"].strip()
    except docker.errors.APIError as exc:
        raise ImageError(f"building image {tag} failed: {exc.explanation or exc}") from None
    if last_error:
        raise ImageError(f"building image {tag} failed: {last_error}")
    return require_image(client, tag)


def ensure_volume(client: docker.DockerClient, name: str) -> None:
    try:
        client.volumes.get(name)
    except docker.errors.NotFound:
        client.volumes.create(name, labels={LABEL: "1"})


def volume_size(client: docker.DockerClient, name: str) -> int | None:
    """Bytes a named volume holds (None if it does not exist); asks the engine's disk usage."""
    try:
        usage = client.df()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        raise EngineUnavailable(f"the Docker engine did not report disk usage ({type(exc).__name__})") from None
    for volume in usage.get("Volumes") or []:
        if volume.get("Name") == name:
            return int((volume.get("UsageData") or {}).get("Size", -1))
    return None


@contextlib.contextmanager
def _engine_answers(what: str) -> Iterator[None]:
    """Turn the engine's disappearance during ``what`` into EngineUnavailable (exit 5), one line."""
    try:
        yield
    except ENGINE_GONE:
        raise EngineUnavailable(
            f"the Docker engine stopped answering while {what}; start it again (e.g. scripts/install-host.sh) "
            "and rerun the same command: leftovers are cleaned up then"
        ) from None


class Container:
    """One container: created on enter, always removed on exit (killed first if still running)."""

    def __init__(self, client: docker.DockerClient, spec: ContainerSpec, *, keep: bool = False) -> None:
        self.client = client
        self.spec = spec
        self.keep = keep
        self.name = f"{spec.name_prefix}-{uuid.uuid4().hex[:12]}"
        self._container: docker.models.containers.Container | None = None
        self._stdin: Any = None  # the attach socket feeding the command's stdin (spec.stdin)

    def __enter__(self) -> Container:
        try:
            self._container = self.client.containers.create(
                self.spec.image,
                name=self.name,
                labels={LABEL: "1", f"{LABEL}.pid": str(os.getpid())},
                # create attaches nothing; not detached, the SDK also sets StdinOnce, so that the
                # command's stdin ends when the feed shuts its write side
                detach=not self.spec.stdin,
                **create_options(self.spec),
            )
            if self.spec.stdin:  # attached before the start: no byte is read before it can be fed
                attached = self._container.attach_socket(params={"stdin": 1, "stream": 1})
                self._stdin = getattr(attached, "_sock", attached)  # the socket under the SDK's SocketIO
            self._container.start()
        except ENGINE_GONE:
            self._remove()
            with _engine_answers(f"starting container {self.name}"):
                raise
        except BaseException:
            self._remove()
            raise
        return self

    def chunks(self, *, stdout: bool = True, stderr: bool = True) -> Iterator[bytes]:
        """The command's output (stdout, stderr or both) as it comes, until the container exits."""
        assert self._container is not None
        with _engine_answers(f"reading the output of container {self.name}"):
            yield from self._container.logs(stream=True, follow=True, stdout=stdout, stderr=stderr)

    def stream(self) -> Iterator[str]:
        """Combined stdout+stderr, line by line, until the container exits."""
        buffer = b""
        for chunk in self.chunks():
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", errors="replace")
        if buffer:
            yield buffer.decode("utf-8", errors="replace")

    def feed(self, source: IO[bytes]) -> None:
        """Copy ``source`` to the command's stdin as it comes, then end it (in a thread: see infra/feed.py)."""
        assert self._stdin is not None, "feed needs a spec with stdin"
        feed.start_feeding(source, self._stdin)

    def wait(self, timeout: float | None = None) -> int:
        assert self._container is not None
        with _engine_answers(f"waiting for container {self.name}"):
            try:
                return int(self._container.wait(timeout=timeout)["StatusCode"])
            except requests.exceptions.RequestException as exc:
                if not timed_out(exc):
                    raise
        raise RunFailed(f"container {self.name} did not finish within {timeout} s; it was killed")

    def oom_killed(self) -> bool:
        """Whether the kernel OOM-killed a process of the (exited) container at its memory limit."""
        assert self._container is not None
        self._container.reload()
        return bool(self._container.attrs.get("State", {}).get("OOMKilled"))

    def output(self) -> tuple[str, str]:
        assert self._container is not None
        with _engine_answers(f"reading the output of container {self.name}"):
            out = self._container.logs(stdout=True, stderr=False).decode("utf-8", errors="replace")
            err = self._container.logs(stdout=False, stderr=True).decode("utf-8", errors="replace")
        return out, err

    def _remove(self) -> None:
        if self._stdin is not None:
            feed.close(self._stdin)
        if self._container is None or self.keep:
            return
        try:
            self._container.remove(force=True, v=True)
        except (docker.errors.NotFound, *ENGINE_GONE):
            pass  # gone already, or the engine is: the next invocation reaps it (reap_orphans)
        except docker.errors.APIError:
            # The engine may still be tearing it down; one more forced attempt.
            with contextlib.suppress(docker.errors.APIError):
                self._container.remove(force=True, v=True)

    def __exit__(self, *exc: object) -> None:
        self._remove()


def run(
    client: docker.DockerClient,
    spec: ContainerSpec,
    *,
    timeout: float | None = None,
    keep: bool = False,
    stdin: IO[bytes] | None = None,
    echo: tuple[IO[bytes], IO[bytes]] | None = None,
) -> ContainerResult:
    """Run a container to completion and return its exit code, stdout and stderr separately; ``stdin``
    (with ``spec.stdin``) is fed to its command; with ``echo``, its stdout and stderr are also written
    there as they come (``echoed`` says whether every byte was)."""
    with Container(client, spec, keep=keep) as container:
        if stdin is not None:
            container.feed(stdin)
        pairs = zip((True, False), echo or (), strict=False)  # (stdout?, sink): none without echo
        echoes = [feed.start_echo(container.chunks(stdout=out, stderr=not out), sink) for out, sink in pairs]
        code = container.wait(timeout=timeout)
        echoed = bool(echoes) and all([e.finish(timeout=30) for e in echoes])  # logs end once it exited
        out, err = container.output()
        return ContainerResult(code, out, err, oom_killed=container.oom_killed(), echoed=echoed)


def reap_orphans(client: docker.DockerClient) -> list[str]:
    """Remove harness containers whose owning process on this host is gone (after kill -9)."""
    removed = []
    for c in client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        pid = c.labels.get(f"{LABEL}.pid", "")
        if pid.isdigit() and not pid_alive(int(pid)):
            try:
                c.remove(force=True, v=True)
                removed.append(str(c.name))
            except docker.errors.APIError:
                pass
    return removed
