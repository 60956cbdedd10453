"""The table of faults the integration tests tried, filled by tests/integration/test_faults.py and
printed at the end of the run by tests/integration/conftest.py."""

from __future__ import annotations

#: (fault, survived, entries damaged, leftovers after the next invocation), one row per fault test.
FAULTS: list[tuple[str, bool, int, int]] = []
