"""`invoke cluster-local --workers N`: a scheduler and N workers on this machine, until Ctrl-C."""

from __future__ import annotations

import time

from invoke import Context as InvokeContext

from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.cluster.client import Cluster
from pystats_harness.cluster.local import local_cluster
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context


def cluster_local(ctx: Context, workers: str) -> None:
    """Start the cluster, check every worker, print how to use it, and keep it until interrupted."""
    try:
        count = int(workers)
    except ValueError:
        raise ConfigError(f"--workers {workers!r} is not a number; give how many workers to start (e.g. 2)") from None
    if count < 1:
        raise ConfigError(f"--workers {count}: start at least one worker")
    base = ctx.settings.paths.local_cluster
    reporter = ctx.reporter
    with local_cluster(ctx.settings, base, count) as cluster:
        with Cluster[object, object](cluster.address, min_workers=count) as client:
            for name, why in client.workers.unfit.items():
                reporter.warn(f"worker {name} takes no units: {why}")
            reporter.info(f"scheduler {cluster.address}; {client.size} of {count} workers ready (caches under {base})")
        reporter.info(
            f"use it: INVOKE_PYSTATS_CLUSTER={cluster.address} python3 -m invoke bisect ... "
            "(history, validate and collect use it too)"
        )
        reporter.info("Ctrl-C stops the scheduler and the workers")
        try:
            while all(p.poll() is None for p in [cluster.scheduler, *cluster.workers.values()]):
                time.sleep(1)
        except KeyboardInterrupt:
            reporter.info("stopping the scheduler and the workers")
            return
        raise ConfigError("a process of the local cluster exited; see the logs in " + str(base))


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "workers": "how many dask worker processes to start (each builds one revision at a time, own cache dir)",
    }
)
def cluster_local_task(c: InvokeContext, workers: str = "2") -> None:
    """Start a Dask scheduler and N workers on this machine (each with its own cache) until Ctrl-C."""
    cluster_local(settings_of(c), workers)
