"""A diff's own units of work, sent through the dispatcher like collect's (here or on the cluster):

* :class:`BuildWork`: only the build (both sides are built before either is collected, so a head that
  does not build costs no base collect);
* :class:`SummarizeWork`: the head revision's own ``Tools/scripts/summarize_stats.py`` with two inputs,
  the base's and the head's ``all/summarize.json``, each first made what that script reads
  (:mod:`pystats_harness.stats.summarize_for`: opcodes numbered as in the head's build for a script that
  reads numbers, 3.12.0's and development ones before September 2023), run with the head's build in a
  fresh container. A script that cannot read them (3.11's takes no inputs) is a one-line note in the
  result, not a failure.
"""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.dispatch.units import Attempt, Emit, Work
from pystats_harness.infra import engine
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import SOURCE_IN_CONTAINER, RunRequest, run_python
from pystats_harness.stats.summarize_for import ScriptReads, for_script

SCRIPT = "Tools/scripts/summarize_stats.py"
EXPORTS_IN_CONTAINER = "/diff"


@dataclass(frozen=True)
class BuildWork(Work[str]):
    """Get the build (the runner builds it when missing); the build key."""

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> str:
        return attempt.build.entry.key


@dataclass(frozen=True)
class Rendered:
    """What the head's summarize_stats.py made of the two exports: its Markdown, or why there is none."""

    script: str  # "Tools/scripts/summarize_stats.py of v3.13.5 (ac4bd1c8a5)"
    markdown: str | None
    note: str = ""  # one line: why there is no markdown, or what the script's tables leave out


def reads_two_inputs(script: str) -> bool:
    """Whether a summarize_stats.py compares two inputs (3.12+: ``inputs``, "two sources")."""
    return '"inputs"' in script and "--json-output" in script


@dataclass(frozen=True)
class SummarizeWork(Work[Rendered]):
    """``summarize_stats.py base.json head.json`` of the unit's (the head's) build."""

    base: bytes
    head: bytes

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> Rendered:
        return render_exports(ctx, attempt.build.entry, attempt.recipe.commit, self.base, self.head)


def render_exports(ctx: Context, entry: CacheEntry, commit: CommitInfo, base: bytes, head: bytes) -> Rendered:
    """The build's own summarize_stats.py over two exports, each first made what that script reads."""
    what = f"{SCRIPT} of {commit.rev} ({commit.short})"
    path = entry.source_dir / SCRIPT
    if not path.is_file():
        return Rendered(what, None, f"the head's build keeps no {SCRIPT}, so nothing rendered the two exports")
    script = path.read_text(errors="replace")
    if not reads_two_inputs(script):
        return Rendered(what, None, f"{what} takes no inputs (it reads /tmp/py_stats only): it cannot compare two")
    names = entry.names()
    if names is None:
        return Rendered(
            what, None, f"the head's build has no names.json, so its opcodes cannot be numbered for {SCRIPT}"
        )
    reads = ScriptReads.of(script)
    adapted = {side: for_script(json.loads(doc), reads, names) for side, doc in (("base", base), ("head", head))}
    notes = [a.note(side, what) for side, a in adapted.items() if a.dropped or a.absent]
    scratch = ctx.settings.paths.unit_scratch / f"diff-{uuid.uuid4().hex[:12]}"
    scratch.mkdir(parents=True)
    try:
        scratch.chmod(0o755)
        for side, a in adapted.items():
            (scratch / f"{side}.json").write_text(json.dumps(a.doc))
            (scratch / f"{side}.json").chmod(0o644)
        mounts = (engine.Mount(str(scratch), EXPORTS_IN_CONTAINER, read_only=True),)
        args = (
            "-I",
            f"{SOURCE_IN_CONTAINER}/{SCRIPT}",
            *(f"{EXPORTS_IN_CONTAINER}/{s}.json" for s in ("base", "head")),
        )
        r = run_python(ctx, entry, RunRequest(args, stats_dir=False, mounts=mounts, label="summarize-diff"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if r.exit_code != 0:
        last = (r.stderr.strip().splitlines() or ["no message"])[-1]
        return Rendered(what, None, f"{what} could not read the two exports (exit {r.exit_code}: {last[:200]})")
    return Rendered(what, r.stdout, "; ".join(notes))
