"""Can the stats be trusted at every revision?  Build and validate a sample spread over the whole
supported history, and print one row per revision.

    PYSTATS_CPYTHON_GIT=/path/to/cpython.git python bench/trust_sweep.py [--out DIR] [--workloads a,b]
        [--revs REV,REV,...] [--only N] [--resume] [--report] [--markdown FILE]

The default sample (``SAMPLE``) is the release tags v3.11.2, v3.12.0 and v3.13.5 (v3.11.2 and v3.13.5
come from ``invoke import-release``, as ``scripts/bootstrap.sh`` does) and first-parent commits of
CPython main about every two months from January 2022 (the 3.11.0a4 release commit) to
April 2024, the 3.11 development window and the pre-fix 3.12 window (both patched) first.  Each
revision runs as a user would run it, ``python3 -m invoke validate --rev REV [--workloads W] --out
DIR/REV`` (a build through the cache with ``--patches auto``, then fingerprint, canaries, leakage,
isolation and baselines), in the current cache dir (``INVOKE_PYSTATS_CACHE_DIR``), whose mirror must
hold the revisions (``invoke mirror --remote $PYSTATS_CPYTHON_GIT``).

Printed (rich): revision, commit date, the patches applied (change[variant]), and one cell per step:
``pass``, ``partial``, ``skipped`` (baselines of a development commit), or ``FAIL`` with the step's
one-line reason; a revision that could not be built names why in its fingerprint cell.  ``DIR/sweep.json``
keeps every row; ``--resume`` re-uses rows of revisions whose ``validation.json`` is already in DIR, so
the sweep can be stopped and continued; ``--report`` runs nothing and prints what DIR holds.  Exit status 1 if any cell fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pystats_harness.measure import deferred
from tests.support.invoke_runner import run_invoke

STEPS = ("fingerprint", "canaries", "threads", "leakage", "isolation", "baselines")

# (revision, why it is in the sample); first-parent commits of main, chosen with
# `git log -1 --first-parent --before=DATE main` every ~2 months, plus the three release tags. Order: the
# patched windows first, then revisions whose objects the shared ccache likely holds (tags, commits
# validated before), then 2023-24, then the fill-ins between them.
SAMPLE: tuple[tuple[str, str], ...] = (
    ("9471106fd5", "main 2022-01: the 3.11.0a4 release commit (PyStats in pycore_code.h, no pair counts)"),
    ("0a8a8e7454", "main 2022-02 (3.11.0a6 cycle, pair counts in PyStats)"),
    ("326ae71f1d", "main 2022-04 (3.11.0a7 cycle, prev_instr)"),
    ("30610d2837", "main 2022-06 (3.12 dev, PyStats in Include/pystats.h, before GH-93841)"),
    ("e8259e047c", "main 2022-08 (3.12.0a1 cycle, on/off API, dump skipped while off)"),
    ("1583c6e326~1", "main 2022-12 (3.12.0a3 cycle, the last commit before the fix)"),
    ("v3.11.2", "release (imported tarball)"),
    ("v3.12.0", "release"),
    ("v3.13.5", "release (imported tarball)"),
    ("8d46c7ed5e", "main 2023-02 (3.12.0a5 cycle, COMPARE_AND_BRANCH)"),
    ("10bf2cd404", "main 2023-06 (3.13 dev)"),
    ("84b7e9e3fa", "main 2023-10 (3.13.0a1 cycle, PYTHONSTATS)"),
    ("c97d3af239", "main 2024-04 (3.13.0a5 cycle, the clone's tip)"),
    ("2fe44f728a", "main 2022-10 (3.12.0a1 cycle)"),
    ("8af8f52d17", "main 2023-04 (3.12.0a7 cycle)"),
    ("580f357c66", "main 2023-08 (3.13 dev, before PYTHONSTATS)"),
    ("f34e22c647", "main 2023-12 (3.13.0a2 cycle)"),
    ("18343c0985", "main 2024-02 (3.13.0a4 cycle)"),
    # the 3.13 development line, where the stats code moved most (gh-108753's enhancements, the tier-2
    # optimizer's counters, the deferred-count window d27acd4461 .. dfaa9e060b~1)
    ("a7a079798d", "main 2023-09 (3.13 dev, generated cases as ops)"),
    ("d27acd4461", "main 2023-10-31 (3.13.0a1+, miss path reads the next instruction: deferred drifts)"),
    ("0cfdd6e3d1", "main 2023-11 (3.13.0a1 cycle)"),
    ("dfaa9e060b", "main 2023-12-12 (3.13.0a2+, deferred drift fixed)"),
    ("3eae76554b", "main 2024-01 (3.13.0a3 cycle)"),
    ("8da83f3386", "main 2024-03 (3.13.0a5 cycle)"),
)


@dataclass(frozen=True)
class Row:
    revision: str
    note: str
    date: str
    python: str
    patches: str
    cells: dict[str, str]  # step -> "pass" / "partial" / "skipped" / "FAIL: why" / "not run: why"
    exit_code: int
    seconds: float

    @property
    def failed(self) -> bool:
        return any(c.startswith(("FAIL", "not run")) for c in self.cells.values())


def _cell(step: dict[str, Any]) -> str:
    status = step["status"]
    if status == "pass":
        # a pass that adjusted counters across an instruction boundary (the deferred rule) says how many
        adjusted = sum(1 for f in step.get("findings", ()) if f.get("check") == deferred.KIND)
        return f"pass ({adjusted} deferred counters adjusted)" if adjusted else "pass"
    if status == "no baseline":
        return "skipped (no baseline)"
    return f"{'FAIL' if status == 'fail' else status}: {step['summary']}"


def _build_facts(cache_dir: Path, key: str) -> tuple[str, str, str]:
    """(commit date, Python version, patches as change[variant]) from the build's manifest."""
    try:
        manifest = json.loads((cache_dir / "builds" / key / "manifest.json").read_text())
    except (OSError, ValueError):
        return "?", "?", "?"
    patches = ", ".join(f"{p['id']}[{p['variant']}]" for p in manifest.get("patches", [])) or "none"
    date = str(manifest.get("commit_date") or manifest.get("date") or "?")[:10]
    return date, str(manifest.get("python", {}).get("version", "?")), patches


def _last_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith("error:")]
    return (lines or [ln.strip() for ln in stderr.splitlines() if ln.strip()] or ["no output"])[-1][:200]


def run_one(rev: str, note: str, out: Path, workloads: str, cache_dir: Path) -> Row:
    rev_out = out / rev.replace("/", "_")
    chosen = ["--workloads", workloads] if workloads else []  # default: every workload of configs/suite.toml
    start = time.monotonic()
    proc = run_invoke("validate", "--rev", rev, *chosen, "--out", str(rev_out))
    seconds = time.monotonic() - start
    (out / f"{rev_out.name}.log").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    result = rev_out / "validation.json"
    if not result.is_file():
        why = _last_error(proc.stderr)
        cells = {"fingerprint": f"not run: {why}"} | {s: "not run" for s in STEPS[1:]}
        return Row(rev, note, "?", "?", "?", cells, proc.returncode, seconds)
    return _row_from(result, rev, note, cache_dir, proc.returncode, seconds)


def _row_from(result: Path, rev: str, note: str, cache_dir: Path, exit_code: int, seconds: float) -> Row:
    data = json.loads(result.read_text())
    date, python, patches = _build_facts(cache_dir, data["metadata"]["build_key"])
    cells = {s["step"]: _cell(s) for s in data["steps"]}
    return Row(rev, note, date, data["metadata"].get("python_version", python), patches, cells, exit_code, seconds)


def _not_run(rev: str, note: str, out: Path) -> Row:
    """A revision without a validation.json: the last error of its log, or that it was not reached."""
    log = out / f"{rev.replace('/', '_')}.log"
    why = _last_error(log.read_text().split("--- stderr ---")[-1]) if log.is_file() else "not reached"
    cells = {"fingerprint": f"not run: {why}"} | {s: "not run" for s in STEPS[1:]}
    return Row(rev, note, "?", "?", "?", cells, -1, 0.0)


def to_markdown(rows: list[Row]) -> str:
    head = ["revision", "date", "Python", "patches (auto)", *STEPS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [f"`{r.revision}` ({r.note})" if r.note else f"`{r.revision}`", r.date, r.python, r.patches]
        cells += [r.cells.get(s, "?") for s in STEPS]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_rich(rows: list[Row]) -> Table:
    table = Table(title="trust sweep: invoke validate at each revision", show_lines=True)
    for col in ("revision", "date", "Python", "patches (auto)", *STEPS, "s"):
        table.add_column(col)
    for r in rows:
        cells = [
            f"[{'green' if c == 'pass' else 'yellow' if not c.startswith(('FAIL', 'not run')) else 'bold red'}]"
            f"{escape(c)}[/]"
            for c in (r.cells.get(s, "?") for s in STEPS)
        ]
        table.add_row(f"{r.revision}\n{r.note}", r.date, r.python, r.patches, *cells, f"{r.seconds:.0f}")
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="where reports go (default: <cache_dir>/trust_sweep)")
    ap.add_argument("--workloads", default="", help="default: all nine (so that leakage and isolation check something)")
    ap.add_argument("--revs", help="comma-separated revisions instead of the default sample")
    ap.add_argument("--only", type=int, help="run only the first N revisions of the sample")
    ap.add_argument("--resume", action="store_true", help="re-use revisions already validated in --out")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    ap.add_argument("--report", action="store_true", help="run nothing: print the table of what --out holds")
    args = ap.parse_args()
    sample = [(r, "") for r in args.revs.split(",")] if args.revs else list(SAMPLE)
    sample = sample[: args.only] if args.only else sample
    cache_dir = Path(os.environ.get("INVOKE_PYSTATS_CACHE_DIR", Path.home() / ".cache" / "pystats-harness"))
    out = Path(args.out) if args.out else cache_dir / "trust_sweep"
    out.mkdir(parents=True, exist_ok=True)
    console = Console()
    rows: list[Row] = []
    for rev, note in sample:
        done = out / rev.replace("/", "_") / "validation.json"
        if (args.resume or args.report) and done.is_file():
            row = _row_from(done, rev, note, cache_dir, -1, 0.0)
        elif args.report:
            row = _not_run(rev, note, out)
        else:
            console.print(f"[bold]{rev}[/] {note}: invoke validate ...")
            row = run_one(rev, note, out, args.workloads, cache_dir)
        rows.append(row)
        cells = "; ".join(f"{s} {row.cells.get(s, '?')}" for s in STEPS)
        console.print(f"  {rev}: {cells} ({row.seconds:.0f} s)", markup=False, highlight=False)
        if not args.report:
            (out / "sweep.json").write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    console.print(to_rich(rows))
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(rows))
    return 1 if any(r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
