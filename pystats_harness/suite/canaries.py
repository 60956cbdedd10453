"""Canaries: loop kernels whose opcode execution counts are known without pystats.

Method.  A canary is ``kernel(n)``: a little setup, then ``for i in range(n): BODY``.  Run it with
``n = N`` in one process and ``n = 2N`` in another (each ``_stats_on(); kernel(n); _stats_off()``,
or the whole process on an unpatched 3.11: the extra work cancels in the difference).  For every
opcode *family* F,

    corrected_F(2N run) - corrected_F(N run)  ==  N * per_iteration_F

exactly, where ``per_iteration_F`` is read from ``dis.get_instructions`` of the kernel (the
instructions from the loop's ``FOR_ITER`` to its ``JUMP_BACKWARD``, following the declared
branch outcomes) plus the whole body of every Python function the body calls once per iteration
(``CALLEES``), in the same interpreter.  Everything executed once per kernel call (prologue,
``GET_ITER``, the exhausted ``FOR_ITER``, ``END_FOR``, the return, the bracket itself) cancels.

Why families and what "corrected" means (read from 3.11.2 ``Python/ceval.c`` and 3.13.5
``Python/ceval_macros.h``/``generated_cases.c.h``; every rule below is a name-keyed table entry,
active only when the interpreter has that opcode):

1. Specialization/quickening rewrites instructions in place (``LOAD_ATTR`` -> ``LOAD_ATTR_SLOT``
   ...; 3.11 also ``*_ADAPTIVE``, ``RESUME_QUICK``, ``JUMP_BACKWARD_QUICK``,
   ``EXTENDED_ARG_QUICK``) at moments that depend on warm-up counters, so a dump splits one
   instruction's executions over several names.  A family is the base name plus its specialized
   forms (``opcode._specializations``); only family totals are compared.
2. Instructions that execute the next instruction(s) themselves and skip them, so the skipped
   ones are never counted under their own name (``IMPLIED``: each execution adds 1 to each listed
   family):

   * 3.11/3.12 superinstructions ``LOAD_FAST__LOAD_FAST``, ``LOAD_FAST__LOAD_CONST``,
     ``STORE_FAST__LOAD_FAST``, ``STORE_FAST__STORE_FAST``, ``LOAD_CONST__LOAD_FAST``: one count
     (``INSTRUCTION_START`` once; the handler does ``NEXTOPARG(); next_instr++`` for the second
     half).  The second half stays in the code unchanged, so a jump to it counts it normally.
     (3.13's ``LOAD_FAST_LOAD_FAST`` etc. are real instructions that ``dis`` shows: no rule.)
   * 3.11 ``COMPARE_OP_{INT,FLOAT,STR}_JUMP`` also perform the following
     ``POP_JUMP_{FORWARD,BACKWARD}_IF_{TRUE,FALSE}`` without saying which: those four are
     compared as one group, ``POP_JUMP_IF_TRUE/FALSE (3.11 group)`` (``GROUPS``).
   * 3.11 ``PRECALL_*`` forms that call the builtin themselves and ``SKIP_CALL()`` (+1 ``CALL``);
     ``PRECALL_NO_KW_LIST_APPEND`` also skips the ``POP_TOP`` (+1 ``CALL``, +1 ``POP_TOP``).
   * ``BINARY_OP_INPLACE_ADD_UNICODE`` performs the following ``STORE_FAST`` (3.11-3.13);
     ``CALL_NO_KW_LIST_APPEND`` (3.12) and ``CALL_LIST_APPEND`` (3.13) skip the ``POP_TOP``.
   * 3.13 ``CALL_ALLOC_AND_ENTER_INIT`` pushes a shim frame (``_Py_InitCleanup``) whose
     ``EXIT_INIT_CHECK`` and ``RETURN_VALUE`` run (and are counted) when ``__init__`` returns, but
     are in no ``dis`` output: +1 ``EXIT_INIT_CHECK``, +1 ``RETURN_VALUE``.
3. Double counts, subtracted using the dump's own specialization counters of the base opcode:

   * every specialization attempt (``specialization.success`` + ``.failure`` of a family that
     has specialized forms): the adaptive instruction is counted, specializes, then
     ``DISPATCH_SAME_OPARG()`` re-dispatches to the rewritten instruction, whose ``TARGET``
     counts it again (3.11 ``*_ADAPTIVE`` handlers, 3.12/3.13 ``_SPECIALIZE_*`` ops; in 3.13.5 the
     14 families with ``DISPATCH_SAME_OPARG`` are exactly the 14 with success/failure counters).
     3.11's ``FOR_ITER`` has no specialized forms but counts every execution as a ``failure``
     (to classify iterators, ``ceval.c:4336``): not an attempt, not subtracted;
   * 3.11 only, every miss (``specialization.miss`` of the base): ``DEOPT_IF`` jumps to ``miss:``,
     which does ``DISPATCH_GOTO()`` to the base instruction's ``TARGET`` and counts it again.  3.13
     deoptimizes with ``GO_TO_INSTRUCTION`` to a ``PREDICTED`` label placed after the count (3.12.0
     too, by reading; early 3.12 alphas may still have 3.11's ``miss:``: ``compare`` reports each
     mismatching family's misses so such a case is recognisable, and ``miss_double_counted`` in the
     table can be set by hand).
4. Not counted, nothing to do: ``CACHE`` entries; ``EXTENDED_ARG`` is counted *and* the
   instruction it extends is counted (both are in ``dis``); ``PREDICT()`` is compiled out with
   computed gotos and counts the predicted instruction when not.  ``JUMP_BACKWARD`` and the
   ``FOR_ITER`` of every iteration are in the body range; ``FOR_ITER_*`` skipping ``END_FOR`` on
   exhaustion happens once per call and cancels.

Excluded (the check refuses rather than guess): branches whose outcome is not declared,
``POP_JUMP_IF_NONE``-style jumps and 3.11 ``JUMP_IF_*_OR_POP`` (no canary uses them), nested
loops, calls that enter the interpreter from C (3.12+ count an ``INTERPRETER_EXIT`` per such call),
``INSTRUMENTED_*`` counts (tracing/monitoring active) and ``ENTER_EXECUTOR`` (tier 2): if one of
these appears in the difference the result is a mismatch that names it.  Only opcode execution
counts are checked: pair counts, call/object/GC stats are not part of the canary.

Commands (run by the built interpreter; ``/suite`` may be read-only)::

    python3 -B /suite/canaries.py expect [NAME ...]     JSON table on stdout (see ``expect_table``)
    python3 -B /suite/canaries.py run NAME N            bracket kernel NAME(N); dump at exit
    python3 -B /suite/canaries.py check TABLE.json NAME N DIR_N DIR_2N
                                                        compare two dump dirs; JSON report,
                                                        exit 0 if exact, 1 if not

The comparison functions (``parse_dump``, ``family_counts``, ``compare``) are pure and need no
particular interpreter: the host imports this module as ``pystats_harness.suite.canaries``.
``family_counts`` is useful beyond canaries: for the suite's workloads (manual path, loops 5, 10
and 15, 3.13.5 and patched 3.11.2) the corrected family totals grew by exactly the same amount per
5 loops, while 5-43 raw per-name execution counts did not (warm-up, backoff and deopt cycles move
executions between a family's names and add re-dispatches).
"""

import json
import os
import sys

# --------------------------------------------------------------------------------------------
# The kernels.  Keep bodies small (no EXTENDED_ARG), branch-free unless listed in BRANCHES, and
# free of calls from C into Python.


class _Slots:
    __slots__ = ("x", "y")


class _Plain:
    k = 5

    def __init__(self):
        self.a = 1
        self.b = 2


class _Counter:
    def __init__(self):
        self.v = 3

    def get(self):
        return self.v


def _add(a, b):
    return a + b


def arith(n):
    a = 3
    b = 7
    x = 1.5
    y = 0.25
    acc = 0
    facc = 0.0
    for i in range(n):
        t = i + a
        u = t * b
        v = u - i
        acc = (acc + v // 3 + v % 5) & 0xFFFF
        facc = facc * y + x - y
    return acc, facc


def attrs(n):
    p = _Slots()
    p.x = 1
    p.y = 2
    d = _Plain()
    acc = 0
    for i in range(n):
        p.x = i & 7
        acc = acc + p.x + p.y
        d.a = acc & 255
        acc = (acc + d.a + d.b + _Plain.k) & 0xFFFF
    return acc


def calls(n):
    c = _Counter()
    lst = []
    acc = 0
    for i in range(n):
        acc = _add(acc, i) & 0xFFFF
        acc += c.get()
        acc += len("abc") + abs(-3)
        lst.append(i)
        lst.pop()
    return acc


def branches(n):
    acc = 0
    f = 2.5
    s = "abc"
    for i in range(n):
        if i >= 0:
            acc += 1
        if f < 1.0:
            acc += 100
        if s == "abd":
            acc += 1000
        if acc:
            acc -= 1
    return acc


class _Other:
    def __init__(self):
        self.a = 4
        self.b = 5


def poly(n):
    # Polymorphic sites: int/float alternate at one BINARY_OP, two classes at one LOAD_ATTR,
    # so specialized forms miss (and deoptimize, and respecialize) all the time.
    vals = (1, 1.5)
    objs = (_Plain(), _Other())
    acc = 0.0
    for i in range(n):
        x = vals[i & 1]
        acc = (acc + x) * 0.5
        o = objs[i & 1]
        acc = acc + o.a
    return acc


def _make_extarg():
    # 300 locals, so that the loop's LOAD_FAST/STORE_FAST of v299 need EXTENDED_ARG.
    lines = ["def extarg(n):"]
    lines += ["    v%d = %d" % (k, k) for k in range(300)]
    lines += ["    for i in range(n):", "        v299 = v299 + v298 - i", "    return v299"]
    namespace = {}
    exec(compile("\n".join(lines) + "\n", "<canaries.extarg>", "exec"), namespace)
    return namespace["extarg"]


extarg = _make_extarg()

KERNELS = {"arith": arith, "attrs": attrs, "calls": calls, "branches": branches, "poly": poly, "extarg": extarg}

CALLEES = {"calls": ("_add", "_Counter.get")}
"""Python functions each iteration calls exactly once (straight-line bodies)."""

BRANCHES = {"branches": (True, False, False, True)}
"""Truth value of the value each conditional jump of one iteration pops, in execution order
(each condition is a plain comparison or name, so that value is the condition's)."""

DEFAULT_N = 2000
"""N for the N/2N pair: large enough that warm-up (quickening after 8 calls/back-edges,
specialization after the first adaptive counter expiry) ends well inside the first N."""

# --------------------------------------------------------------------------------------------
# Rules (see the module docstring).  Keys are opcode names; a rule applies when the interpreter
# has that name.

_GROUP_311_JUMPS = "POP_JUMP_IF_TRUE/FALSE (3.11 group)"

GROUPS = {
    _GROUP_311_JUMPS: (
        "POP_JUMP_FORWARD_IF_FALSE",
        "POP_JUMP_BACKWARD_IF_FALSE",
        "POP_JUMP_FORWARD_IF_TRUE",
        "POP_JUMP_BACKWARD_IF_TRUE",
    ),
}
"""Families compared as one group (only when COMPARE_OP_*_JUMP exists, i.e. 3.11)."""

_SKIP_CALL_311 = (
    "PRECALL_NO_KW_TYPE_1",
    "PRECALL_NO_KW_STR_1",
    "PRECALL_NO_KW_TUPLE_1",
    "PRECALL_BUILTIN_CLASS",
    "PRECALL_NO_KW_BUILTIN_O",
    "PRECALL_NO_KW_BUILTIN_FAST",
    "PRECALL_BUILTIN_FAST_WITH_KEYWORDS",
    "PRECALL_NO_KW_LEN",
    "PRECALL_NO_KW_ISINSTANCE",
    "PRECALL_NO_KW_METHOD_DESCRIPTOR_O",
    "PRECALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS",
    "PRECALL_NO_KW_METHOD_DESCRIPTOR_NOARGS",
    "PRECALL_NO_KW_METHOD_DESCRIPTOR_FAST",
)

IMPLIED = {
    # 3.11 / 3.12 superinstructions (the family of the name itself gets the first half).
    "LOAD_FAST__LOAD_FAST": {"LOAD_FAST": 1},
    "LOAD_FAST__LOAD_CONST": {"LOAD_CONST": 1},
    "STORE_FAST__LOAD_FAST": {"LOAD_FAST": 1},
    "STORE_FAST__STORE_FAST": {"STORE_FAST": 1},
    "LOAD_CONST__LOAD_FAST": {"LOAD_FAST": 1},
    # 3.11 compare-and-branch specializations.
    "COMPARE_OP_INT_JUMP": {_GROUP_311_JUMPS: 1},
    "COMPARE_OP_FLOAT_JUMP": {_GROUP_311_JUMPS: 1},
    "COMPARE_OP_STR_JUMP": {_GROUP_311_JUMPS: 1},
    # 3.11 PRECALL forms that do the call.
    "PRECALL_NO_KW_LIST_APPEND": {"CALL": 1, "POP_TOP": 1},
    # 3.11-3.13
    "BINARY_OP_INPLACE_ADD_UNICODE": {"STORE_FAST": 1},
    # 3.12 / 3.13
    "CALL_NO_KW_LIST_APPEND": {"POP_TOP": 1},
    "CALL_LIST_APPEND": {"POP_TOP": 1},
    # 3.13 __init__ shim frame
    "CALL_ALLOC_AND_ENTER_INIT": {"EXIT_INIT_CHECK": 1, "RETURN_VALUE": 1},
}
IMPLIED.update({name: {"CALL": 1} for name in _SKIP_CALL_311})

_UNCONDITIONAL = frozenset(
    ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_ABSOLUTE")
)
_RETURNS = frozenset(("RETURN_VALUE", "RETURN_CONST"))


class CanaryError(Exception):
    """A kernel cannot be counted statically (unsupported control flow)."""


# --------------------------------------------------------------------------------------------
# In-interpreter part: opcode tables and expected per-iteration counts.


def opcode_names():
    """``{number: name}`` for every opcode this interpreter can execute (specialized included)."""
    import dis
    import opcode

    names = {}
    for mapping in (getattr(dis, "_all_opmap", None), getattr(opcode, "_specialized_opmap", None), opcode.opmap):
        for name, num in (mapping or {}).items():
            names.setdefault(num, name)
    return names


def specializations():
    """``{specialized name: base name}`` (``opcode._specializations``, 3.11+)."""
    import opcode

    specs = getattr(opcode, "_specializations", None)
    if specs is None:
        try:
            from _opcode_metadata import _specializations as specs  # 3.14+
        except ImportError:
            specs = {}
    return {spec: base for base, members in specs.items() for spec in members}


def _resolve(qualname):
    obj = globals()
    parts = qualname.split(".")
    target = obj[parts[0]]
    for part in parts[1:]:
        target = getattr(target, part)
    return target


def _instructions(func):
    import dis

    return list(dis.get_instructions(func))


def _is_conditional(name):
    return name.startswith("POP_JUMP_") and ("IF_TRUE" in name or "IF_FALSE" in name)


def walk_loop(func, outcomes=()):
    """Instruction names executed by one iteration of ``func``'s only ``for`` loop, in order.

    Starts at the ``FOR_ITER``, follows fall-through and jumps (conditional jumps decided by
    ``outcomes``, the truth of each popped value in execution order) and ends with the
    ``JUMP_BACKWARD`` that returns to the ``FOR_ITER``.  Raises CanaryError on anything else.
    """
    insts = _instructions(func)
    heads = [k for k, ins in enumerate(insts) if ins.opname == "FOR_ITER"]
    if len(heads) != 1:
        raise CanaryError("%s: need exactly one FOR_ITER, found %d" % (func.__name__, len(heads)))
    by_offset = {ins.offset: k for k, ins in enumerate(insts)}
    head = heads[0]
    head_offset = insts[head].offset
    executed = [insts[head].opname]
    pending = list(outcomes)
    k = head + 1
    for _ in range(10000):
        ins = insts[k]
        name = ins.opname
        executed.append(name)
        if name in _UNCONDITIONAL:
            if ins.argval == head_offset:
                if pending:
                    raise CanaryError("%s: %d declared branch outcomes unused" % (func.__name__, len(pending)))
                return executed
            if ins.argval not in by_offset:
                raise CanaryError("%s: jump target %r not an instruction" % (func.__name__, ins.argval))
            k = by_offset[ins.argval]
            continue
        if _is_conditional(name):
            if not pending:
                raise CanaryError("%s: undeclared branch at offset %d (%s)" % (func.__name__, ins.offset, name))
            value = pending.pop(0)
            taken = value if "IF_TRUE" in name else not value
            k = by_offset[ins.argval] if taken else k + 1
            continue
        if "JUMP" in name or name in _RETURNS or name in ("FOR_ITER", "SEND", "RAISE_VARARGS", "RERAISE"):
            raise CanaryError("%s: unsupported control flow %s at offset %d" % (func.__name__, name, ins.offset))
        k += 1
    raise CanaryError("%s: loop body does not return to its FOR_ITER" % func.__name__)


def walk_straight(func):
    """Instruction names of a straight-line function body, from the first to the return."""
    executed = []
    for ins in _instructions(func):
        name = ins.opname
        executed.append(name)
        if name in _RETURNS:
            return executed
        if "JUMP" in name or name in ("FOR_ITER", "SEND", "RAISE_VARARGS", "RERAISE"):
            raise CanaryError("%s: callee is not straight-line (%s)" % (func.__qualname__, name))
    raise CanaryError("%s: no return found" % func.__qualname__)


def per_iteration(name):
    """``{opname: count}`` of one iteration of canary ``name`` (loop body + callees), from dis."""
    counts = {}
    executed = walk_loop(KERNELS[name], BRANCHES.get(name, ()))
    for callee in CALLEES.get(name, ()):
        executed += walk_straight(_resolve(callee))
    for op in executed:
        counts[op] = counts.get(op, 0) + 1
    return counts


def expect_table(names=None):
    """Everything the comparison needs, computed in (and valid for) the running interpreter.

    ``{"python": "3.13.5", "hexversion": int, "names": {number: name},
       "families": {specialized: base}, "implied": {name: {family: n}},
       "groups": {group: [families]}, "miss_double_counted": bool,
       "attempt_double_counted": true,
       "canaries": {canary: {"per_iteration": {opname: n},
                             "per_iteration_by_number": {number: n}}}}``
    (JSON object keys are strings, numbers included.)
    """
    names_by_number = opcode_names()
    number_by_name = {v: k for k, v in names_by_number.items()}
    known = set(number_by_name)
    implied = {k: v for k, v in IMPLIED.items() if k in known}
    groups = {}
    if any(k.startswith("COMPARE_OP_") and k.endswith("_JUMP") for k in known):
        groups = {g: [m for m in members if m in known] for g, members in GROUPS.items()}
    canaries = {}
    for name in names or KERNELS:
        counts = per_iteration(name)
        canaries[name] = {
            "per_iteration": counts,
            "per_iteration_by_number": {str(number_by_name[op]): n for op, n in counts.items()},
        }
    return {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "hexversion": sys.hexversion,
        "names": {str(k): v for k, v in sorted(names_by_number.items())},
        "families": specializations(),
        "implied": implied,
        "groups": groups,
        "miss_double_counted": sys.version_info < (3, 12),
        "attempt_double_counted": True,
        "canaries": canaries,
    }


# --------------------------------------------------------------------------------------------
# Pure part: parse dumps, correct, compare.

_FIELDS = ("execution_count", "success", "failure", "miss")


def parse_dump(text):
    """Opcode counters of one dump text (or several concatenated; values are summed).

    Returns ``{opcode key: {"execution_count": n, "success": n, "failure": n, "miss": n}}`` where
    the key is the text between ``opcode[`` and ``]`` (a number in 3.11/3.12, a name in 3.13+).
    Other lines are ignored.
    """
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("opcode[") or ":" not in line:
            continue
        key, _, value = line.rpartition(":")
        key = key.strip()
        close = key.find("]")
        op = key[len("opcode[") : close]
        rest = key[close + 1 :]
        if rest == ".execution_count":
            field = "execution_count"
        elif rest.startswith(".specialization.") and rest[len(".specialization.") :] in _FIELDS:
            field = rest[len(".specialization.") :]
        else:
            continue
        entry = out.setdefault(op, dict.fromkeys(_FIELDS, 0))
        entry[field] += int(value)
    return out


def parse_dump_dir(path):
    """``parse_dump`` over every ``*.txt`` file in ``path``."""
    texts = []
    for fname in sorted(os.listdir(path)):
        if fname.endswith(".txt"):
            with open(os.path.join(path, fname)) as f:
                texts.append(f.read())
    return parse_dump("\n".join(texts))


def _name(key, table):
    key = str(key)
    return table["names"].get(key, key) if key.isdigit() else key


def _group_of(family, table):
    for group, members in table.get("groups", {}).items():
        if family in members:
            return group
    return family


def family_counts(dump, table):
    """Corrected execution count per family (or group) of one parsed dump.

    ``dump`` is ``parse_dump`` output, or a plain ``{name-or-number: execution_count}`` (then no
    double-count correction is possible and none is made).  Returns ``{family: count}``.
    """
    families = table.get("families", {})
    implied = table.get("implied", {})
    specializable = set(families.values())
    totals = {}

    def add(family, n):
        if n:
            g = _group_of(family, table)
            totals[g] = totals.get(g, 0) + n

    for key, entry in dump.items():
        name = _name(key, table)
        if isinstance(entry, int):
            entry = {"execution_count": entry}
        family = families.get(name, name)
        execs = entry.get("execution_count", 0)
        add(family, execs)
        for other, k in implied.get(name, {}).items():
            add(other, k * execs)
        if name == family:  # the base entry carries the family's specialization counters
            # Only families with specialized forms make attempts; 3.11 FOR_ITER (none) counts
            # every execution as a "failure" just to classify iterators (ceval.c:4336).
            if table.get("attempt_double_counted", True) and family in specializable:
                add(family, -(entry.get("success", 0) + entry.get("failure", 0)))
            if table.get("miss_double_counted", False):
                add(family, -entry.get("miss", 0))
    return totals


def _family_events(dump, table):
    """``{family: (attempts, misses)}`` from the base entries' specialization counters."""
    families = table.get("families", {})
    out = {}
    for key, entry in dump.items():
        name = _name(key, table)
        if isinstance(entry, int) or families.get(name, name) != name:
            continue
        out[_group_of(name, table)] = (entry.get("success", 0) + entry.get("failure", 0), entry.get("miss", 0))
    return out


def expected_family_counts(per_iteration_counts, table):
    """``{family or group: n}`` from a ``{opname: n}`` per-iteration table."""
    out = {}
    families = table.get("families", {})
    for name, n in per_iteration_counts.items():
        g = _group_of(families.get(name, name), table)
        out[g] = out.get(g, 0) + n
    return out


def compare(dump_n, dump_2n, n, expected, table):
    """Mismatches between ``family_counts(dump_2n) - family_counts(dump_n)`` and ``n * expected``.

    ``expected`` is a canary's ``per_iteration`` ``{opname: count}`` (or the
    ``per_iteration_by_number`` form; numbers are mapped with ``table["names"]``).  Returns a list
    of ``{"family", "expected", "observed", "difference", "attempts", "misses"}`` dicts sorted by
    family, empty when every family is exact; ``attempts``/``misses`` are the family's
    specialization attempts and misses in the 2N - N difference (a difference equal to one of them
    points at a double count the table does not describe, e.g. an early 3.12 alpha that still
    re-dispatches misses like 3.11).  Families absent from both sides are not listed.
    """
    low = family_counts(dump_n, table)
    high = family_counts(dump_2n, table)
    want = expected_family_counts({_name(k, table): v for k, v in expected.items()}, table)
    ev_low = _family_events(dump_n, table)
    ev_high = _family_events(dump_2n, table)
    mismatches = []
    for family in sorted(set(low) | set(high) | set(want)):
        observed = high.get(family, 0) - low.get(family, 0)
        exp = n * want.get(family, 0)
        if observed != exp:
            a_low, m_low = ev_low.get(family, (0, 0))
            a_high, m_high = ev_high.get(family, (0, 0))
            mismatches.append(
                {
                    "family": family,
                    "expected": exp,
                    "observed": observed,
                    "difference": observed - exp,
                    "attempts": a_high - a_low,
                    "misses": m_high - m_low,
                }
            )
    return mismatches


# --------------------------------------------------------------------------------------------
# Command line.


def _run(name, n):
    kernel = KERNELS[name]
    on = getattr(sys, "_stats_on", None)
    off = getattr(sys, "_stats_off", None)
    if on is None or off is None:
        print(
            "WARNING: no sys._stats_on: the dump covers the whole process (the N/2N "
            "difference still cancels everything but the loop)",
            file=sys.stderr,
        )
        kernel(n)
        return 0
    on()
    kernel(n)
    off()
    return 0


def main(argv=None):
    sys.dont_write_bytecode = True
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("expect", "run", "check"):
        print(__doc__.split("Commands")[1], file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "expect":
        bad = [r for r in rest if r not in KERNELS]
        if bad:
            print("unknown canaries: %s" % ", ".join(bad), file=sys.stderr)
            return 2
        json.dump(expect_table(rest or None), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if cmd == "run":
        if len(rest) != 2 or rest[0] not in KERNELS or not rest[1].isdigit():
            print("usage: canaries.py run {%s} N" % ",".join(KERNELS), file=sys.stderr)
            return 2
        return _run(rest[0], int(rest[1]))
    if len(rest) != 5 or not rest[2].isdigit():
        print("usage: canaries.py check TABLE.json NAME N DIR_N DIR_2N", file=sys.stderr)
        return 2
    with open(rest[0]) as f:
        table = json.load(f)
    name, n = rest[1], int(rest[2])
    mismatches = compare(
        parse_dump_dir(rest[3]), parse_dump_dir(rest[4]), n, table["canaries"][name]["per_iteration"], table
    )
    json.dump(
        {"canary": name, "n": n, "python": table.get("python"), "exact": not mismatches, "mismatches": mismatches},
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")
    return 0 if not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
