"""What makes a function an invoke task of the harness: its options declared once, with their help, in
the decorator above it (``@harness_task(help={...})``), its short flags from the one vocabulary
(``SHORT_FLAGS``), its settings read from invoke's ``pystats`` config (invoke.yaml, INVOKE_PYSTATS_*),
and every harness error turned into one line on stderr and its exit code (SIGTERM is Ctrl-C: exit 130,
nothing left behind)."""

from __future__ import annotations

import functools
import inspect
import signal
from collections.abc import Callable, Mapping
from typing import Any

from invoke import Argument, Exit, ParseError, Program, Task, task
from invoke import Context as InvokeContext

from pystats_harness.cli.common import context, error_exit
from pystats_harness.console import Reporter, one_line
from pystats_harness.errors import ConfigError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.context import Context

#: The option vocabulary: an option that has a letter has the same letter, and the letter the same
#: meaning, in every task (``invoke --help TASK``). Options without one are spelled out: a letter invoke
#: picked from the name's first free character meant --out in one task and --processes in another.
SHORT_FLAGS = {
    "rev": "r",
    "patches": "p",
    "config": "c",
    "out": "o",
    "jobs": "j",
    "loops": "l",
    "workload": "w",
    "workloads": "w",
    "benchmarks": "b",
    "metric": "m",
    "threshold": "t",
    "direction": "d",
    "dry-run": "n",
    "strict": "s",
    "verbose": "v",
    "keep": "k",
    "yes": "y",
}


class HarnessTask(Task):
    """A task whose short flags come from ``SHORT_FLAGS``, not from the first free letter of a name; an
    option's old name (``renamed``) has none. A value invoke cannot convert to an option's kind is a
    parse error naming the option (exit 2)."""

    def __init__(self, body: Callable[..., Any], *, renamed: Mapping[str, str] | None = None, **options: Any) -> None:
        super().__init__(body, auto_shortflags=False, **options)
        self.renamed = dict(renamed or {})

    def arg_opts(self, name: str, default: str, taken_names: set[str]) -> dict[str, Any]:
        opts: dict[str, Any] = super().arg_opts(name, default, taken_names)
        letter = None if name in self.renamed else SHORT_FLAGS.get(opts["names"][0])
        if letter is not None and letter not in taken_names:
            opts["names"].append(letter)
        return opts

    def get_arguments(self, ignore_unknown_help: bool | None = None) -> list[Argument]:
        arguments: list[Argument] = super().get_arguments(ignore_unknown_help)
        for argument in arguments:
            argument.__class__ = _NamedArgument
        return arguments


class WrongKind(ParseError):
    """An option's value that is not of the option's kind; the message names both."""


class _NamedArgument(Argument):
    """An option whose value is not of its kind (``--jobs abc``): a parse error naming it, not invoke's
    bare ``ValueError`` traceback."""

    def set_value(self, value: Any, cast: bool = True) -> None:
        try:
            super().set_value(value, cast)
        except (TypeError, ValueError):
            kind = "an integer" if self.kind is int else f"a {getattr(self.kind, '__name__', 'value')}"
            raise WrongKind(f"--{self.name} {value!r} is not {kind}") from None


def _one_line(step: Callable[[Program], None]) -> Callable[[Program], None]:
    @functools.wraps(step)
    def wrapper(program: Program) -> None:
        try:
            step(program)
        except ParseError as exc:
            task = getattr(getattr(exc, "context", None), "name", None)
            see = "" if isinstance(exc, WrongKind) else f" (see `invoke {f'--help {task}' if task else '--list'}`)"
            raise Exit(f"error: {one_line(str(exc))}{see}", code=ExitCode.CONFIG_ERROR) from None

    wrapper.one_line = True  # type: ignore[attr-defined]
    return wrapper


def parse_errors_in_one_line() -> None:
    """invoke's own parse errors (an unknown option, a missing value or positional, ``--help`` of an
    unknown task) as one line and exit 2, a bad argument's code; invoke itself exits 1 for them.

    invoke's ``Program`` reads the task arguments after it has loaded ``tasks.py``, so the two steps
    that parse them are wrapped here, once, when the collection is imported."""
    for step in ("parse_tasks", "parse_cleanup"):
        if not getattr(getattr(Program, step), "one_line", False):
            setattr(Program, step, _one_line(getattr(Program, step)))


def settings_of(c: InvokeContext, *, verbose: bool = False, repairs: str | None = None) -> Context:
    """The invocation's context from invoke's ``pystats`` config (``repairs``: the task's ``--repairs``)."""
    return context(c.config.get("pystats", {}), verbose=verbose, repairs=repairs)


def _sigterm_as_interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def mapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with harness errors turned into one line on stderr and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
        try:
            return fn(*args, **kwargs)
        except (Exception, KeyboardInterrupt) as exc:
            found = error_exit(exc)
            if found is None:
                raise
            raise Exit(found[0], code=found[1]) from None

    return wrapper


def flag(name: str) -> str:
    return "--" + name.strip("_").replace("_", "-")


def old_names(fn: Callable[..., Any], renamed: Mapping[str, str]) -> Callable[..., Any]:
    """``fn`` that also takes each option's old name (``renamed``: old -> new): the old name given, it is
    the new one, with a warning; both given, the task is refused (exit 2) before any work."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for old, new in renamed.items():
            value = kwargs.pop(old, None)
            if value is None:
                continue
            if kwargs.get(new) is not None:
                raise ConfigError(f"{flag(old)} is the old name of {flag(new)}: give {flag(new)} only")
            Reporter().warn(f"{flag(old)} is now {flag(new)}; the old name still works, for now")
            kwargs[new] = value
        return fn(*args, **kwargs)

    signature = inspect.signature(fn)
    olds = [inspect.Parameter(old, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for old in renamed]
    wrapper.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *olds])  # type: ignore[attr-defined]
    return wrapper


def harness_task(
    *, help: dict[str, str], name: str | None = None, renamed: Mapping[str, str] | None = None, **options: Any
) -> Callable[..., Any]:
    """``@task`` for the harness: ``help`` names every option of the function below it, once;
    ``renamed`` (old name -> new name) keeps the old names of renamed options working, with a warning."""
    renamed = dict(renamed or {})
    olds = {old: f"old name of {flag(new)} (same meaning; warns)" for old, new in renamed.items()}

    def decorate(fn: Callable[..., Any]) -> Any:
        named = name or fn.__name__.removesuffix("_task").replace("_", "-")
        body = mapped(old_names(fn, renamed) if renamed else fn)
        words = _positional(fn, options.get("positional"))
        usage = f"positional: invoke {named} {' '.join(flag(w).removeprefix('--').upper() for w in words)}"
        helps = {k: f"{v} ({usage})" if k in words else v for k, v in help.items()}  # invoke shows them as --name
        return task(name=named, help={**helps, **olds}, klass=HarnessTask, renamed=renamed, **options)(body)

    return decorate


def _positional(fn: Callable[..., Any], given: list[str] | None) -> list[str]:
    """The task's positional arguments: those it names, else (as invoke decides) those without a default."""
    if given is not None:
        return list(given)
    params = list(inspect.signature(fn).parameters.values())[1:]  # after invoke's context
    return [p.name for p in params if p.default is inspect.Parameter.empty]


def exit_with(code: int) -> None:
    """End the task with ``code`` (a child's or a protocol's own exit code) when it is not 0."""
    if code:
        raise Exit(code=code)
