"""Does the patch series fit every commit of a stretch of history?  A cheap check, no build.

    python bench/patch_coverage.py --git /path/to/cpython.git --range 342b93f9f2~1..6f8875eba3~1 [--all]

For each first-parent commit of ``--range`` (``--all``: every commit, not just first-parent), the
harness's own selection (:func:`pystats_harness.builder.patches.plan_patches`) probes the commit's tree
(``git cat-file``, no checkout), then the planned patches are applied one after the other with
``git apply --cached`` to a scratch index read from that tree: exactly what a build does before it
applies anything.  Printed: a table per selected variant combination (commits, first and last
commit with dates), then every commit where a change is "not applicable" or a patch does not apply
(the first 20 of each, with the reason).  Exit status 1 if any commit is not covered.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from pystats_harness.builder.patches import Action, plan_patches
from pystats_harness.builder.series import load_series
from pystats_harness.errors import RevisionUnsupported

# A change that an applied variant of another change already includes (see patch-series.toml).
FOLDED_INTO = {"pythonstats-env": "xstats-default-off"}


@dataclass(frozen=True)
class Outcome:
    sha: str
    date: str
    combo: str  # "change[variant] ..." or a failure label
    problem: str  # empty when the commit is covered


class TreeReader:
    """Reads files of one commit through a long-lived ``git cat-file --batch``."""

    def __init__(self, git_dir: str) -> None:
        self.proc = subprocess.Popen(
            ["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, sha: str, relpath: str) -> str | None:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(f"{sha}:{relpath}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().decode().split()
        if len(header) != 3:  # "<object> missing"
            return None
        data = self.proc.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode("utf-8", "replace")


def commits(git_dir: str, rev_range: str, every: bool) -> list[tuple[str, str]]:
    args = ["git", "--git-dir", git_dir, "log", "--format=%H %cs", "--reverse"]
    args += [] if every else ["--first-parent"]
    out = subprocess.run([*args, rev_range], check=True, capture_output=True, text=True).stdout
    return [(line.split()[0], line.split()[1]) for line in out.splitlines()]


def check_commit(git_dir: str, reader: TreeReader, sha: str, date: str, index: str) -> Outcome:
    series = load_series()
    try:
        plan = plan_patches(lambda rel: reader.read(sha, rel), series, "auto")
    except RevisionUnsupported as exc:
        return Outcome(sha, date, "unsupported", str(exc))
    applied = {p.change for p in plan.patches}
    missing = [
        d
        for d in plan.decisions
        if d.action is Action.NOT_APPLICABLE and not (d.change in FOLDED_INTO and FOLDED_INTO[d.change] in applied)
    ]
    combo = " ".join(
        f"{d.change}[{d.variant}]" if d.action is Action.APPLY else f"{d.change}[present]"
        for d in plan.decisions
        if d.action in (Action.APPLY, Action.PRESENT)
    )
    if missing:
        return Outcome(sha, date, combo or "-", "; ".join(f"{d.change}: {d.reason[:160]}" for d in missing))
    env = {**os.environ, "GIT_INDEX_FILE": index}
    subprocess.run(["git", "--git-dir", git_dir, "read-tree", sha], check=True, env=env)
    for p in plan.patches:
        res = subprocess.run(
            ["git", "--git-dir", git_dir, "apply", "--cached", str(p.path)], env=env, capture_output=True, text=True
        )
        if res.returncode:
            first = (res.stderr.strip().splitlines() or ["?"])[0]
            return Outcome(sha, date, combo, f"{p.change}/{p.variant} does not apply: {first}")
    return Outcome(sha, date, combo or "nothing to apply", "")


def report(outcomes: list[Outcome], console: Console) -> int:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if not o.problem:
            groups[o.combo].append(o)
    table = Table(title=f"patch coverage: {len(outcomes)} commits")
    for col in ("patches (change[variant])", "commits", "first", "last"):
        table.add_column(col)
    for combo, items in groups.items():
        first, last = items[0], items[-1]
        table.add_row(combo, str(len(items)), f"{first.sha[:10]} {first.date}", f"{last.sha[:10]} {last.date}")
    console.print(table)
    bad = [o for o in outcomes if o.problem]
    console.print(f"covered {len(outcomes) - len(bad)} / {len(outcomes)}; not covered {len(bad)}")
    for o in bad[:20]:
        console.print(f"  {o.sha[:10]} {o.date} {o.combo}: {o.problem}", markup=False, highlight=False)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--git", default=os.environ.get("PYSTATS_CPYTHON_GIT"), help="a CPython git dir")
    ap.add_argument("--range", required=True, dest="rev_range", help="git revision range, e.g. A~1..B")
    ap.add_argument("--all", action="store_true", help="every commit, not only first-parent ones")
    args = ap.parse_args()
    if not args.git:
        ap.error("--git (or PYSTATS_CPYTHON_GIT) is required")
    reader = TreeReader(args.git)
    with tempfile.TemporaryDirectory() as tmp:
        index = str(Path(tmp) / "index")
        outcomes = [check_commit(args.git, reader, s, d, index) for s, d in commits(args.git, args.rev_range, args.all)]
    return report(outcomes, Console())


if __name__ == "__main__":
    sys.exit(main())
