"""The build tasks: mirror, import-release, image, build, patches, verify (run: cli/run.py)."""

from __future__ import annotations

import time
from pathlib import Path

from invoke import Context as InvokeContext
from rich.markup import escape

from pystats_harness.builder import fingerprint, patches, probes, releases, repairs
from pystats_harness.builder.cache import CacheEntry
from pystats_harness.builder.configurations import ConfigName
from pystats_harness.builder.image import build_builder_image, build_llvm_variant
from pystats_harness.builder.obtain import cached, existing, obtain, plan_for
from pystats_harness.builder.plan import to_text
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import (
    CONFIG_HELP,
    PATCHES_HELP,
    REPAIRS_HELP,
    configuration,
    number,
    resolve,
)
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.errors import VerificationFailed
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror


def mirror(ctx: Context, remote: str | None) -> None:
    settings = ctx.settings
    source = remote or settings.mirror_remote
    ctx.reporter.command(f"git fetch {source} -> {settings.mirror_dir}")
    summary = Mirror(settings.mirror_dir).update(source)
    stdout_console().print(f"mirror {settings.mirror_dir}: {summary}")


def import_release(ctx: Context, tarball: Path) -> None:
    result = releases.import_release(Mirror(ctx.settings.mirror_dir), tarball)
    state = "already present" if result.already_present else "imported"
    stdout_console().print(f"{result.tag} {state}: {result.sha} (tarball sha256 {result.tarball_sha256[:16]}…)")
    if result.history_tag_moved_to:
        stdout_console().print(
            f"the history's {result.tag} (a fetched release commit) is kept as {result.history_tag_moved_to}"
        )


def image(ctx: Context, *, bootstrap: bool, llvm: int | None = None) -> None:
    if llvm is not None:
        result = build_llvm_variant(ctx, llvm, on_line=ctx.reporter.info)
    else:
        result = build_builder_image(ctx, bootstrap=bootstrap, on_line=ctx.reporter.info)
    stdout_console().print(f"image {result.tag} = {result.image_id} (base {result.base})")


def build(ctx: Context, commit: CommitInfo, requested_patches: str, config: ConfigName, *, dry_run: bool) -> None:
    out = stdout_console()
    start = time.perf_counter()
    plan = plan_for(ctx, Recipe(commit, requested_patches, config))
    out.print(to_text(plan, cached=cached(ctx, plan) is not None))
    if dry_run:
        return
    obtained = obtain(ctx, plan)
    entry = obtained.entry
    if not obtained.built:
        _warn_recorded_mismatch(ctx, entry, f"{commit.rev} ({commit.short})")
    out.print(f"build      {entry.path}  ({time.perf_counter() - start:.1f} s)")
    out.print(f"python     {entry.install_dir}/bin/python3")


def _warn_recorded_mismatch(ctx: Context, entry: CacheEntry, what: str) -> None:
    """A cached build that differs from fixed pystats says so every time it is asked for."""
    failed = [probe for probe, v in entry.manifest().get("fingerprint", {}).items() if not v.get("ok")]
    if failed:
        ctx.reporter.warn(
            f"behaviour fingerprint of {what} differs from fixed pystats in {len(failed)} probe(s): "
            f"{', '.join(failed)} (recorded in the manifest at build time; not fatal because --patches was chosen "
            "explicitly)"
        )


def show_patches(ctx: Context, commit: CommitInfo, requested: str) -> None:
    mirror = Mirror(ctx.settings.mirror_dir)
    plan = patches.select(lambda path: mirror.read_file(commit.sha, path), requested)
    title = f"patches for {commit.rev} ({commit.short}), --patches {requested}"
    out = stdout_console()
    out.print(patches.to_rich(plan, title=title))
    settings = ctx.settings
    repair = repairs.planned(mirror, commit, settings.repairs, settings.paths.repairs_found)
    if repair is not None:
        out.print(f"repair: {repair.describe()}: {escape(repair.subject)}\n  why: {escape(repair.how)}")
        out.print(escape(repair.text.rstrip()), highlight=False)
    else:
        off = settings.repairs == "none"
        out.print("repair: off (--repairs none)" if off else "repair: none (in no known window, none found earlier)")


def verify(ctx: Context, commit: CommitInfo, requested: str, config: ConfigName) -> None:
    recipe = Recipe(commit, requested, config)
    what = recipe.describe()
    entry = existing(ctx, plan_for(ctx, recipe))
    report = probes.collect(ctx, entry)
    title = f"behaviour fingerprint of {what}"
    stdout_console().print(fingerprint.to_rich(report.verdicts, title=title, exempt=report.exempt))
    if report.exempted:
        ctx.reporter.warn(f"behaviour fingerprint of {what}: {probes.exempt_line(report)}")
    if not report.ok:
        raise VerificationFailed(f"{what} differs from fixed pystats in: " + ", ".join(report.failed_probes))


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "remote": "URL or local path to fetch from (default: setting pystats.mirror_remote)",
    }
)
def mirror_task(c: InvokeContext, remote: str | None = None) -> None:
    """Clone or update the bare CPython mirror in the cache directory (imported tags kept, the remote's as upstream/TAG)."""
    mirror(settings_of(c), remote)


@harness_task(
    help={
        "tarball": "a CPython release tarball (Python-X.Y.Z.tar.xz or Debian's .orig.tar.*)",
    }
)
def import_release_task(c: InvokeContext, tarball: str) -> None:
    """Commit a CPython release tarball into the mirror as tag vX.Y.Z (offline sources)."""
    import_release(settings_of(c), Path(tarball))


@harness_task(
    help={
        "bootstrap": "make the base image with debootstrap + import (no registry needed)",
        "llvm": "instead: the builder image's variant with Debian's LLVM N (clang-N, llvm-N), for --config jit",
    }
)
def image_task(c: InvokeContext, bootstrap: bool = False, llvm: str | None = None) -> None:
    """Build the builder image from docker/Dockerfile (or its LLVM variant from docker/llvm/Dockerfile)."""
    image(settings_of(c), bootstrap=bootstrap, llvm=number("llvm", llvm, int))


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision: sha, short sha, tag, branch or main~3 (default: setting pystats.default_rev)",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP,
        "dry_run": "print the plan (sha, key, cache hit, image, flags, configuration) and do nothing",
        "verbose": "stream every build log line",
    }
)
def build_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    dry_run: bool = False,
    verbose: bool = False,
    repairs: str | None = None,
) -> None:
    """Build (or find in the cache) a --enable-pystats interpreter for a revision."""
    ctx = settings_of(c, verbose=verbose, repairs=repairs)
    name = configuration(ctx, config)
    build(ctx, resolve(ctx, rev), patches, name, dry_run=dry_run)


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision (default: setting pystats.default_rev)",
        "patches": PATCHES_HELP,
    }
)
def patches_task(c: InvokeContext, rev: str | None = None, patches: str = "auto", repairs: str | None = None) -> None:
    """Show which patches a revision needs (apply / already present / not applicable, and why)."""
    ctx = settings_of(c, repairs=repairs)
    show_patches(ctx, resolve(ctx, rev), patches)


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision of a cached build (default: setting pystats.default_rev)",
        "patches": "the --patches it was built with",
        "config": "the configuration it was built with (its run-time switch is used)",
    }
)
def verify_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: ConfigName | None = None,
    repairs: str | None = None,
) -> None:
    """Rerun the behaviour fingerprint on a cached build; non-zero exit on any mismatch."""
    ctx = settings_of(c, repairs=repairs)
    name = configuration(ctx, config)
    verify(ctx, resolve(ctx, rev), patches, name)
