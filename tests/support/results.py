"""The results store in tests and bench scripts."""

from __future__ import annotations

from pystats_harness.paths import CachePaths
from pystats_harness.results import Store


def forget_measurements(paths: CachePaths) -> None:
    """Start without this machine's stored measurements (bisect and history measure again; a cluster client,
    which answers from them first, sends every commit to its workers). The recorded runs stay."""
    with Store.open(paths.results_db) as store:
        store.forget_measurements()
