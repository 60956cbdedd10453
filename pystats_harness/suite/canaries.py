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

"Corrected": ``canary_rules.py`` (name-keyed rules, each applied only where the revision's own
handlers, read by ``canary_source.py`` from ``/src``, show it).  The ``dis`` walk:
``canary_expect.py``; dumps and comparing: ``canary_counts.py`` (siblings, stdlib only).  What
cannot be counted statically on a revision (a walk refused, a rule undetermined) is reported so.

Commands (run by the built interpreter; ``/suite`` may be read-only)::

    python3 -B /suite/canaries.py expect [--source DIR] [NAME ...]
                                                        JSON table on stdout (see ``expect_table``;
                                                        DIR: the build's source subset, /src)
    python3 -B /suite/canaries.py run NAME N            bracket kernel NAME(N); dump at exit
    python3 -B /suite/canaries.py check TABLE.json NAME N DIR_N DIR_2N
                                                        compare two dump dirs; JSON report,
                                                        exit 0 if exact, 1 if not

The comparison functions (``parse_dump``, ``family_counts``, ``compare``) are pure: the host imports
this module as ``pystats_harness.suite.canaries``.  ``family_counts`` also serves the leakage step:
corrected family totals of a workload grow exactly per loop, raw per-name counts do not.
"""

import json
import os
import sys

if __package__:  # imported as pystats_harness.suite.canaries (the host, the unit tests)
    from . import canary_counts, canary_expect, canary_rules, canary_source, canary_trace
else:  # run as /suite/canaries.py (or imported as top-level ``canaries``): the siblings are top-level
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)
    import canary_counts
    import canary_expect
    import canary_rules
    import canary_source
    import canary_trace

# Re-exported: the siblings' public names stay importable from here (the host and the tests use them).
CanaryError = canary_expect.CanaryError
opcode_names = canary_expect.opcode_names
specializations = canary_expect.specializations
walk_loop = canary_expect.walk_loop
walk_straight = canary_expect.walk_straight
parse_dump = canary_counts.parse_dump
parse_dump_dir = canary_counts.parse_dump_dir
family_counts = canary_counts.family_counts
expected_family_counts = canary_counts.expected_family_counts
compare = canary_counts.compare

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

SOURCE_ROOT = "/src"
"""Where run containers mount the build's source subset (read-only)."""

DEFAULT_N = 2000
"""N for the N/2N pair: large enough that warm-up (quickening after 8 calls/back-edges,
specialization after the first adaptive counter expiry) ends well inside the first N."""

# --------------------------------------------------------------------------------------------
# In-interpreter part: expected per-iteration counts (the walk and the tables: ``canary_expect``).


def _resolve(qualname):
    first, *rest = qualname.split(".")
    target = globals()[first]
    for part in rest:
        target = getattr(target, part)
    return target


def per_iteration(name, skipped_after=None):
    """``{opname: count}`` of one iteration of canary ``name`` (loop body + callees), from dis."""
    counts = {}
    executed = walk_loop(KERNELS[name], BRANCHES.get(name, ()), skipped_after)
    for callee in CALLEES.get(name, ()):
        executed += walk_straight(_resolve(callee))
    for op in executed:
        counts[op] = counts.get(op, 0) + 1
    return counts


def expect_table(names=None, source_root=SOURCE_ROOT):
    """Everything the comparison needs, computed in (and valid for) the running interpreter.

    ``{"python": "3.13.5", "version": "3.13.5", "hexversion": int, "names": {number: name},
       "families": {specialized: base}, "source": source facts or null,
       "implied": {name: {family: n}}, "skipped_after": {jump: [names]}, "groups": {group: [families]},
       "miss_double_counted": bool, "attempt_double_counted": bool, "deferred_rule": {"applied", "why"},
       "undetermined": [{"rule", "families", "why"}], "rules": {rule: decision and evidence},
       "canaries": {canary: {"per_iteration": {opname: n}, "per_iteration_by_number": {number: n}}
                            or {"cannot_count": why}}}``
    (JSON object keys are strings, numbers included; ``canary_rules`` explains the rules.)
    """
    names_by_number = opcode_names()
    number_by_name = {v: k for k, v in names_by_number.items()}
    files = canary_source.read_files(source_root) if source_root else {}
    facts = canary_source.source_facts(files, set(number_by_name)) if files else None
    table = canary_rules.interpreter_table(names_by_number, specializations(), facts)
    canaries = {}
    for name in names or KERNELS:
        try:
            counts = per_iteration(name, table["skipped_after"])
        except CanaryError as exc:
            canaries[name] = {"cannot_count": "cannot count canary %s statically on this revision: %s" % (name, exc)}
            continue
        canaries[name] = {
            "per_iteration": counts,
            "per_iteration_by_number": {str(number_by_name[op]): n for op, n in counts.items()},
        }
    return dict(table, canaries=canaries)


# --------------------------------------------------------------------------------------------
# Command line.


def _run(name, n):
    on, off = getattr(sys, "_stats_on", None), getattr(sys, "_stats_off", None)
    if on is None or off is None:
        print("WARNING: no sys._stats_on: the dump covers the whole process (N/2N still cancels)", file=sys.stderr)
        on = off = lambda: None
    on()
    KERNELS[name](n)
    off()
    canary_trace.report(KERNELS[name])  # a tracing build: the loop's trace (not counted: after the bracket)
    return 0


def main(argv=None):
    sys.dont_write_bytecode = True
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("expect", "run", "check"):
        print(__doc__.split("Commands")[1], file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "expect":
        source = SOURCE_ROOT
        if rest[:1] == ["--source"] and len(rest) >= 2:
            source, rest = rest[1], rest[2:]
        bad = [r for r in rest if r not in KERNELS]
        if bad:
            print("unknown canaries: %s" % ", ".join(bad), file=sys.stderr)
            return 2
        json.dump(expect_table(rest or None, source), sys.stdout, indent=1, sort_keys=True)
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
    return canary_counts.check(rest)


if __name__ == "__main__":
    sys.exit(main())
