"""`invoke diff` as one capability call, :func:`run_diff`: both builds first (one unit each, or one for the
same build, through the dispatcher: here or on the cluster), the base collected (calibrating loops unless
``--loops-file`` fixed them), the head collected with the base's ``loops.json`` and the same processes
(collect's own run, so the cluster comes with it), the two outputs compared with collect's
interesting-change rules, the head's summarize_stats.py run over both exports, and the reports written.

The diff's folder holds ``base/`` and ``head/`` (each a complete collect output, published when done),
then ``report.md``, ``report.json`` and ``summarize_stats.md``, each written whole, last.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from pystats_harness.collect import loops as loops_file
from pystats_harness.collect import report as collect_report
from pystats_harness.collect.compare import SuiteComparison, compare_outputs
from pystats_harness.collect.run import CollectRequest, CollectRun, Watch, run_collect
from pystats_harness.diff.plan import DiffRequest
from pystats_harness.diff.recording import recorded
from pystats_harness.diff.report import rendering_report, to_report
from pystats_harness.diff.result import DiffPaths, DiffResult, Verdicts
from pystats_harness.diff.work import BuildWork, Rendered, SummarizeWork
from pystats_harness.dispatch.dispatcher import open_dispatcher
from pystats_harness.dispatch.units import Unit
from pystats_harness.infra.context import Context
from pystats_harness.reports import write_report
from pystats_harness.results.recording import record_runs
from pystats_harness.stats.collection import load

#: How a side's collect is shown while it runs: a context holding the Watch (the task draws it).
Show = Callable[[str, CollectRequest], AbstractContextManager[Watch]]


def build_both(ctx: Context, request: DiffRequest) -> None:
    """Both builds, before either side is collected (one when base and head are the same build)."""
    recipes = [request.base] if request.same_build else [request.base, request.head]
    with open_dispatcher(ctx) as dispatcher:
        dispatcher.run([Unit(recipe, BuildWork()) for recipe in recipes])


def collect_side(ctx: Context, request: DiffRequest, side: str, loops: dict[str, int], show: Show) -> CollectRun:
    collect = request.collect_request(side, loops)
    with show(side, collect) as watch:
        return run_collect(ctx, collect, watch)


def render(ctx: Context, request: DiffRequest, base: Path, head: Path) -> Rendered:
    """The head's summarize_stats.py over the base's and the head's ``all/summarize.json``."""
    exports = base / "all" / "summarize.json", head / "all" / "summarize.json"
    commit = request.head.commit
    what = f"Tools/scripts/summarize_stats.py of {commit.rev} ({commit.short})"
    missing = [str(p.parent.parent.name) for p in exports if not p.is_file()]
    if missing:
        return Rendered(
            what,
            None,
            f"no summarize_stats export on the {' and '.join(missing)} side{'s' * (len(missing) > 1)}: nothing counted",
        )
    work = SummarizeWork(exports[0].read_bytes(), exports[1].read_bytes())
    with open_dispatcher(ctx) as dispatcher:
        (rendered,) = dispatcher.run([Unit(request.head, work)])
    return rendered


def compared(request: DiffRequest, base: Path, head: Path) -> SuiteComparison:
    """The two outputs compared; with no benchmark counted on both sides, an empty comparison (the
    verdicts then say why, and the diff exits 39)."""
    if not set(_counted(base)) & set(_counted(head)):
        metadata = (collect_report.read(base)["metadata"], collect_report.read(head)["metadata"])
        return SuiteComparison(*metadata, (), _counted(base), _counted(head))
    return compare_outputs(base, head, request.thresholds)


def _counted(out: Path) -> tuple[str, ...]:
    """The benchmarks with counts in a collect output (as compare reads them: a collection with counters)."""
    return tuple(p.parent.name for p in sorted((out / "benchmarks").glob("*/collection.json")) if load(p).counters)


def run_diff(ctx: Context, request: DiffRequest, show: Show) -> DiffResult:
    """Build, collect both sides, compare, render, write; the result (how it ends: ``exit_error``). An
    earlier diff's reports in the same ``--out`` go first: a diff stopped half-way leaves none posing as its own."""
    for name in ("report.md", "report.json", "summarize_stats.md"):
        (request.out / name).unlink(missing_ok=True)
    build_both(ctx, request)
    base = collect_side(ctx, request, "base", dict(request.loops), show)
    loops = dict(request.loops) or loops_file.read(base.out / "loops.json")
    head = collect_side(ctx, request, "head", loops, show)
    heads = {o.name: o for o in head.outcomes}
    verdicts = tuple(Verdicts(o.name, o, heads.get(o.name)) for o in base.outcomes)
    source = f"--loops-file {request.loops_source}" if request.loops_source else "calibrated on the base"
    result = DiffResult(
        request.base,
        request.head,
        base,
        head,
        compared(request, base.out, head.out),
        verdicts,
        render(ctx, request, base.out, head.out),
        DiffPaths(request.out),
        {name: n for name, n in loops_file.read(base.out / "loops.json").items() if n},
        source,
        request.options.processes,
        request.thresholds,
        request.strict,
        request.same_build,
    )
    write_report(to_report(result), request.out)
    rendering = rendering_report(result)
    if rendering is not None:
        write_report(rendering, request.out)
    record_runs(ctx, [recorded(result)])  # after every file: a store that fails costs a warning line
    return result
