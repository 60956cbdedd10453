"""Time this pipeline against the revision's own Tools/scripts/summarize_stats.py on the same dumps.

    python bench/parse_speed.py --python INSTALL/bin/python3.X --source SRC_TREE
        [--dumps DIR] [--sample DUMP.txt[.gz]] [--count 1000] [--names names.json] [--repeat 3]

Without --dumps, two sets of --count files are generated in a temporary directory from one real dump
of that build (--sample; default: the largest golden dump in tests/data/dumps/<version>/), with every
value perturbed: "same keys" keeps each file's key set, "varied keys" also drops ~3% of the pair-count
lines at random, so that nearly every file has its own key sequence.

Both sides run as fresh processes, timed end to end (start-up, reading, summing, writing output); the
table shows the median wall time and the median CPU time (user+sys of the child).
* ours: ``python -I -S`` (this interpreter; the pipeline needs only the standard library) runs
  ``collect()`` and writes the collection JSON;
* upstream: the build's interpreter runs the tree's summarize_stats.py from inside the tree through a
  small wrapper that (a) for 3.11, whose script only reads the hard-coded /tmp/py_stats/, compiles an
  in-memory copy of the script with DEFAULT_DIR replaced by the dump directory (nothing is written
  to /tmp/py_stats), and (b) leaves with os._exit() so that a 3.11/3.12 stats interpreter does not
  add its own exit dump to /tmp/py_stats.  3.12+ get ``DIR --json-output FILE``.
Afterwards crosscheck() compares our collection with upstream's output (JSON, or 3.11's Markdown).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pystats_harness.stats.collection import load
from pystats_harness.stats.names import CAPTURE_SCRIPT, DEFINE_SOURCES, NameTables, source_defines
from pystats_harness.stats.summarize import crosscheck

WRAPPER = r"""
import os, sys, traceback
script, default_dir = sys.argv[1], sys.argv[2]
src = open(script, encoding="utf-8").read()
if default_dir:
    src = src.replace('DEFAULT_DIR = "/tmp/py_stats/"', "DEFAULT_DIR = %r" % default_dir)
sys.argv = [script] + sys.argv[3:]
sys.path[0] = os.path.dirname(script)
code = 0
try:
    exec(compile(src, script, "exec"), {"__name__": "__main__", "__file__": script})
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 0
except BaseException:
    traceback.print_exc()
    code = 1
sys.stdout.flush(); sys.stderr.flush()
os._exit(code)
"""

OURS = r"""
import json
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from pystats_harness.stats.collection import collect, save
from pystats_harness.stats.names import NameTables
names = NameTables.from_dict(json.loads(Path(sys.argv[2]).read_text())) if sys.argv[2] else None
save(collect(sorted(Path(sys.argv[3]).iterdir()), names, {}), Path(sys.argv[4]))
"""

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}  # no PYTHONSTATS: 3.13+ stats stay off


def version_of(python: str) -> str:
    out = subprocess.run(
        [python, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    return out.stdout.split()[0]


def read_sample(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode()


def make_dumps(sample: str, count: int, target: Path, drop: float, seed: int = 1) -> int:
    """Write ``count`` perturbed copies of ``sample``; drop pair-count lines with probability ``drop``."""
    rng = random.Random(seed)
    parsed = [line.rpartition(":") for line in sample.splitlines() if line.strip()]
    target.mkdir()
    for i in range(count):
        lines = []
        for key, _, value in parsed:
            if drop and "pair_count" in key and rng.random() < drop:
                continue
            n = int(value)
            lines.append(f"{key}: {max(1, round(n * rng.uniform(0.5, 1.5))) if n else 0}")
        (target / f"{i:040x}.txt").write_text("\n".join(lines) + "\n")
    return len(parsed)


def names_for(python: str, source: Path, version: str, given: str | None, workdir: Path) -> Path:
    if given:
        return Path(given)
    golden = ROOT / "tests" / "data" / "dumps" / version / "names.json"
    if golden.exists():
        return golden
    cap = subprocess.run([python, "-I", "-c", CAPTURE_SCRIPT], capture_output=True, text=True, check=True)
    files = {p: (source / p).read_text() for p in DEFINE_SOURCES if (source / p).exists()}
    path = workdir / "names.json"
    path.write_text(json.dumps(NameTables.from_capture(cap.stdout, source_defines(files)).to_dict()))
    return path


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, child CPU seconds, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def bench(label: str, dumps: Path, args: argparse.Namespace, names: Path, version: str, work: Path) -> None:
    is_311 = version.startswith("3.11")
    script = (args.source / "Tools" / "scripts" / "summarize_stats.py").resolve()
    up_json = work / f"upstream-{label}.json"
    ours_json = work / f"ours-{label}.json"
    upstream = [
        args.upstream_python or args.python,
        "-c",
        WRAPPER,
        str(script),
        str(dumps) + "/" if is_311 else "",
        *([] if is_311 else [str(dumps), "--json-output", str(up_json)]),
    ]
    ours = [sys.executable, "-I", "-S", "-c", OURS, str(ROOT), str(names), str(dumps), str(ours_json)]
    runs: dict[str, list[tuple[float, float]]] = {"ours": [], "upstream": []}
    stdout = ""
    for _ in range(args.repeat):
        runs["ours"].append(timed(ours)[:2])
        wall, cpu, stdout = timed(upstream, cwd=args.source)
        runs["upstream"].append((wall, cpu))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    tables = NameTables.from_dict(json.loads(names.read_text()))
    check = crosscheck(load(ours_json), stdout if is_311 else up_json.read_text(), tables)
    nfiles = len(list(dumps.iterdir()))
    print(f"\n{label}: {nfiles} files")
    print(f"  {'':<32} {'wall s':>8} {'CPU s':>8}   runs (wall)")
    for name, title in (("ours", "pystats_harness collect+save"), ("upstream", "summarize_stats.py")):
        print(f"  {title:<32} {med[name][0]:8.3f} {med[name][1]:8.3f}   " + " ".join(f"{w:.3f}" for w, _ in runs[name]))
    print(
        f"  speed-up: {med['upstream'][0] / med['ours'][0]:.2f}x wall, "
        f"{med['upstream'][1] / med['ours'][1]:.2f}x CPU; crosscheck mismatches: {len(check)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="the build's interpreter (runs summarize_stats.py)")
    ap.add_argument("--source", required=True, type=Path, help="the revision's source tree")
    ap.add_argument("--dumps", type=Path, help="directory of dump files (default: generate two sets)")
    ap.add_argument("--sample", type=Path, help="real dump (.txt or .txt.gz) to copy and perturb")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--names", help="names.json of the build (default: golden data, else captured)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--upstream-python", help="run summarize_stats.py with this interpreter instead")
    args = ap.parse_args()
    args.source = args.source.resolve()
    version = version_of(args.python)
    print(
        f"CPython {version}: upstream = {args.source}/Tools/scripts/summarize_stats.py run by "
        f"{args.upstream_python or args.python}"
        + (" (3.11: in-memory copy with DEFAULT_DIR replaced)" if version.startswith("3.11") else "")
    )
    print(f"ours = {sys.executable} -I -S ({sys.version.split()[0]}); load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="parse-speed-") as tmp:
        work = Path(tmp)
        names = names_for(args.python, args.source, version, args.names, work)
        if args.dumps:
            bench("given dumps", args.dumps.resolve(), args, names, version, work)
            return
        golden = ROOT / "tests" / "data" / "dumps" / version
        sample = args.sample or max(
            (p for p in golden.glob("**/*.txt*") if "stderr" not in p.name), key=lambda p: len(read_sample(p))
        )
        text = read_sample(sample)
        for label, drop in (("same keys", 0.0), ("varied keys", 0.03)):
            target = work / label.replace(" ", "-")
            nlines = make_dumps(text, args.count, target, drop)
            if drop == 0.0:
                print(f"sample: {sample} ({nlines} lines)")
            bench(label, target, args, names, version, work)


if __name__ == "__main__":
    main()
