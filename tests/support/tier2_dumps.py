"""Tier-2 dump text as print_optimization_stats() prints it, and CPython files from the local mirror.

The outside truth is the C code and real dumps, never the harness's own catalogue
(``pystats_harness.stats.tier2``): :func:`source_formats` reads a revision's format strings from its
``Python/specialize.c``, :func:`printed_formats` reads them back from a real dump's lines, and
``render`` writes dump text from such format strings with the given counts, in the C code's order: scalars, then per histogram its _Py_UOP_HIST_SIZE buckets, then per uop its
execution count and miss lines (non-zero only), unsupported opcodes, uop pairs, error_in_opcode.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pystats_harness.config import settings_from_environment
from pystats_harness.stats.tier2 import HIST_SIZE


@dataclass
class Counts:
    scalars: Mapping[str, int] = field(default_factory=dict)
    histograms: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    uops: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # name -> (execution count, miss)
    unsupported: Mapping[str, int] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], int] = field(default_factory=dict)
    errors: Mapping[str, int] = field(default_factory=dict)


def render(formats: Sequence[str], counts: Counts) -> str:
    """Dump text of the format strings ``formats`` (as :func:`source_formats` returns them) with ``counts``."""
    out: list[str] = []
    for fmt in formats:
        if "[" not in fmt:
            out.append(fmt.replace("%u", str(counts.scalars.get(fmt.split(":")[0], 0))))
        elif fmt.endswith("[%u]: %u"):
            name = fmt[: -len("[%u]: %u")]
            hist = counts.histograms.get(name, {})
            out += [f"{name}[{1 << i}]: {hist.get(1 << i, 0)}" for i in range(HIST_SIZE)]
        elif fmt.startswith("uops[") and fmt.endswith(".execution_count : %u"):
            with_miss = "uops[%s].specialization.miss : %u" in formats
            for name, (count, miss) in counts.uops.items():
                out += [f"uops[{name}].execution_count : {count}"] if count else []
                out += [f"uops[{name}].specialization.miss : {miss}"] if miss and with_miss else []
        elif fmt.startswith("unsupported_opcode["):
            out += [f"unsupported_opcode[{name}].count : {n}" for name, n in counts.unsupported.items() if n]
        elif fmt.startswith("uop["):
            out += [f"uop[{a}].pair_count[{b}] : {n}" for (a, b), n in counts.pairs.items() if n]
        elif fmt.startswith("error_in_opcode["):
            out += [f"error_in_opcode[{name}].count : {n}" for name, n in counts.errors.items() if n]
    return "".join(line + "\n" for line in out)


def mirrors() -> list[Path]:
    """The CPython mirrors to read from: ``PYSTATS_CPYTHON_GIT`` (real history) if set, and the harness's
    own (the release tags bootstrap imported); skips the test if there is none."""
    paths = [
        Path(p) for p in (os.environ.get("PYSTATS_CPYTHON_GIT"), settings_from_environment(os.environ).mirror_dir) if p
    ]
    found = [p for p in paths if (p / "HEAD").is_file() or (p / ".git").exists()]
    if not found:
        pytest.skip(f"no CPython mirror at {paths[-1]} (run scripts/bootstrap.sh)")
    return found


def git_show(rev: str, path: str) -> str:
    """``path`` at ``rev`` of the first mirror that has it. None having it fails the test: the release
    tags are in every mirror bootstrap made, and tests reading other revisions are ``needs_real_history``."""
    errors = []
    for repo in mirrors():
        run = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"], capture_output=True, text=True)
        if not run.returncode:
            return run.stdout
        errors.append(f"{repo}: {run.stderr.strip()[:120]}")
    pytest.fail(f"no CPython mirror has {rev}:{path} ({'; '.join(errors)})")


_CALL = re.compile(r'\b(fprintf\(\s*out,|print_histogram\(\s*out,)\s*((?:"(?:[^"\\]|\\.)*"|PRIu64|\s)+)')


def c_lines(source: str) -> list[str]:
    """The format strings print_optimization_stats() prints, in order (``%u`` for PRIu64, ``\\n`` dropped;
    a print_histogram() call as its line)."""
    body = re.search(
        r"\nprint_optimization_stats\(FILE \*out, OptimizationStats \*stats\)\n\{\n(.*?)\n\}\n", source, re.S
    )
    assert body, "no print_optimization_stats() here"
    histogram = re.search(r"\nprint_histogram\(.*?\n\{\n(.*?)\n\}\n", source, re.S)
    assert histogram and [c_format(f) for _, f in _CALL.findall(histogram.group(1))] == ["%s[%u]: %u"]
    found = []
    for call, literals in _CALL.findall(body.group(1)):
        text = c_format(literals)
        found.append(f"{text}[%u]: %u" if call.startswith("print_histogram") else text)
    return found


def c_format(literals: str) -> str:
    """Adjacent C string literals and PRIu64 macros as one format string, ``%u`` for ``%" PRIu64 "``."""
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"|(PRIu64)', literals)
    return "".join("u" if macro else text for text, macro in pieces).removesuffix("\\n")


def source_formats(rev: str) -> list[str]:
    """The tier-2 format strings ``rev``'s own Python/specialize.c prints, in order."""
    return c_lines(git_show(rev, "Python/specialize.c"))


#: A real dump's tier-2 lines as their format strings, recognised by shape alone (no catalogue).
_SHAPES = (
    (re.compile(r"^((?:Optimization|Optimizer|Executors) [^:\[]*): \d+$"), "{}: %u"),
    (re.compile(r"^([A-Z][A-Za-z ]*)\[\d+\]: \d+$"), "{}[%u]: %u"),
    (re.compile(r"^uops\[[^\]]+\]\.(execution_count|specialization\.miss) : \d+$"), "uops[%s].{} : %u"),
    (re.compile(r"^(unsupported_opcode|error_in_opcode)\[[^\]]+\]\.count : \d+$"), "{}[%s].count : %u"),
    (re.compile(r"^uop\[[^\]]+\]\.(pair_count)\[[^\]]+\] : \d+$"), "uop[%s].{}[%s] : %u"),
)


def printed_formats(text: str) -> list[str]:
    """The distinct tier-2 format strings of a dump's ``text``, in the order they first appear."""
    seen: list[str] = []
    for line in text.splitlines():
        for shape, fmt in _SHAPES:
            if (m := shape.match(line)) and (f := fmt.format(m.group(1))) not in seen:
                seen.append(f)
    return seen
