"""ccache's remote storage (``ccache_remote``): one Redis shared by every build host.

A build container gets the remote as ``CCACHE_REMOTE_STORAGE`` and the host's network (the Redis of a
test or a single host listens on 127.0.0.1). Before each build the harness checks that the Redis
answers; if it does not, the build goes ahead on the local ccache alone, without network, and the
reporter says so in one line — a build never fails or waits because the shared cache is away.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from pystats_harness.console import Reporter

CONNECT_TIMEOUT = 2.0  # seconds; a Redis on another host that takes longer is treated as away


@dataclass(frozen=True)
class Remote:
    """The remote storage a build uses ("" = none) and why not, when one is configured but away."""

    url: str
    unreachable: str = ""

    @property
    def env(self) -> dict[str, str]:
        """ccache's settings: the storage, with a short connect timeout (ccache's attribute syntax)."""
        return {"CCACHE_REMOTE_STORAGE": f"{self.url}|connect-timeout=500"} if self.url else {}


NO_REMOTE = Remote("")


def answers(url: str, timeout: float = CONNECT_TIMEOUT) -> str:
    """ "" when the Redis at ``url`` answers PING, else why not (one phrase)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or 6379
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(b"PING\r\n")
            reply = sock.recv(64)
    except OSError as exc:
        return f"cannot connect to {host}:{port}: {exc.strerror or exc}"
    if not reply.startswith((b"+PONG", b"-NOAUTH")):
        return f"{host}:{port} did not answer PING like a Redis server ({reply[:40]!r})"
    return ""


def resolve(configured: str, reporter: Reporter) -> Remote:
    """The remote for the next build: the configured one if it answers, else none (with one warning)."""
    if not configured:
        return NO_REMOTE
    why = answers(configured)
    if why:
        reporter.warn(f"ccache_remote {configured} is unreachable ({why}); building with the local ccache only")
        return Remote("", unreachable=why)
    return Remote(configured)
