"""Canary expectations, the in-interpreter part: the rule tables, this interpreter's opcode tables,
the ``dis`` walk of one loop iteration and the interpreter's half of the ``expect`` table.

``canaries.py`` imports this module as a sibling (stdlib only, nothing from ``pystats_harness``);
its names are re-exported there.

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
"""

import sys

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
# In-interpreter part: opcode tables and the walk of one iteration (per_iteration: canaries.py).


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


def interpreter_table(names_by_number):
    """The part of ``canaries.expect_table`` that depends on the running interpreter only (all of it
    but ``"canaries"``); ``names_by_number`` is ``opcode_names()``."""
    number_by_name = {v: k for k, v in names_by_number.items()}
    known = set(number_by_name)
    implied = {k: v for k, v in IMPLIED.items() if k in known}
    groups = {}
    if any(k.startswith("COMPARE_OP_") and k.endswith("_JUMP") for k in known):
        groups = {g: [m for m in members if m in known] for g, members in GROUPS.items()}
    return {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "hexversion": sys.hexversion,
        "names": {str(k): v for k, v in sorted(names_by_number.items())},
        "families": specializations(),
        "implied": implied,
        "groups": groups,
        "miss_double_counted": sys.version_info < (3, 12),
        "attempt_double_counted": True,
    }
