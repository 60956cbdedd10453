"""pystats-harness tasks: the list of them. Each task is declared once, with its options and their help,
next to the function it calls in pystats_harness/cli/ (``python3 -m invoke --help TASK`` shows them).

Every setting lives under ``pystats`` (pystats_harness/config.py DEFAULTS); override it in invoke.yaml or
with INVOKE_PYSTATS_<KEY>.
"""

from __future__ import annotations

from invoke import Collection

from pystats_harness.cli import bisect, bisect_run, build, cache, cluster, collect, common, history, stats, validate

ns = Collection(
    build.mirror_task,
    build.import_release_task,
    build.image_task,
    build.build_task,
    build.run_task,
    build.patches_task,
    build.verify_task,
    stats.stats_task,
    stats.compare_task,
    validate.validate_task,
    validate.baseline_task,
    collect.collect_task,
    bisect.bisect_task,
    bisect_run.bisect_run_task,
    history.history_task,
    cluster.cluster_local_task,
    cache.cache_task,
)
ns.configure({"pystats": dict(common.DEFAULTS)})
