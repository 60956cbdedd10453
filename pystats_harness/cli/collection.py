"""Every task of the harness in one invoke collection: ``tasks.py`` hands it to invoke, and the option
tables of docs/index.md are generated from it (:mod:`pystats_harness.cli.tables`), so that what
``invoke --help TASK`` shows and what the docs say cannot drift apart."""

from __future__ import annotations

from invoke import Collection

from pystats_harness.cli import (
    bisect,
    bisect_run,
    build,
    cache,
    cluster,
    collect,
    diff,
    history,
    publish,
    results,
    run,
    shell,
    stats,
    validate,
)
from pystats_harness.config import INVOKE_DEFAULTS

shell.parse_errors_in_one_line()

ns = Collection(
    build.mirror_task,
    build.import_release_task,
    build.image_task,
    build.build_task,
    run.run_task,
    build.patches_task,
    build.verify_task,
    stats.stats_task,
    stats.compare_task,
    validate.validate_task,
    validate.baseline_task,
    collect.collect_task,
    diff.diff_task,
    bisect.bisect_task,
    bisect_run.bisect_run_task,
    history.history_task,
    cluster.cluster_local_task,
    cache.cache_task,
    results.results_task,
    publish.publish_task,
)
ns.configure({"pystats": dict(INVOKE_DEFAULTS)})
