"""Canary expectations, the in-interpreter part: this interpreter's opcode tables and the ``dis``
walk of one loop iteration (``canaries.per_iteration``).  The corrections that make dump counts
comparable with the walk are ``canary_rules``; the facts they are decided on, ``canary_source``.

``canaries.py`` imports this module as a sibling (stdlib only, nothing from ``pystats_harness``);
its names are re-exported there.

The walk follows ``dis.get_instructions`` from the loop's ``FOR_ITER`` to its ``JUMP_BACKWARD``:
fall-through, unconditional jumps, and ``POP_JUMP_*_IF_TRUE/FALSE`` decided by the declared
outcomes.  Excluded (the walk raises ``CanaryError``, and the canary then says it cannot be counted
statically on this revision rather than guess): branches whose outcome is not declared, any other
instruction of the interpreter's jump tables (``opcode.hasjrel``/``hasjabs``/``hasjump``:
``POP_JUMP_IF_NONE``-style jumps, 3.11 ``JUMP_IF_*_OR_POP``, ...), nested loops, returns, ``SEND``
and raises.  Not excluded by the walk but visible as a mismatch that names them: calls that enter
the interpreter from C (3.12+ count an ``INTERPRETER_EXIT`` per such call), ``INSTRUMENTED_*``
counts (tracing/monitoring active) and ``ENTER_EXECUTOR`` (tier 2).  Only opcode execution counts
are checked: pair counts, call/object/GC stats are not part of the canary.
"""

if __package__:  # pystats_harness.suite.canary_expect (the host)
    from .canary_rules import is_conditional_jump
else:  # top-level, imported by /suite/canaries.py (its directory is on sys.path)
    from canary_rules import is_conditional_jump

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
    if not hasattr(dis, "_all_opmap") and not hasattr(opcode, "_specialized_opmap"):
        # main before Mar 2022: the specialized instructions take the free numbers from 1 up, in
        # the order of opcode._specialized_instructions (as Include/opcode.h was generated).
        free = [num for num in range(1, 256) if num not in names]
        for num, name in zip(free, getattr(opcode, "_specialized_instructions", ())):
            names[num] = name
    return names


def families_from_instructions(specialized, bases):
    """``{base: [specialized, ...]}`` derived from a flat list of specialized instruction names, for
    interpreters older than ``opcode._specializations`` (main before 2bde6827ea, Mar 2022, whose
    ``_specialized_instructions`` has no families), by the naming that table later made explicit:
    ``A__B`` belongs to ``A``, ``X_ADAPTIVE`` and ``X_QUICK`` to ``X``, and any other name to the
    longest adaptive base it starts with.  Only names of ``bases`` (the base opcodes) are bases."""
    bases = set(bases)
    adaptive = sorted((n[: -len("_ADAPTIVE")] for n in specialized if n.endswith("_ADAPTIVE")), key=len, reverse=True)
    families = {}
    for name in specialized:
        if "__" in name:
            base = name.split("__")[0]
        elif name.endswith(("_ADAPTIVE", "_QUICK")):
            base = name.rsplit("_", 1)[0]
        else:
            base = next((b for b in adaptive if name.startswith(b + "_")), None)
        if base in bases:
            families.setdefault(base, []).append(name)
    return families


def specializations():
    """``{specialized name: base name}`` (``opcode._specializations``, 3.11+; before it existed,
    derived from ``opcode._specialized_instructions``)."""
    import opcode

    specs = getattr(opcode, "_specializations", None)
    if specs is None:
        try:
            from _opcode_metadata import _specializations as specs  # 3.14+
        except ImportError:
            flat = getattr(opcode, "_specialized_instructions", ())
            specs = families_from_instructions(flat, opcode.opmap)
    return {spec: base for base, members in specs.items() for spec in members}


def _instructions(func):
    import dis

    return list(dis.get_instructions(func))


def jump_opcodes():
    """Numbers of the instructions this interpreter's tables say jump (``hasjrel``, ``hasjabs``,
    3.13's ``hasjump``)."""
    import opcode

    return {op for table in ("hasjrel", "hasjabs", "hasjump") for op in getattr(opcode, table, ())}


def _unsupported(ins, jumps):
    return (
        "JUMP" in ins.opname
        or ins.opcode in jumps
        or ins.opname in _RETURNS
        or ins.opname in ("FOR_ITER", "SEND", "RAISE_VARARGS", "RERAISE")
    )


def walk_loop(func, outcomes=(), skipped_after=None):
    """Instruction names executed by one iteration of ``func``'s only ``for`` loop, in order.

    Starts at the ``FOR_ITER``, follows fall-through and jumps (conditional jumps decided by
    ``outcomes``, the truth of each popped value in execution order) and ends with the
    ``JUMP_BACKWARD`` that returns to the ``FOR_ITER``.  ``skipped_after``: ``{jump: [names]}``, the
    instructions a conditional jump steps over when it is not taken (3.14's ``NOT_TAKEN``; see
    ``canary_rules``): not executed.  Raises CanaryError on anything else.
    """
    skipped_after = skipped_after or {}
    insts = _instructions(func)
    jumps = jump_opcodes()
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
        if is_conditional_jump(name):
            if not pending:
                raise CanaryError("%s: undeclared branch at offset %d (%s)" % (func.__name__, ins.offset, name))
            value = pending.pop(0)
            taken = value if "IF_TRUE" in name else not value
            steps = 2 if k + 1 < len(insts) and insts[k + 1].opname in skipped_after.get(name, ()) else 1
            k = by_offset[ins.argval] if taken else k + steps
            continue
        if _unsupported(ins, jumps):
            raise CanaryError("%s: unsupported control flow %s at offset %d" % (func.__name__, name, ins.offset))
        k += 1
    raise CanaryError("%s: loop body does not return to its FOR_ITER" % func.__name__)


def walk_straight(func):
    """Instruction names of a straight-line function body, from the first to the return."""
    executed = []
    jumps = jump_opcodes()
    for ins in _instructions(func):
        name = ins.opname
        executed.append(name)
        if name in _RETURNS:
            return executed
        if _unsupported(ins, jumps):
            raise CanaryError("%s: callee is not straight-line (%s)" % (func.__qualname__, name))
    raise CanaryError("%s: no return found" % func.__qualname__)
