"""Cross-check the pipeline against the revision's own Tools/scripts/summarize_stats.py.

The script runs with that build's interpreter, inside that revision's (copied) source tree, in a
fresh container, on the same dump files: 3.12+ via ``--json-output``; 3.11 (no options, fixed
``/tmp/py_stats``) via its Markdown output with the dumps mounted read-only at /tmp/py_stats.
"""

from __future__ import annotations

from pathlib import Path

from pystats_harness.build.cache import CacheEntry
from pystats_harness.config import Settings
from pystats_harness.errors import RunFailed
from pystats_harness.infra import engine
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.stats.compare import Mismatch, crosscheck
from pystats_harness.stats.statscmd import dump_files, make_collection, names_for

SCRIPT = "/src/Tools/scripts/summarize_stats.py"


def summarize_output(settings: Settings, entry: CacheEntry, stats_dir: Path) -> str:
    """stdout (3.11 Markdown) or the --json-output document (3.12+) of the revision's own script."""
    script = (entry.source_dir / "Tools/scripts/summarize_stats.py").read_text(errors="replace")
    if "--json-output" in script:
        mounts = (engine.Mount(str(stats_dir), "/dumps", read_only=True),)
        args = ("-I", SCRIPT, "/dumps", "--json-output", "/tmp/py_stats/summary.json")
        r = run_python(settings, entry, RunRequest(args, mounts=mounts, label="summarize"))
        produced = [p for p in r.stats_files if p.name == "summary.json"]
        if r.exit_code != 0 or not produced:
            raise RunFailed(f"summarize_stats.py failed (exit {r.exit_code}): {r.stderr.strip()[-300:]}")
        return produced[0].read_text()
    mounts = (engine.Mount(str(stats_dir), "/tmp/py_stats", read_only=True),)
    r = run_python(settings, entry, RunRequest(("-I", SCRIPT), stats_dir=False, mounts=mounts, label="summarize"))
    if r.exit_code != 0:
        raise RunFailed(f"summarize_stats.py failed (exit {r.exit_code}): {r.stderr.strip()[-300:]}")
    return r.stdout


def crosscheck_dir(settings: Settings, entry: CacheEntry, stats_dir: Path) -> list[Mismatch]:
    """Empty when our execution counts and specialization totals equal the script's."""
    dump_files(stats_dir)
    ours = make_collection(stats_dir, entry, None, loops=None, lenient=False)
    return crosscheck(ours, summarize_output(settings, entry, stats_dir), names_for(entry))
