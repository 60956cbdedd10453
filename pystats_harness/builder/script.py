"""The build container's script and how its log is read (both pure).

The script prints ``@@<marker> <text>`` lines between the compiler's output: phases, the compiler
version, ccache statistics before and after, and notes. :class:`BuildLog` turns a stream of lines
into phase timings, facts and events for the reporter, and keeps the last lines for a failure.
"""

from __future__ import annotations

import enum
import shlex
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.builder.plan import BuildPlan
from pystats_harness.infra.runner import PREFIX_IN_CONTAINER

TAIL_LINES = 30

#: Run after ``make install``: delete what no run reads. ``make install`` byte-compiles the standard
#: library at optimization levels 0, 1 and 2 (3.11 runs compileall three times, 3.12+ passes
#: ``-o 0 -o 1 -o 2``; no Makefile variable selects the levels in any of them). Runs start the
#: interpreter without ``-O``/``PYTHONOPTIMIZE``, so they read only the level-0 ``.pyc`` files, which
#: stay: the install is mounted read-only in run containers and Python could not write them later,
#: so every import would compile from source. The ``.opt-1.pyc``/``.opt-2.pyc`` files (~25 MB for
#: 3.13) are read only under ``-O``/``-OO``, which would still work, compiling from source. Building
#: C extensions against the install does not read bytecode at all. (The static libpython, ~142 MB in
#: two copies, is not built at all: ``--without-static-libpython`` in configs/configure.toml.)
TRIM_INSTALL = f"find {PREFIX_IN_CONTAINER}/lib -name '*.opt-[12].pyc' -delete"


def build_script(plan: BuildPlan, reuse: bool = False) -> str:
    """The shell script run in the build container. ``reuse``: /build holds the previous
    successful build of this group (see lanes.py): configure is left to make's own rules."""
    args = " ".join(shlex.quote(a) for a in plan.all_configure_args)
    if reuse:
        configure = (
            'echo "@@phase configure"\n'
            'echo "reusing the build directory of a previous build (configure reruns only if make says so)"'
        )
    else:
        configure = f"""find /build -mindepth 1 -delete
[ -f /confcache/config.cache ] && cp /confcache/config.cache config.cache || true
echo "@@phase configure"
if ! ../src/configure --cache-file=config.cache {args}; then
  if [ -f /confcache/config.cache ]; then
    echo "@@note configure failed with cached results; retrying without them"
    rm -rf /build/* && ../src/configure --cache-file=config.cache {args}
  else exit 1; fi
fi"""
    return f"""set -eu
export CC="ccache gcc"
# ccache's depend mode hashes the compiler's own dependency output (-MD) instead of running the
# preprocessor on a miss: a cold build costs ~4% over plain gcc instead of ~16%.
export CCACHE_DEPEND=1 CFLAGS="-MD${{CFLAGS:+ $CFLAGS}}"
mkdir -p /tmp/py_stats /build && cd /build
echo "@@compiler $(gcc --version | head -1)"
echo "@@ccache-before $(ccache --print-stats | tr '\\t\\n' '= ' )"
{configure}
echo "@@phase make"
make -j{plan.jobs}
echo "@@phase install"
make install
{TRIM_INSTALL}
cp config.cache /confcache/config.cache.new && mv /confcache/config.cache.new /confcache/config.cache
echo "@@ccache-after $(ccache --print-stats | tr '\\t\\n' '= ')"
echo "@@phase done"
"""


def ccache_delta(before: str, after: str) -> dict[str, int]:
    """Hits and misses between two ``ccache --print-stats`` snapshots (``key=value`` words)."""

    def parse(text: str) -> dict[str, int]:
        out = {}
        for item in text.split():
            k, _, v = item.partition("=")
            if v.isdigit():
                out[k] = int(v)
        return out

    b, a = parse(before), parse(after)
    hits = sum(a.get(k, 0) - b.get(k, 0) for k in ("direct_cache_hit", "preprocessed_cache_hit"))
    misses = a.get("cache_miss", 0) - b.get("cache_miss", 0)
    delta = {"hits": hits, "misses": misses}
    for name, key in (("remote_hits", "remote_storage_hit"), ("remote_errors", "remote_storage_error")):
        if key in a:  # ccache 4.4+: hits served by the remote storage (ccache_remote), and its errors
            delta[name] = a[key] - b.get(key, 0)
    return delta


class EventKind(enum.Enum):
    PHASE_STARTED = "phase started"
    PHASE_FINISHED = "phase finished"
    NOTE = "note"
    OUTPUT = "output"


@dataclass(frozen=True)
class Event:
    kind: EventKind
    text: str
    seconds: float | None = None


@dataclass
class BuildLog:
    """Reads the build container's output line by line (``now`` is the caller's clock)."""

    seconds: dict[str, float] = field(default_factory=dict)
    compiler: str = "unknown"
    ccache: dict[str, int] = field(default_factory=dict)
    phase: str | None = None
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    _phase_start: float = 0.0
    _ccache_before: str = ""

    def feed(self, line: str, now: float) -> list[Event]:
        marker, _, text = line.partition(" ") if line.startswith("@@") else ("", "", line)
        if marker == "@@phase":
            events = []
            if self.phase is not None:
                self.seconds[self.phase] = round(now - self._phase_start, 2)
                events.append(Event(EventKind.PHASE_FINISHED, self.phase, now - self._phase_start))
            self.phase, self._phase_start = text, now
            if text != "done":
                events.append(Event(EventKind.PHASE_STARTED, text))
            return events
        if marker == "@@compiler":
            self.compiler = text
        elif marker == "@@ccache-before":
            self._ccache_before = text
        elif marker == "@@ccache-after":
            self.ccache = ccache_delta(self._ccache_before, text)
        self.tail.append(line)
        if marker == "@@note":
            return [Event(EventKind.NOTE, text)]
        return [Event(EventKind.OUTPUT, line)]

    def facts(self) -> dict[str, Any]:
        return {"seconds": dict(self.seconds), "compiler": self.compiler, "ccache": dict(self.ccache)}
