"""What the site names: the headline metrics (the configured list with ``<family>`` expanded to each family in
the store, then the metrics a user asked for), a file name for each metric and run, and Markdown text that
shows a recorded value as it is (no table cell ends, no link or emphasis starts)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

FAMILY = "<family>"
#: What a headline metric is, in words (the index and the plots' axes).
LABELS = {
    "opcode.*.execution_count": "instructions per loop",
    "uops.*.execution_count": "uops per loop",
    "gc.*.collections": "gc collections per loop",
}
_KINDS = {
    "hit_ratio": "hit ratio",
    "miss_ratio": "miss ratio",
    "deopt_ratio": "deopt ratio",
    "deferred_share": "deferred share",
}
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|>])")  # what Markdown (with tables) lets a backslash escape


def headline(configured: Sequence[str], asked: Sequence[str], counters: Iterable[str]) -> list[str]:
    """The metrics to plot, each once: ``configured`` with ``<family>`` as each family of ``counters``, then
    ``asked`` (queried with ``invoke results --metric`` or given to ``--metric``)."""
    families = _families(counters)
    expanded = [
        name.replace(FAMILY, family) for name in configured for family in (families if FAMILY in name else [""])
    ]
    return list(dict.fromkeys([*expanded, *asked]))


def _families(names: Iterable[str]) -> list[str]:
    """The instruction families with specialization counters among ``names`` (``family.<F>.specialization.*``)."""
    return sorted({n.split(".")[1] for n in names if n.startswith("family.") and ".specialization." in n})


def label(metric: str) -> str:
    """A metric in words where the site knows it (``LOAD_ATTR hit ratio``), else its name."""
    if metric in LABELS:
        return LABELS[metric]
    parts = metric.split(".")
    if len(parts) == 4 and parts[0] == "family" and parts[2] == "specialization" and parts[3] in _KINDS:
        return f"{parts[1]} {_KINDS[parts[3]]}"
    return metric


def slugs(metrics: Sequence[str]) -> dict[str, str]:
    """A file name stem for each metric: its name where that is safe (letters, digits, ``_.-``), else the safe
    part and a short hash of the name; unique even on a file system that ignores case."""
    found: dict[str, str] = {}
    taken: set[str] = set()
    for metric in metrics:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", metric.replace("*", "all")).strip("._-")[:100] or "metric"
        if safe != metric or safe.lower() in taken:
            safe = f"{safe}-{hashlib.sha256(metric.encode()).hexdigest()[:8]}"
        taken.add(safe.lower())
        found[metric] = safe
    return found


def run_stem(run_id: str) -> str:
    """A run's page is ``runs/<the first 12 hex digits of its id>.html``."""
    return run_id[:12]


def text(value: object) -> str:
    """``value`` as Markdown that shows it as it is: one line, every Markdown character escaped."""
    return _MARKDOWN.sub(r"\\\1", " ".join(str(value).split())) if value not in (None, "") else "-"


def code(value: object) -> str:
    """``value`` as a code span (shown as it is: a backtick or a pipe inside would end it or the cell)."""
    return "`" + " ".join(str(value).split()).replace("`", "'").replace("|", "¦") + "`"


def number(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return text(value)
    return f"{value:,.0f}" if abs(value) >= 1e6 else f"{value:.6g}"
