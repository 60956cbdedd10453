"""What a worker must have to take units of work: the harness (importable) and a Docker engine with the
builder image. Runs in the worker process; returns "" or the reason, never raises."""

from __future__ import annotations

import os

from pystats_harness.config import settings_from_environment
from pystats_harness.errors import HarnessError


def worker_fitness() -> str:
    """ "" when this worker can build and run, else why not (one phrase naming what is missing)."""
    from pystats_harness.infra import engine

    try:
        settings = settings_from_environment(os.environ)
        client = engine.connect()
        if engine.image_id(client, settings.image) is None:
            return f"builder image {settings.image} missing on this worker's engine (run scripts/bootstrap.sh there)"
    except HarnessError as exc:
        return f"no usable Docker engine: {str(exc).splitlines()[0]}"
    except Exception as exc:
        return f"cannot check the worker: {type(exc).__name__}: {exc}"
    return ""
