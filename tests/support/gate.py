"""The suite's gate (hooks imported by tests/conftest.py): unit tests run first and must pass before an
integration test starts; unit tests get a short timeout; a skip is allowed only when tests/skips.toml
lists its reason (enforced under ``PYSTATS_STRICT_SKIPS=1``, as .ci/run sets it); and the counts
(passed, failed, skipped by reason) go to ``PYSTATS_TEST_SUMMARY`` as JSON for .ci/run's last line."""

from __future__ import annotations

import json
import os
import random
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALLOWLIST = ROOT / "tests" / "skips.toml"
#: Seconds a unit test may take (integration tests: the ``timeout`` of pyproject.toml's pytest section).
UNIT_TIMEOUT = 120


def allowed_reasons(path: Path = ALLOWLIST) -> tuple[str, ...]:
    """The skip reasons the allowlist names, each entry checked to say why it is there."""
    entries = tomllib.loads(path.read_text()).get("skip", [])
    for entry in entries:
        if not (entry.get("reason") and entry.get("why")):
            raise ValueError(f"{path}: every [[skip]] needs a reason and a why: {entry}")
    return tuple(entry["reason"] for entry in entries)


def is_integration(item: pytest.Item) -> bool:
    return "tests/integration" in str(item.path).replace(os.sep, "/")


def order_and_mark(items: list[pytest.Item]) -> None:
    """Unit tests first (a stable sort: each part keeps its own order), integration marked as such.
    With ``PYSTATS_SHUFFLE=SEED`` each part is shuffled: its modules in a random order, and the tests of
    each module (a module's fixtures are still made once), to show that no test depends on the order."""
    for item in items:
        if is_integration(item):
            item.add_marker(pytest.mark.integration)
        elif item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(UNIT_TIMEOUT))
    items.sort(key=is_integration)
    seed = os.environ.get("PYSTATS_SHUFFLE")
    if seed:
        items[:] = shuffled(items, seed)


def shuffled(items: list[pytest.Item], seed: str) -> list[pytest.Item]:
    """Unit tests, then integration tests, each part by module in an order drawn from ``seed``."""
    rng = random.Random(seed)
    out: list[pytest.Item] = []
    for part in (False, True):
        modules: dict[Path, list[pytest.Item]] = {}
        for item in items:
            if is_integration(item) is part:
                modules.setdefault(item.path, []).append(item)
        order = list(modules)
        rng.shuffle(order)
        for module in order:
            tests = modules[module]
            rng.shuffle(tests)
            out += tests
    return out


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped report gives (``Skipped: `` dropped)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


class Gate:
    """What the run saw: outcomes, skips by reason, whether a unit test failed."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.skips: Counter[str] = Counter()
        self.unit_failed = False

    def record(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            self.outcomes["skipped"] += 1
            self.skips[skip_reason(report)] += 1
        elif report.failed:
            self.outcomes["failed" if report.when == "call" else "errors"] += 1
            self.unit_failed |= "tests/integration" not in report.nodeid
        elif report.when == "call":
            self.outcomes["passed"] += 1

    def disallowed(self, allowed: tuple[str, ...]) -> dict[str, int]:
        return {reason: n for reason, n in self.skips.items() if not reason.startswith(allowed)}

    def summary(self, allowed: tuple[str, ...]) -> dict[str, object]:
        return {**self.outcomes, "skipped_by_reason": dict(self.skips), "disallowed": self.disallowed(allowed)}


GATE = Gate()


def strict() -> bool:
    return os.environ.get("PYSTATS_STRICT_SKIPS") == "1"


def before_integration(item: pytest.Item) -> None:
    """Stop the run at the first integration test if a unit test failed (they are quick; fix them first)."""
    if GATE.unit_failed and is_integration(item):
        pytest.exit("a unit test failed: integration tests not started", returncode=1)


def finish(session: pytest.Session) -> None:
    """Fail the run on a skip the allowlist does not name (strict), and write the summary."""
    allowed = allowed_reasons()
    bad = GATE.disallowed(allowed)
    if strict() and bad and session.exitstatus == 0:
        session.exitstatus = 1
    if path := os.environ.get("PYSTATS_TEST_SUMMARY"):
        Path(path).write_text(json.dumps(GATE.summary(allowed), indent=1, sort_keys=True) + "\n")


def report_skips(terminalreporter: pytest.TerminalReporter) -> None:
    bad = GATE.disallowed(allowed_reasons())
    if not bad:
        return
    terminalreporter.section("skips outside tests/skips.toml")
    for reason, n in sorted(bad.items()):
        terminalreporter.write_line(f"{n:>4} × {reason}")
    if strict():
        terminalreporter.write_line("PYSTATS_STRICT_SKIPS=1: these fail the run")
