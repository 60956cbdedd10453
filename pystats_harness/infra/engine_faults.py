"""How a call to the Docker engine failed, told from what the SDK's transport (requests, urllib3) raises:
the engine gone mid-call, or the call's own timeout. Pure; :mod:`~pystats_harness.infra.engine` uses it."""

from __future__ import annotations

import requests.exceptions
import urllib3.exceptions

#: What the SDK raises when the engine goes away mid-call (killed, restarted, socket gone).
ENGINE_GONE = (
    requests.exceptions.ConnectionError,
    requests.exceptions.ChunkedEncodingError,
    urllib3.exceptions.ProtocolError,
)


def timed_out(exc: BaseException) -> bool:
    """Whether a call ended at its own timeout, not because the engine went away: requests raises
    ReadTimeout while it waits for an answer's head, ConnectionError(ReadTimeoutError) for its body."""
    if isinstance(exc, requests.exceptions.ReadTimeout):
        return True
    cause = exc.args[0] if isinstance(exc, requests.exceptions.ConnectionError) and exc.args else None
    return isinstance(cause, urllib3.exceptions.ReadTimeoutError)
