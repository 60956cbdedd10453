"""Which dump belongs to which worker of which timed function, and what a missing dump means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pystats_harness.builder.cache import BuildInfo


def groups(nonempty: Sequence[Mapping[str, int]], functions: int, processes: int) -> list[list[Mapping[str, int]]]:
    """The workers of each timed function. pyperf runs each function's workers in turn, but dumps written
    within one tick of the file system's clock have the same mtime, so the order cannot say which
    function a dump belongs to: each group is the first dump left and the ``processes - 1`` dumps most
    like it (instructions executed per opcode), which the workers of one function are, by far."""
    if len(nonempty) != functions * processes:
        return []
    if functions == 1:
        return [list(nonempty)]
    left = list(nonempty)
    groups = []
    while left:
        first = left.pop(0)
        left.sort(key=lambda other: _distance(first, other))
        groups.append([first, *left[: processes - 1]])
        del left[: processes - 1]
    return groups


def _distance(a: Mapping[str, int], b: Mapping[str, int]) -> int:
    names = {n for n in (*a, *b) if n.startswith("opcode.") and n.endswith(".execution_count")}
    return sum(abs(a.get(n, 0) - b.get(n, 0)) for n in names)


def why_no_dump(entry: BuildInfo) -> str:
    """What the build's fingerprint says about a worker that dumped nothing ("" when it dumps as fixed
    CPython does): counts made while collection is off never reach a file, and counting from start-up."""
    probes = entry.manifest().get("fingerprint", {})
    reasons = []
    if probes.get("on-work-off", {}).get("ok") is False:
        reasons.append(
            "this interpreter does not dump stats at exit while collection is off, and pyperf's hook ends every "
            "bracket with sys._stats_off(), so a worker's counts are never written (fixed by GH-100144; "
            "--patches auto applies dump-when-off)"
        )
    if probes.get("plain", {}).get("ok") is False:
        reasons.append("counting begins at start-up, not at the first bracket (--patches auto: xstats-default-off)")
    return "; ".join(reasons)
