"""What every operation of one invocation shares: settings, a reporter, one Docker connection."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from pystats_harness.config import Settings
from pystats_harness.console import Reporter
from pystats_harness.infra import engine


@dataclass
class Context:
    """Passed to every operation. The engine is connected on first use, once per invocation
    (threads of one validation share the client), so a task that needs no engine never asks for one."""

    settings: Settings
    reporter: Reporter = field(default_factory=Reporter)
    _client: engine.Client | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def docker(self) -> engine.Client:
        with self._lock:
            if self._client is None:
                self._client = engine.connect()
                engine.reap_orphans(self._client)  # leftovers of killed invocations (kill -9, engine restarts)
            return self._client

    def with_settings(self, settings: Settings) -> Context:
        """The same invocation (same engine connection) with other settings, e.g. ``make -j``."""
        return Context(settings, self.reporter, self._client)

    def with_reporter(self, reporter: Reporter) -> Context:
        """The same invocation with another reporter (a live display folds build output into it)."""
        return Context(self.settings, reporter, self._client)
