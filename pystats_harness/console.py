"""Terminal output: phase lines, a live status line, and tables (rich)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.status import Status


class Reporter:
    """What long operations tell the user; ``verbose`` echoes every log line."""

    def __init__(self, console: Console | None = None, *, verbose: bool = False) -> None:
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        self.verbose = verbose
        self._status: Status | None = None
        self._phase = ""
        self._phase_start = 0.0

    def info(self, text: str) -> None:
        self.console.print(text)

    def warn(self, text: str) -> None:
        self.console.print(f"[yellow]warning:[/] {escape(text)}")

    def command(self, argv: str) -> None:
        self.console.print(f"[dim]+ {escape(argv)}[/]")

    @contextmanager
    def live(self, title: str) -> Iterator[Reporter]:
        if self.console.is_terminal and not self.verbose:
            with self.console.status(escape(title)) as status:
                self._status = status
                try:
                    yield self
                finally:
                    self._status = None
        else:
            yield self

    def phase(self, name: str, seconds: float | None = None) -> None:
        """Announce that a phase started (seconds=None) or finished."""
        if seconds is None:
            self._phase, self._phase_start = name, time.perf_counter()
            if self._status is None:
                self.console.print(f"[bold]» {escape(name)}[/]")
        else:
            self.console.print(f"[green]✓[/] {escape(name):<12} {seconds:7.1f} s")

    def line(self, text: str) -> None:
        if self.verbose:
            self.console.print(escape(text), markup=True, highlight=False)
        elif self._status is not None:
            elapsed = time.perf_counter() - self._phase_start
            self._status.update(f"[bold]{escape(self._phase)}[/] {elapsed:5.0f} s  [dim]{escape(text[-100:])}[/]")


#: Width of tables written to a file or a pipe (a terminal's own width is used otherwise), so that
#: keys, shas and counter names are never cut short in logs.
PIPE_WIDTH = 200
#: Width of output meant to be read or pasted (``invoke stats``' summary) when it is not a terminal.
READING_WIDTH = 100


def stdout_console(fit: int | None = None) -> Console:
    """The console of a task's results: at a terminal, the terminal's width; else ``PIPE_WIDTH`` columns
    with long lines left whole (logs), or, given ``fit``, ``fit`` columns every line is wrapped to."""
    width = None if sys.stdout.isatty() else fit or PIPE_WIDTH
    return Console(file=sys.stdout, highlight=False, soft_wrap=fit is None, width=width)


def one_line(text: str) -> str:
    """``text`` as one line of a terminal: every character that would break the line or steer the terminal
    (a newline, a carriage return, an escape, a Unicode line separator, …) shown as its escape (``\\n``), so
    that a value typed with one in it still makes a one-line error."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
