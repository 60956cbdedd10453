"""A ``--metric``: one counter name, or arithmetic over counter names, evaluated safely.

    opcode.LOAD_ATTR.specialization.hit / opcode.LOAD_ATTR.execution_count
    family.LOAD_ATTR.specialization.miss * 100 / family.LOAD_ATTR.execution_count
    -(gc.0.collections + gc.1.collections)

Grammar: counter names, numbers, ``+ - * /``, parentheses and unary ``+``/``-``; nothing else.
A name is the dotted form of :mod:`pystats_harness.stats.collection` (segments of letters, digits and
``_``; after the first dot a segment may start with a digit, as in ``gc.0.collections`` or
``failure_kinds.kind_12``).  A name with any other character is written in backticks:
```other.Some raw key```.

The text is never executed: names are swapped for placeholders, the result is parsed with
:func:`ast.parse` and every node is checked against the short list above, then turned into a small
tree of frozen nodes that :meth:`Metric.evaluate` walks.

Missing counters count as 0, because a stats dump leaves out every counter that is 0.  If *none* of
the inputs is present the names are almost certainly wrong (or the workload never reached the code),
so :class:`MissingCounters` is raised, naming them.  Division by zero gives NaN and a note.
"""

from __future__ import annotations

import ast
import difflib
import keyword
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pystats_harness.errors import ConfigError, MissingCounters

MAX_LENGTH = 2000
_PLAIN_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*", re.ASCII)
_TOKEN = re.compile(
    r"(?P<quoted>`[^`]*`?)"
    r"|(?P<number>(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?\w*)"
    r"|(?P<name>[A-Za-z_]\w*(?:\.\w+)*)",
    re.ASCII,
)
_PLACEHOLDER = "_m{}_"
_PLACEHOLDER_RE = re.compile(r"\b_m(\d+)_\b")
_HINT = "use counter names, numbers, + - * / and parentheses"


# --- the evaluation tree ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Num:
    value: float


@dataclass(frozen=True)
class _Counter:
    name: str


@dataclass(frozen=True)
class _Neg:
    operand: _Node


@dataclass(frozen=True)
class _BinOp:
    op: str  # one of + - * /
    left: _Node
    right: _Node


_Node = _Num | _Counter | _Neg | _BinOp

_OPS: dict[type[ast.operator], str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_OP_SPELLING: dict[type[ast.AST], str] = {
    ast.Pow: "**",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.Not: "not",
    ast.Invert: "~",
}
_REFUSED: dict[type[ast.AST], str] = {
    ast.Call: "function calls are not allowed",
    ast.Attribute: "attribute access on an expression is not allowed (write a counter name in one piece)",
    ast.Subscript: "subscripts [...] are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and'/'or' are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.IfExp: "conditional expressions are not allowed",
    ast.NamedExpr: "assignment expressions are not allowed",
}


@dataclass(frozen=True)
class Evaluation:
    """A metric's value at one commit and what is worth knowing about how it was computed."""

    value: float
    missing: tuple[str, ...] = ()  # inputs absent from the counters (counted as 0)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Metric:
    """A parsed metric.  Build it with :func:`parse_metric` (or ``Metric.parse``)."""

    text: str  # as given
    expression: str  # canonical spelling (same inputs and meaning), e.g. for titles and JSON
    inputs: tuple[str, ...]  # the counter names it reads, sorted and unique: the results-store key part
    _tree: _Node = field(repr=False, compare=False)

    @classmethod
    def parse(cls, text: str) -> Metric:
        return parse_metric(text)

    def __str__(self) -> str:
        return self.expression

    def is_single_counter(self) -> bool:
        return isinstance(self._tree, _Counter)

    def evaluate(self, counters: Mapping[str, float]) -> float:
        """The value (NaN after a division by zero); raises :class:`MissingCounters` if no input exists."""
        return self.explain(counters).value

    def explain(self, counters: Mapping[str, float]) -> Evaluation:
        missing = tuple(name for name in self.inputs if name not in counters)
        if missing and len(missing) == len(self.inputs):
            raise MissingCounters(_missing_message(self, counters), names=self.inputs)
        notes: list[str] = []
        value = _eval(self._tree, counters, notes)
        if missing:
            notes.insert(0, "counted as 0 (not in the stats): " + ", ".join(missing))
        return Evaluation(value, missing, tuple(dict.fromkeys(notes)))


def parse_metric(text: str) -> Metric:
    """Parse ``text``; anything outside the grammar is a :class:`ConfigError` with one clear line."""
    if not text.strip():
        raise ConfigError(f"--metric is empty; {_HINT}, e.g. opcode.LOAD_ATTR.execution_count")
    if len(text) > MAX_LENGTH:
        raise ConfigError(f"--metric is {len(text)} characters long; at most {MAX_LENGTH} are accepted")
    names: list[str] = []

    def swap(m: re.Match[str]) -> str:
        if m.group("number") is not None:
            return m.group(0)
        if m.group("quoted") is not None:
            quoted = m.group("quoted")
            if len(quoted) < 2 or not quoted.endswith("`"):
                raise _refuse(text, "a backtick-quoted name is not closed")
            name = quoted[1:-1].strip()
            if not name:
                raise _refuse(text, "a backtick-quoted name is empty")
        else:
            name = m.group("name")
            if keyword.iskeyword(name):
                return name  # left to ast, so that e.g. 'lambda' is refused by name
        if name not in names:
            names.append(name)
        return _PLACEHOLDER.format(names.index(name))

    source = _TOKEN.sub(swap, text.strip())
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise _refuse(text, f"not a valid expression ({exc.msg})") from None
    node = _convert(tree.body, text, names)
    inputs = tuple(sorted(set(_counter_names(node))))
    if not inputs:
        raise _refuse(text, "names no counter")
    canonical = _PLACEHOLDER_RE.sub(lambda m: _spell(names[int(m.group(1))]), ast.unparse(tree.body))
    return Metric(text, canonical, inputs, node)


def _spell(name: str) -> str:
    return name if _PLAIN_NAME.fullmatch(name) and not keyword.iskeyword(name) else f"`{name}`"


def _refuse(text: str, what: str) -> ConfigError:
    shown = text if len(text) <= 120 else text[:117] + "..."
    return ConfigError(f"--metric {shown!r}: {what}; {_HINT}")


def _convert(node: ast.AST, text: str, names: list[str]) -> _Node:
    if isinstance(node, ast.Name):
        m = _PLACEHOLDER_RE.fullmatch(node.id)
        if m is None:  # cannot happen: every identifier is swapped for a placeholder
            raise _refuse(text, f"unexpected name {node.id!r}")
        return _Counter(names[int(m.group(1))])
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return _Num(float(node.value))
        if isinstance(node.value, (str, bytes)):
            raise _refuse(text, "strings are not allowed (quote an unusual counter name in backticks)")
        raise _refuse(text, f"the constant {node.value!r} is not allowed")
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            return _Neg(_convert(node.operand, text, names))
        if isinstance(node.op, ast.UAdd):
            return _convert(node.operand, text, names)
        raise _refuse(text, f"operator {_OP_SPELLING.get(type(node.op), type(node.op).__name__)!r} is not allowed")
    if isinstance(node, ast.BinOp):
        op = _OPS.get(type(node.op))
        if op is None:
            raise _refuse(text, f"operator {_OP_SPELLING.get(type(node.op), type(node.op).__name__)!r} is not allowed")
        return _BinOp(op, _convert(node.left, text, names), _convert(node.right, text, names))
    for kind, message in _REFUSED.items():
        if isinstance(node, kind):
            raise _refuse(text, message)
    raise _refuse(text, f"{type(node).__name__} is not allowed")


def _counter_names(node: _Node) -> list[str]:
    if isinstance(node, _Counter):
        return [node.name]
    if isinstance(node, _Neg):
        return _counter_names(node.operand)
    if isinstance(node, _BinOp):
        return _counter_names(node.left) + _counter_names(node.right)
    return []


def _eval(node: _Node, counters: Mapping[str, float], notes: list[str]) -> float:
    if isinstance(node, _Num):
        return node.value
    if isinstance(node, _Counter):
        return float(counters.get(node.name, 0))
    if isinstance(node, _Neg):
        return -_eval(node.operand, counters, notes)
    left, right = _eval(node.left, counters, notes), _eval(node.right, counters, notes)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    if node.op == "*":
        return left * right
    if right == 0:
        notes.append("division by zero: the value is NaN")
        return math.nan
    return left / right


def _missing_message(metric: Metric, counters: Mapping[str, float]) -> str:
    hints = []
    for name in metric.inputs:
        close = difflib.get_close_matches(name, list(counters), n=1, cutoff=0.8) if counters else []
        if close:
            hints.append(f"{name} -> {close[0]}?")
    hint = f" (did you mean: {'; '.join(hints)})" if hints else " (check the names; a dump leaves out zero counters)"
    return f"--metric {metric.expression!r}: none of its counters is in the stats: {', '.join(metric.inputs)}{hint}"
