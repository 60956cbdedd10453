"""Canary correction rules: name-keyed tables, each entry applied only where the build shows it.

``canaries.py expect`` resolves these tables against the running interpreter (its ``opcode``/``dis``
tables) and the facts ``canary_source`` read from the revision's own handlers (``/src``); release
numbers decide nothing.  A rule for an instruction the interpreter has is *applied* (the source
shows it), *not applied* (the source shows otherwise) or *undetermined* (no source, or no handler
for it): then the families it touches cannot be counted statically, and the canary says so
instead of judging the interpreter.  ``table["rules"]`` records the decision and its evidence.

Why families, and the rules (read from 3.11.2 ``Python/ceval.c``, main 1583c6e326 and 3.12.0
``Python/bytecodes.c``/``generated_cases.c.h``, 3.13.5 ``generated_cases.c.h``):

1. Specialization rewrites instructions in place at moments that depend on warm-up counters, so a
   dump splits one instruction's executions over several names: a family is the base name plus
   its specialized forms (``opcode._specializations``); only family totals are compared.
2. ``IMPLIED``: instructions that also perform what follows them, which is then never counted
   under its own name (each execution adds the listed count to each listed family).  ``WITNESS``
   says what the handler must show for the rule to apply:

   * superinstructions ``LOAD_FAST__LOAD_FAST``, ``LOAD_FAST__LOAD_CONST``, ``STORE_FAST__LOAD_FAST``,
     ``STORE_FAST__STORE_FAST``, ``LOAD_CONST__LOAD_FAST`` (3.11, 3.12): one count, the handler reads
     the second half's oparg itself (``super``: a ``super(NAME) = A + B`` declaration naming the
     implied instruction, or, without ``bytecodes.c``, ``NEXTOPARG()`` in the handler);
   * ``COMPARE_OP_{INT,FLOAT,STR}_JUMP`` (3.11 and main until GH-100983, Jan 2023) and the
     ``COMPARE_AND_BRANCH`` family (main Jan-Mar 2023) perform the conditional jump that follows
     without the dump saying which: the jumps their handlers assert (3.11: ``POP_JUMP_{FORWARD,
     BACKWARD}_IF_{TRUE,FALSE}``; 3.12 development: ``POP_JUMP_IF_{TRUE,FALSE}``) are compared as
     one group, ``JUMP_GROUP`` (members: ``table["groups"]``).  ``COMPARE_AND_BRANCH_{INT,FLOAT,
     STR}`` assert nothing themselves: they take the jump's oparg (``next_instr[1].op.arg``) and
     step over it, and their base ``COMPARE_AND_BRANCH`` asserts which jumps can follow;
   * ``FOR_ITER_RANGE`` stores the loop variable itself and skips the ``STORE_FAST`` (main from
     GH-91432, Jun 2022, until GH-101985, Feb 2023; its handler asserts ``STORE_FAST`` follows;
     3.12.0's pushes the value instead);
   * ``BINARY_OP_INPLACE_ADD_UNICODE`` performs the following ``STORE_FAST`` (3.11-3.13);
     ``PRECALL_NO_KW_LIST_APPEND`` (3.11, +``CALL``), ``CALL_NO_KW_LIST_APPEND`` (3.12) and
     ``CALL_LIST_APPEND`` (3.13) skip the ``POP_TOP`` (their handlers assert what they skip);
   * 3.11 ``PRECALL_*`` forms that call the builtin themselves and ``SKIP_CALL()`` (+1 ``CALL``);
   * the other way round, 3.13+ ``CALL_ALLOC_AND_ENTER_INIT`` pushes a shim frame
     (``_Py_InitCleanup``, whose first instruction it asserts is ``EXIT_INIT_CHECK``) whose
     ``EXIT_INIT_CHECK`` and ``RETURN_VALUE`` run, and are counted, when ``__init__`` returns, but
     are in no ``dis`` output: -1 each (measured, 1,000 specialized ``A(i)`` calls: 1,000
     ``EXIT_INIT_CHECK`` on v3.13.5 and v3.14.7; ``RETURN_VALUE`` 1,000 on 3.13.5, where
     ``__init__`` returns by ``RETURN_CONST``, and 2,001 on 3.14.7). Until 2026-12-07 this was +1,
     counting the shim twice: a manual run's fixed part was off by two per ``__init__`` call made
     before ``CALL`` specialized (richards on v3.14.7: 105 executions, over the slack of 64).
3. Double counts, subtracted using the dump's own specialization counters of the base opcode:

   * every specialization attempt (``success`` + ``failure`` of a family with specialized forms),
     where ``DISPATCH_SAME_OPARG()`` re-dispatches to the rewritten instruction, whose ``TARGET``
     counts it again (all revisions read so far).  3.11's ``FOR_ITER`` has no specialized forms but
     counts every execution as a ``failure`` (to classify iterators): not an attempt;
   * every miss (``miss`` of the base) where ``DEOPT_IF`` jumps to ``miss:``, which re-dispatches to
     the base instruction's ``TARGET`` (3.11); not where it goes to the ``PREDICTED`` label placed
     after the count (main since GH-98831, Nov 2022, 3.12.0, 3.13).
4. ``SKIPPED``: 3.14's conditional jumps step over the ``NOT_TAKEN`` after them when not taken
   (``next_instr->op.code == NOT_TAKEN`` in their handlers, ``skips_next``), so it is never counted
   uninstrumented; the walk leaves it out where the handlers show it.
5. Not counted, nothing to do: ``CACHE`` entries; ``EXTENDED_ARG`` is counted *and* the instruction
   it extends is counted (both are in ``dis``); ``PREDICT()`` is compiled out with computed gotos
   and counts the predicted instruction when not; ``FOR_ITER_*`` skipping ``END_FOR`` on
   exhaustion happens once per call and cancels.

Stdlib only (runs inside the built interpreter); the host tests resolve captured tables with it.
"""

import sys

JUMP_GROUP = "POP_JUMP_IF_TRUE/FALSE (compare-jump group)"
"""The group of conditional jumps an instruction performs without the dump saying which."""

_SUPERS = {
    "LOAD_FAST__LOAD_FAST": "LOAD_FAST",
    "LOAD_FAST__LOAD_CONST": "LOAD_CONST",
    "STORE_FAST__LOAD_FAST": "LOAD_FAST",
    "STORE_FAST__STORE_FAST": "STORE_FAST",
    "LOAD_CONST__LOAD_FAST": "LOAD_FAST",
}
_COMPARE_JUMPS = ("COMPARE_OP_INT_JUMP", "COMPARE_OP_FLOAT_JUMP", "COMPARE_OP_STR_JUMP", "COMPARE_AND_BRANCH")
_BRANCH_FORMS = ("COMPARE_AND_BRANCH_INT", "COMPARE_AND_BRANCH_FLOAT", "COMPARE_AND_BRANCH_STR")
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
    **{name: {second: 1} for name, second in _SUPERS.items()},
    **{name: {JUMP_GROUP: 1} for name in _COMPARE_JUMPS + _BRANCH_FORMS},
    "FOR_ITER_RANGE": {"STORE_FAST": 1},
    "BINARY_OP_INPLACE_ADD_UNICODE": {"STORE_FAST": 1},
    "PRECALL_NO_KW_LIST_APPEND": {"CALL": 1, "POP_TOP": 1},
    "CALL_NO_KW_LIST_APPEND": {"POP_TOP": 1},
    "CALL_LIST_APPEND": {"POP_TOP": 1},
    "CALL_ALLOC_AND_ENTER_INIT": {"EXIT_INIT_CHECK": -1, "RETURN_VALUE": -1},
    **{name: {"CALL": 1} for name in _SKIP_CALL_311},
}
"""``{instruction: {family or group: executions it performs per execution of its own}}``; a negative
count: executions the dump counts under that family per execution of the instruction that no ``dis``
shows (the ``__init__`` shim's)."""

WITNESS = {
    **{name: ("super", second) for name, second in _SUPERS.items()},
    **{name: ("asserts", JUMP_GROUP) for name in _COMPARE_JUMPS},
    **{name: ("base_asserts", JUMP_GROUP) for name in _BRANCH_FORMS},
    "FOR_ITER_RANGE": ("asserts", "STORE_FAST"),
    "BINARY_OP_INPLACE_ADD_UNICODE": ("asserts", "STORE_FAST"),
    "PRECALL_NO_KW_LIST_APPEND": ("asserts", "POP_TOP"),
    "CALL_NO_KW_LIST_APPEND": ("asserts", "POP_TOP"),
    "CALL_LIST_APPEND": ("asserts", "POP_TOP"),
    "CALL_ALLOC_AND_ENTER_INIT": ("asserts", "EXIT_INIT_CHECK"),
    **{name: ("skip_call", "CALL") for name in _SKIP_CALL_311},
}
"""``{instruction: (fact, value)}``: what its handler must show (``canary_source`` facts) for the
``IMPLIED`` rule of the same name to apply; ``("asserts", JUMP_GROUP)`` means any conditional jump;
``("base_asserts", JUMP_GROUP)``: the handler reads the oparg of the instruction after its caches
and its family's base handler asserts which conditional jumps that is."""

SKIPPED = ("NOT_TAKEN",)
"""Instructions that ``dis`` shows after a conditional jump but that the jump steps over when it is
not taken, where its handler tests for them (3.14: ``JUMPBY(flag ? oparg : next_instr->op.code ==
NOT_TAKEN)``; ``NOT_TAKEN`` runs only when instrumented for ``sys.monitoring`` branch events): the
walk does not count them (``skipped_after``)."""

GROUPS = (JUMP_GROUP,)
"""Group names; a group's members are the conditional jumps the handlers of its rules assert."""


def is_conditional_jump(name):
    return name.startswith("POP_JUMP_") and ("_IF_TRUE" in name or "_IF_FALSE" in name)


def _jumps(facts, known):
    return [n for n in facts.get("asserts", []) if is_conditional_jump(n) and n in known]


def _witnessed(name, facts, known, base_facts):
    """``(applies, evidence, group members shown)`` for the rule ``name`` given its handler's
    ``facts`` (and those of its family's base handler)."""
    kind, value = WITNESS[name]
    if kind == "base_asserts":
        members = _jumps(base_facts, known) if facts.get("reads_later_oparg") else []
        reads = "reads" if facts.get("reads_later_oparg") else "does not read"
        shown = ", ".join(_jumps(base_facts, known)) or "no conditional jump"
        return bool(members), "handler %s the oparg after its caches; its base asserts %s" % (reads, shown), members
    if kind == "super":
        if "super" in facts:
            ok = value in facts["super"][1:]
            return ok, "super(%s) = %s" % (name, " + ".join(facts["super"])), []
        ok = bool(facts.get("reads_next"))
        return ok, "handler %s the next oparg itself" % ("reads" if ok else "does not read"), []
    if kind == "skip_call":
        ok = bool(facts.get("skip_call"))
        return ok, "handler %s SKIP_CALL()" % ("uses" if ok else "does not use"), []
    asserted = facts.get("asserts", [])
    if value == JUMP_GROUP:
        members = _jumps(facts, known)
        shown = ", ".join(members) or "no conditional jump"
        return bool(members), "handler asserts %s" % shown, members
    ok = value in asserted
    return ok, "handler %s %s" % ("asserts" if ok else "does not assert", value), []


def _double_count(fact, rule, undetermined):
    if fact.get("counted_twice") is None:
        undetermined.append({"rule": rule, "families": None, "why": fact.get("why", "no source recorded")})
        return False
    return bool(fact["counted_twice"])


def resolve(names_by_number, families, source):
    """The corrections for one interpreter: ``{"implied", "groups", "miss_double_counted",
    "attempt_double_counted", "undetermined", "rules"}`` (see the module docstring).

    ``names_by_number``: ``{number: name}`` of the interpreter; ``families``: ``{specialized: base}``;
    ``source``: ``canary_source.source_facts`` output, or ``None`` when no source was recorded.
    """
    known = set(names_by_number.values())
    handlers = (source or {}).get("handlers", {})
    files = ", ".join((source or {}).get("files", [])) or "none"
    implied, members, rules, undetermined = {}, set(), {}, []
    for name in sorted(IMPLIED):
        if name not in known:
            continue
        if name not in handlers:
            why = "no handler for %s in the recorded source (files: %s)" % (name, files)
            fams = sorted(IMPLIED[name])
            if JUMP_GROUP in fams:
                fams = sorted({n for n in known if is_conditional_jump(n)})
            undetermined.append({"rule": name, "families": fams, "why": why})
            rules[name] = "undetermined: " + why
            continue
        base_facts = handlers.get(families.get(name, name), {})
        ok, evidence, shown = _witnessed(name, handlers[name], known, base_facts)
        rules[name] = ("applied: " if ok else "not applied: ") + evidence
        if ok:
            implied[name] = dict(IMPLIED[name])
            members.update(shown)
    skipped_after = _skipped_after(known, handlers, files, rules, undetermined)
    absent = {"counted_twice": None, "why": "no interpreter source recorded with this build"}
    misses = (source or {}).get("misses", absent)
    attempts = (source or {}).get("attempts", absent)
    rules["misses"] = misses.get("why", "")
    rules["attempts"] = attempts.get("why", "")
    in_place = sorted(n for n in attempts.get("in_place", ()) if families.get(n, n) == n)
    return {
        **({"attempt_in_place": in_place} if in_place else {}),
        "implied": implied,
        "skipped_after": skipped_after,
        "groups": {JUMP_GROUP: sorted(members)} if members else {},
        "miss_double_counted": _double_count(misses, "misses", undetermined),
        "attempt_double_counted": _double_count(attempts, "attempts", undetermined),
        "undetermined": undetermined,
        "rules": rules,
    }


def _skipped_after(known, handlers, files, rules, undetermined):
    """``{conditional jump: [instructions it steps over when not taken]}`` for the ``SKIPPED``
    instructions this interpreter has, where the jumps' handlers show it (``skips_next``); the rule
    is recorded in ``rules`` (undetermined, in ``undetermined``, when no jump handler was read)."""
    out = {}
    for name in sorted(SKIPPED):
        if name not in known:
            continue
        jumps = sorted(n for n in known if is_conditional_jump(n))
        read = [j for j in jumps if j in handlers]
        if not read:
            why = "no handler for the conditional jumps in the recorded source (files: %s)" % files
            undetermined.append({"rule": name, "families": [name], "why": why})
            rules[name] = "undetermined: " + why
            continue
        skipping = [j for j in read if name in handlers[j].get("skips_next", [])]
        for jump in skipping:
            out.setdefault(jump, []).append(name)
        shown = ", ".join(skipping) or "none of them"
        rules[name] = ("applied: " if skipping else "not applied: ") + "skipped when not taken by %s" % shown
    return out


def deferred_rule(source):
    """The leakage step's rule for ``opcode.<X>.specialization.deferred`` (not a canary rule; read
    from the same source facts): ``{"applied": true, false or null, "why": ...}``.

    *Applied* where a miss decrements X's ``deferred`` before X (reached by ``GO_TO_INSTRUCTION``)
    increments it, each decrement next to the miss count of X (main Nov 2022 - Dec 2023, 3.12;
    a base that never increments it, such as 3.13.0a1's ``RESUME``, only goes down): then a run's
    ``deferred`` is its true count less up to one per miss of X, and the step allows that much;
    *not applied* where nothing decrements it (exact); *undetermined* without the source (exact).
    """
    if source is None:
        return {"applied": None, "why": "no interpreter source recorded with this build"}
    fact = source.get("deferred")
    if fact is None:
        return {"applied": None, "why": "the source facts say nothing about deferred (read by an older harness)"}
    return {"applied": fact["decremented"], "why": fact["why"]}


def interpreter_table(names_by_number, families, source):
    """The part of ``canaries.expect_table`` that depends on the interpreter only (all of it but
    ``"canaries"``): its tables, the source facts it was resolved with, ``resolve``'s result and
    the leakage step's ``deferred_rule``."""
    return dict(
        resolve(names_by_number, families, source),
        deferred_rule=deferred_rule(source),
        python="%d.%d.%d" % sys.version_info[:3],
        version=sys.version.split()[0],
        hexversion=sys.hexversion,
        names={str(k): v for k, v in sorted(names_by_number.items())},
        families=families,
        source=source,
    )
