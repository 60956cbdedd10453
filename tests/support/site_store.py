"""A small results store with realistic runs, made with the store's API (no CPython build): two collects at
two revisions with different commit dates, a validation, a diff of the two collects with flagged changes, and
a history commit. The publish tests and scripts/site_screenshot.py --demo publish it."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.results import RunRecord, Store, Task, UnitRecord

REVISIONS = (
    ("v3.13.4", "36b0ec0d2e9e4c0b3b35cc03bbce1c7e9f6d3a11", "2025-06-03T14:05:11+02:00"),
    ("v3.13.5", "6cb20a219a860eaf687b2d968b41c480c7461909", "2025-06-11T17:36:57+02:00"),
)
BENCHMARKS = {"richards": 1.0, "nbody": 2.5, "float": 0.7, "go": 1.6}
FAMILIES = {"LOAD_ATTR": (0.82, 0.05), "LOAD_GLOBAL": (0.95, 0.01), "BINARY_OP": (0.64, 0.12), "CALL": (0.71, 0.09)}


def counters(scale: float, drift: float) -> dict[str, float]:
    """Per-loop counters of one benchmark, as collect records them (named, family totals included)."""
    values: dict[str, float] = {}
    for n, (family, (hit, deferred)) in enumerate(FAMILIES.items()):
        executions = 1000.0 * scale * (n + 1)
        values[f"opcode.{family}.execution_count"] = executions * (1 - hit)
        values[f"opcode.{family}_SPECIALIZED.execution_count"] = executions * hit
        values[f"family.{family}.execution_count"] = executions
        values[f"family.{family}.specialization.hit"] = executions * min(hit + drift + 0.01 * scale, 1.0)
        values[f"family.{family}.specialization.miss"] = executions * (1 - hit)
        values[f"family.{family}.specialization.deferred"] = executions * deferred
    values["gc.0.collections"] = round(3 * scale)
    values["gc.1.collections"] = round(scale)
    return values


def collect_run(index: int) -> RunRecord:
    revision, sha, date = REVISIONS[index]
    verdicts = ("trusted", "trusted", "untrusted" if index else "trusted", "partial")
    units = tuple(
        UnitRecord(
            name, verdict, "leakage: 2 counters differ" if verdict == "untrusted" else "", 40, counters(s, 0.02 * index)
        )
        for (name, s), verdict in zip(BENCHMARKS.items(), verdicts, strict=True)
    )
    failed = UnitRecord("spectral_norm", "failed", "ModuleNotFoundError: No module named 'pyperf_ext'", None, {})
    return RunRecord(
        Task.COLLECT,
        revision,
        sha,
        date,
        "default",
        ("gh-100144",),
        (*units, failed),
        recorded_at=f"2026-12-0{index + 1}T10:00:00+00:00",
        host="bench-1",
        extra={"out": f"/tmp/collect-{revision}"},
    )


def validate_run() -> RunRecord:
    revision, sha, date = REVISIONS[1]
    steps = tuple(
        UnitRecord(f"step:{s}", "pass", f"{s}: all checks pass") for s in ("fingerprint", "canaries", "leakage")
    )
    workload = UnitRecord("nbody", "pass", "", 30, counters(2.5, 0.02))
    return RunRecord(
        Task.VALIDATE,
        revision,
        sha,
        date,
        "default",
        ("gh-100144",),
        (*steps, workload),
        recorded_at="2026-12-02T11:00:00+00:00",
        host="bench-1",
    )


def diff_run(base: str, head: str) -> RunRecord:
    revision, sha, date = REVISIONS[1]
    flagged = [  # as diff/recording.py writes them: the family's ratio or count, the change as report.md shows it
        {"benchmark": "richards", "metric": "LOAD_ATTR.hit_ratio", "base": 0.685, "head": 0.579, "change": "-10.6 pp"},
        {"benchmark": "nbody", "metric": "executed", "base": 23901718.0, "head": 28081503.0, "change": "+17.5%"},
    ]
    return RunRecord(
        Task.DIFF,
        revision,
        sha,
        date,
        "default",
        (),
        (UnitRecord("richards", "changed", "2 flagged"),),
        parents=(base, head),
        recorded_at="2026-12-03T09:00:00+00:00",
        host="bench-1",
        extra={"flagged": flagged},
    )


def demo_store(path: Path) -> dict[str, str]:
    """The store at ``path`` (made); the id of each run by role."""
    with Store.open(path) as store:
        base = store.record(collect_run(0))
        head = store.record(collect_run(1))
        ids = {"base": base, "head": head, "validate": store.record(validate_run())}
        ids["diff"] = store.record(diff_run(base, head))
    return ids
