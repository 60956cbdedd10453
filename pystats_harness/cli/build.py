"""What each task does, one function per task (tasks.py only maps errors to exit codes)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pystats_harness.build import execute as _build
from pystats_harness.build import releases
from pystats_harness.build.cache import lookup
from pystats_harness.build.image import build_builder_image
from pystats_harness.config import Settings
from pystats_harness.console import Reporter, stdout_console
from pystats_harness.errors import NotBuilt
from pystats_harness.infra.mirror import Mirror
from pystats_harness.infra.runner import RunRequest, run_python


def mirror(settings: Settings, remote: str | None) -> None:
    reporter = Reporter()
    source = remote or settings.mirror_remote
    reporter.command(f"git fetch {source} -> {settings.mirror_dir}")
    summary = Mirror(settings.mirror_dir).update(source)
    stdout_console().print(f"mirror {settings.mirror_dir}: {summary}")


def import_release(settings: Settings, tarball: Path) -> None:
    result = releases.import_release(Mirror(settings.mirror_dir), tarball)
    state = "already present" if result.already_present else "imported"
    stdout_console().print(f"{result.tag} {state}: {result.sha} (tarball sha256 {result.tarball_sha256[:16]}…)")


def image(settings: Settings, *, bootstrap: bool) -> None:
    reporter = Reporter()
    result = build_builder_image(settings, bootstrap=bootstrap, on_line=reporter.info)
    stdout_console().print(f"image {result.tag} = {result.image_id} (base {result.base})")


def build(settings: Settings, rev: str, patches: str, *, dry_run: bool, verbose: bool) -> None:
    out = stdout_console()
    start = time.perf_counter()
    plan = _build.plan_build(settings, rev, patches)
    for line in _build.render_plan(plan):
        out.print(line)
    if dry_run:
        return
    if plan.cache_hit:
        entry = lookup(settings.builds_dir, plan.key)
        assert entry is not None
    else:
        strict = patches == "auto"
        entry = _build.execute(settings, plan, Reporter(verbose=verbose), verify_strict=strict)
    out.print(f"build      {entry.path}  ({time.perf_counter() - start:.1f} s)")
    out.print(f"python     {entry.install_dir}/bin/python3")


def find_build(settings: Settings, rev: str, patches: str) -> _build.CacheEntry:
    plan = _build.plan_build(settings, rev, patches)
    entry = lookup(settings.builds_dir, plan.key)
    if entry is None:
        raise NotBuilt(
            f"no cached build of {rev} ({plan.commit.short}, --patches {patches}); run `invoke build --rev {rev}` first"
        )
    return entry


def run(settings: Settings, rev: str, patches: str, args: list[str], *, stats_dir: bool) -> int:
    entry = find_build(settings, rev, patches)
    result = run_python(settings, entry, RunRequest(tuple(args), stats_dir=stats_dir, label="run"))
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    reporter = Reporter()
    if stats_dir:
        reporter.info(f"stats: {len(result.stats_files)} file(s) in {result.run_dir / 'py_stats'}")
    else:
        reporter.info(f"stats: no stats dir; output kept in {result.run_dir}")
    reporter.info(f"exit code {result.exit_code}")
    return result.exit_code


def stats(
    settings: Settings,
    directory: Path,
    rev: str | None,
    patches: str,
    *,
    json_out: str | None,
    markdown_out: str | None,
    loops: float | None,
    lenient: bool,
) -> None:
    from pystats_harness.stats import statscmd

    entry = find_build(settings, rev, patches) if rev else None
    collection = statscmd.make_collection(directory, entry, rev, loops=loops, lenient=lenient)
    statscmd.write_outputs(collection, json_out, markdown_out)
    out = stdout_console()
    out.print(statscmd.summary_table(collection))
    meta = collection.metadata
    out.print(
        f"{meta.get('nfiles', '?')} files, {len(collection.counters)} counters, "
        f"{len(collection.unknown)} unknown lines"
        + (f"; JSON: {json_out}" if json_out else "")
        + (f"; Markdown: {markdown_out}" if markdown_out else "")
    )
    for warning in meta.get("warnings", [])[:10]:
        Reporter().warn(str(warning))


def compare(
    settings: Settings,
    base: Path,
    head: Path,
    *,
    json_out: str | None,
    markdown_out: str | None,
    threshold: float,
    family: bool,
    limit: int,
) -> None:
    from pystats_harness.stats import compare as _compare
    from pystats_harness.stats import statscmd

    comparison = statscmd.compare_files(base, head, threshold=threshold, family=family)
    if json_out:
        Path(json_out).write_text(_compare.to_json(comparison))
    if markdown_out:
        Path(markdown_out).write_text(_compare.to_markdown(comparison, limit))
    stdout_console().print(_compare.to_rich_table(comparison, limit))


def patches(settings: Settings, rev: str, requested: str) -> None:
    from pystats_harness.build import patches as _patches
    from pystats_harness.build import patchplan

    mirror = Mirror(settings.mirror_dir)
    info = mirror.resolve(rev)
    selection = patchplan.select(lambda path: mirror.read_file(info.sha, path), requested, rev=rev)
    out = stdout_console()
    out.print(_patches.render(selection.plan, title=f"patches for {rev} ({info.short}), --patches {requested}"))


def verify(settings: Settings, rev: str, requested: str) -> None:
    from pystats_harness.build import fingerprint, probes
    from pystats_harness.errors import VerificationFailed

    entry = find_build(settings, rev, requested)
    report = probes.collect(settings, entry)
    stdout_console().print(
        fingerprint.render_table(report.verdicts, title=f"behaviour fingerprint of {rev} (--patches {requested})")
    )
    if not report.ok:
        raise VerificationFailed(
            f"{rev} (--patches {requested}) differs from fixed pystats in: "
            + ", ".join(m.split(":")[0] for m in report.mismatches)
        )
