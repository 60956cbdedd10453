"""The committed validate runs (tests/data/leakage): real dumps of v3.13.5's leakage runs, as a
:class:`~pystats_harness.validate.runs.Runs` the leakage step reads.

Made with ``python3 bench/leak_variance.py --rev v3.13.5 --repeats 1 --save DIR`` (every run of the
workloads ``WORKLOADS`` and the null: manual at N and 2N, automated at N with two pyperf workers),
with the build's names.json and canary table beside them."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pystats_harness.infra.runner import RunResult
from pystats_harness.measure.runs import PathRun, RunPath, Shape
from pystats_harness.stats.collection import collect
from pystats_harness.stats.names import NameTables
from pystats_harness.validate.runs import Runs

DATA = Path(__file__).resolve().parent.parent / "data" / "leakage"
WORKLOADS = ("nbody", "json_roundtrip", "classes", "strings", "leaky", "leaky_alloc")
LOOPS = 10
PROCESSES = 2

#: Changes a test plants in one run's dumps before they are read: (path, workload, loops) -> edit of the text
Edits = Mapping[tuple[RunPath, str, int], Callable[[str], str]]


def load(build: str, into: Path, edits: Edits | None = None) -> tuple[Runs, dict[str, Any]]:
    """(the runs, the build's canary table); the dumps are written to ``into`` (edited where asked)."""
    source = DATA / build
    names = NameTables.from_dict(json.loads((source / "names.json").read_text()))
    results: dict[tuple[RunPath, str, int], PathRun | Exception] = {}
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        path_name, rest = folder.name.split("-", 1)
        workload, loops = rest.rsplit("-", 1)
        path, key = RunPath(path_name), (RunPath(path_name), workload, int(loops))
        edit = (edits or {}).get(key, lambda text: text)
        dumps = []
        for gz in sorted(folder.glob("*.txt.gz")):
            target = into / folder.name / gz.name.removesuffix(".gz")
            target.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(gz, "rt") as f:
                target.write_text(edit(f.read()))
            dumps.append(target)
        shape = Shape(int(loops), 1, 0, PROCESSES if path is RunPath.AUTOMATED else 1)
        meta = {"workload": workload, "path": path.value, "loops": shape.bracketed_loops(path)}
        run = RunResult(0, "", "", into / folder.name, tuple(dumps), 0.0)
        results[key] = PathRun(workload, path, shape, collect(dumps, names, meta), (run,))
    return Runs(results), json.loads((source / "table.json").read_text())  # type: ignore[arg-type]
