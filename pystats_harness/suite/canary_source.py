"""What the revision's own interpreter source says about counting: facts for the canary rules.

A build records part of its (patched) source tree (``SOURCE_SUBSET`` in the harness); run
containers mount it read-only at ``/src``.  This module reads the instruction handlers there and
reduces them to a few facts per instruction, plus two facts about the dispatch macros.  The facts
(not the source) go into the ``expect`` table, where ``canary_rules`` turns them into corrections.

Handlers are the ``TARGET(NAME) { ... }`` blocks of ``Python/generated_cases.c.h`` (3.12 and
later) or ``Python/ceval.c`` (3.11 and early 3.12 development); ``Python/bytecodes.c`` adds the
``super(NAME) = A + B;`` declarations of superinstructions.  Per instruction (comments and string
literals removed first):

* ``asserts``: the opcodes of this interpreter the handler compares an opcode with
  (``assert(next.op.code == STORE_FAST)``, ``assert(opcode == POP_JUMP_IF_FALSE || ...)``): the
  instructions it expects after it (or, for a frame it pushes, at its start);
* ``reads_next``: it reads the next code unit's oparg itself (``NEXTOPARG()``,
  ``(next_instr++)->op.arg``): the superinstruction pattern;
* ``reads_later_oparg``: it reads the oparg of a code unit after its caches
  (``next_instr[1].op.arg``, ``_Py_OPARG(next_instr[1])``): it uses the following instruction's
  argument (the ``COMPARE_AND_BRANCH`` forms take the jump offset from the jump after them);
* ``skip_call``: it uses 3.11's ``SKIP_CALL()`` (steps over the ``CALL`` that follows a ``PRECALL``);
* ``skips_next``: the opcodes it tests the next instruction for in order to step over it
  (3.14's conditional jumps: ``JUMPBY(flag ? oparg : next_instr->op.code == NOT_TAKEN)``);
* ``super``: the components of its ``super(...)`` declaration.

Globally: whether a miss (``DEOPT_IF``) and a specialization attempt (``DISPATCH_SAME_OPARG``)
reach a point where the instruction is counted a second time (``counted_twice``: true, false, or
null when the source does not show it; ``why`` says what was read; ``in_place``: the handlers whose
attempt does not re-dispatch, 3.15's ``RESUME``); and whether a miss decrements
the base instruction's ``deferred`` count before that instruction (reached by ``GO_TO_INSTRUCTION``)
increments it (``deferred``: ``decremented`` true, false or null; main Nov 2022 - Dec 2023, 3.12:
``UPDATE_MISS_STATS`` has ``STAT_DEC((INSTNAME), deferred)`` next to ``STAT_INC((INSTNAME), miss)``).

Stdlib only; runs inside the built interpreter and on the host (tests pass hand-written snippets).
"""

import os
import re

FILES = ("Python/generated_cases.c.h", "Python/ceval.c", "Python/ceval_macros.h", "Python/bytecodes.c")
"""The files read, in the order handlers are looked up (the harness records them with each build)."""

_NOISE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_TARGET = re.compile(r"\bTARGET\((\w+)\)\s*\{")
_SUPER = re.compile(r"\bsuper\((\w+)\)\s*=\s*([\w\s+]+);")
_ASSERTED = re.compile(r"==\s*\(?\s*([A-Z][A-Z0-9_]*)\b")
_READS_NEXT = re.compile(r"\bNEXTOPARG\(\)|\(\s*next_instr\+\+\s*\)\s*->\s*op\.arg")
_MISS_BLOCK = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(\w+\)[ \t]*\\\n\s*\w+\s*##\s*_miss\s*:", re.M)
_ATTEMPT_END = re.compile(r"\bDISPATCH\(\)|\b\w*DISPATCH\w*\(\)|\bJUMP_TO_INSTRUCTION\(|\bGO_TO_INSTRUCTION\(")
_DEC_DEFERRED = re.compile(r"\bSTAT_DEC\(\s*\(?\s*(\w+)\s*\)?\s*,\s*deferred\s*\)")
_PREDICTED_LABEL = re.compile(r"\bPREDICTED\(|\bPREDICTED_\w+\s*:")
_SKIPS_NEXT = re.compile(r"\bnext_instr\s*->\s*op\.code\s*==\s*([A-Z][A-Z0-9_]*)\b")
_REDISPATCH = re.compile(r"\b\w*DISPATCH_SAME_OPARG\(|\bDISPATCH_GOTO\w*\(")
_READS_LATER = re.compile(r"\bnext_instr\[\s*\d+\s*\]\s*\.\s*op\.arg|\b_Py_OPARG\(\s*next_instr\[\s*\d+\s*\]\s*\)")


def read_files(root):
    """``{relative path: text}`` of the ``FILES`` present under ``root`` (``{}`` if none)."""
    out = {}
    for rel in FILES:
        path = os.path.join(root, rel)
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                out[rel] = f.read()
    return out


def strip_c(text):
    """``text`` without comments and string/char literals (so braces and names are code)."""
    return _NOISE.sub(lambda m: " " if m.group(0)[0] == "/" else '""', text)


def _block(text, start):
    """The text between the ``{`` just before ``start`` and its matching ``}``."""
    depth, k = 1, start
    while depth and k < len(text):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        k += 1
    return text[start : k - 1]


def handler_bodies(code):
    """``{name: body}`` of every ``TARGET(NAME) { ... }`` in stripped C ``code``."""
    return {m.group(1): _block(code, m.end()) for m in _TARGET.finditer(code)}


def macro_definitions(code, name):
    """Bodies of every ``#define NAME(...)`` in stripped C ``code`` (continuation lines joined)."""
    out = []
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+%s\b" % re.escape(name), code, re.M):
        end = m.end()
        while True:
            nl = code.find("\n", end)
            if nl < 0:
                end = len(code)
                break
            if code[nl - 1] != "\\":
                end = nl
                break
            end = nl + 1
        out.append(code[m.end() : end].replace("\\\n", " "))
    return out


def label_block(code, label):
    """The ``{ ... }`` block right after ``label:`` at the start of a line (``None`` if absent)."""
    m = re.search(r"^\s*%s:\s*\{" % re.escape(label), code, re.M)
    return _block(code, m.end()) if m else None


def _handler_facts(body, opnames, components):
    facts = {}
    asserts = sorted({n for n in _ASSERTED.findall(body) if n in opnames})
    if asserts:
        facts["asserts"] = asserts
    if _READS_NEXT.search(body):
        facts["reads_next"] = True
    if _READS_LATER.search(body):
        facts["reads_later_oparg"] = True
    if re.search(r"\bSKIP_CALL\(\)", body):
        facts["skip_call"] = True
    skips = sorted({n for n in _SKIPS_NEXT.findall(body) if n in opnames})
    if skips:
        facts["skips_next"] = skips
    if components:
        facts["super"] = components
    return facts


def _inline_miss_fact(macros, handlers, target_counts):
    """3.14 and later: no ``DEOPT_IF`` macro; the generated handlers write a miss out as
    ``UPDATE_MISS_STATS(NAME); ... JUMP_TO_PREDICTED(NAME);``, and ``JUMP_TO_PREDICTED`` is ``goto
    PREDICTED_##name`` in the computed-goto and switch interpreters (the tail-calling one, clang 19+
    with ``--with-tail-call-interp``, is not built by the harness; its definition is not judged)."""
    jumps = [d for text in macros for d in macro_definitions(text, "JUMP_TO_PREDICTED")]
    gotos = [d for d in jumps if re.search(r"\bgoto\s+PREDICTED_\s*##\s*\w+", d)]
    if not gotos:
        return {"counted_twice": None, "why": "no DEOPT_IF macro in the recorded source"}
    if any("JUMP_TO_PREDICTED(" in body and "UPDATE_MISS_STATS(" not in body for body in handlers.values()):
        return {"counted_twice": None, "why": "a handler jumps to a PREDICTED label without UPDATE_MISS_STATS"}
    why = "a miss (UPDATE_MISS_STATS, then JUMP_TO_PREDICTED: goto PREDICTED_name) goes to the base's label after its count"
    return _predicted_fact(handlers, target_counts, why)


def _miss_fact(macros, ceval, handlers, target_counts):
    deopts = [d for text in macros for d in macro_definitions(text, "DEOPT_IF")]
    if not deopts:
        return _inline_miss_fact(macros, handlers, target_counts)
    if all(re.search(r"\bgoto\s+miss\b", d) for d in deopts):
        block = label_block(ceval, "miss")
        if block is not None and "DISPATCH_GOTO()" in block:
            why = "DEOPT_IF jumps to miss:, which re-dispatches (DISPATCH_GOTO) to the base instruction's TARGET"
            return {"counted_twice": True, "why": why}
        return {
            "counted_twice": None,
            "why": "DEOPT_IF jumps to miss:, but no miss: block that re-dispatches was found",
        }
    if all(re.search(r"\bGO_TO_INSTRUCTION\(|\bPREDICT_ID\(", d) for d in deopts):
        why = "DEOPT_IF goes to the base instruction's PREDICTED label, which comes after its count"
        return _predicted_fact(handlers, target_counts, why)
    if all(re.search(r"\bgoto\s+\w+\s*##\s*_miss\b", d) for d in deopts):
        # main until 04acfa94bb (Mar 2022): one NAME_miss: block per family, made by MISS_WITH_* macros
        blocks = [d for text in macros for name in _MISS_BLOCK.findall(text) for d in macro_definitions(text, name)]
        jumps = [d for text in macros for d in macro_definitions(text, "JUMP_TO_INSTRUCTION")]
        if (
            blocks
            and all(re.search(r"\bJUMP_TO_INSTRUCTION\(", b) and "DISPATCH" not in b for b in blocks)
            and jumps
            and all(re.search(r"\bPREDICT_ID\(", j) for j in jumps)
        ):
            why = "DEOPT_IF goes to its family's NAME_miss: block, which jumps to the base's PREDICTED label after its count"
            return _predicted_fact(handlers, target_counts, why)
        return {
            "counted_twice": None,
            "why": "DEOPT_IF jumps to NAME_miss: blocks that do not all go to a PREDICTED label",
        }
    return {"counted_twice": None, "why": "DEOPT_IF neither jumps to miss: nor to a PREDICTED label"}


def _predicted_fact(handlers, target_counts, why):
    def label(body):  # PREDICTED(NAME) (3.12, 3.13) or PREDICTED_NAME:; (3.14+)
        found = _PREDICTED_LABEL.search(body)
        return found.start() if found else -1

    early = sorted(
        n
        for n, body in handlers.items()
        if label(body) >= 0 and not target_counts and not (0 <= body.find("INSTRUCTION_STATS(") < label(body))
    )
    if early:
        return {"counted_twice": None, "why": "PREDICTED label before the count in %s" % ", ".join(early)}
    return {"counted_twice": False, "why": why}


def _attempt_fact(macros, handlers):
    names = ("DISPATCH_SAME_OPARG", "NOTRACE_DISPATCH_SAME_OPARG")  # the latter: main mid-2022
    defs = [d for text in macros for name in names for d in macro_definitions(text, name)]
    if not defs:
        return _adaptive_redispatch_fact(macros, handlers)
    # 3.15 and main: DISPATCH_GOTO_NON_TRACING(), the same jump through the table that records no
    # JIT trace.  A handler that calls _Py_Specialize_* and does not re-dispatch after it (3.15's
    # _QUICKEN_RESUME rewrites RESUME, counts the attempt and goes on) is not counted twice.
    gotos = ("DISPATCH_GOTO()", "DISPATCH_GOTO_NON_TRACING()")
    if not all(any(g in d for g in gotos) for d in defs):
        return {"counted_twice": None, "why": "DISPATCH_SAME_OPARG does not re-dispatch with DISPATCH_GOTO"}
    used = ", ".join(sorted({g.rstrip("()") for d in defs for g in gotos if g in d}))
    why = "DISPATCH_SAME_OPARG re-dispatches (%s) to the specialized instruction, which is counted" % used
    at = {n: b.find("_Py_Specialize_") for n, b in handlers.items()}
    in_place = sorted(n for n, b in handlers.items() if at[n] >= 0 and not _REDISPATCH.search(b[at[n] :]))
    if not in_place:
        return {"counted_twice": True, "why": why}
    why += "; not %s: specialized in place, no re-dispatch after _Py_Specialize_*" % ", ".join(in_place)
    return {"counted_twice": True, "why": why, "in_place": in_place}


def _adaptive_redispatch_fact(macros, handlers):
    """Main before NOTRACE_DISPATCH_SAME_OPARG (until Apr 2022): an adaptive handler steps back
    (``next_instr--``), specializes, and ``DISPATCH()``es the instruction now there."""
    attempts = [body for body in handlers.values() if "_Py_Specialize_" in body]
    if not attempts:
        return {"counted_twice": None, "why": "no DISPATCH_SAME_OPARG macro in the recorded source"}
    after = [_ATTEMPT_END.search(body[body.find("_Py_Specialize_") :]) for body in attempts]
    dispatch = [d for text in macros for d in macro_definitions(text, "DISPATCH")]
    if (
        all("next_instr--" in body for body in attempts)
        and all(m is not None and m.group(0) == "DISPATCH()" for m in after)
        and dispatch
        and all("DISPATCH_GOTO()" in d for d in dispatch)
    ):
        why = "adaptive handlers step back and DISPATCH() (DISPATCH_GOTO) to the specialized instruction, which is counted"
        return {"counted_twice": True, "why": why}
    return {"counted_twice": None, "why": "no DISPATCH_SAME_OPARG macro, and not every adaptive handler re-dispatches"}


def _deferred_fact(macros, handlers):
    """``{"decremented": bool or None, "why": ...}``: does a miss decrement ``deferred`` (see the
    module docstring), and is each decrement next to a miss count of the same instruction (so that
    a run's decrements are at most its misses)?"""
    updates = [d for text in macros for d in macro_definitions(text, "UPDATE_MISS_STATS")]
    in_updates = sum(len(_DEC_DEFERRED.findall(d)) for d in updates)
    everywhere = sum(len(_DEC_DEFERRED.findall(text)) for text in [*macros, *handlers.values()])
    if everywhere > in_updates:
        return {"decremented": None, "why": "STAT_DEC of deferred outside UPDATE_MISS_STATS: not a form read here"}
    if in_updates:
        paired = all(
            re.search(r"\bSTAT_INC\(\s*\(?\s*%s\s*\)?\s*,\s*miss\s*\)" % re.escape(name), d)
            for d in updates
            for name in _DEC_DEFERRED.findall(d)
        )
        if not paired:
            return {"decremented": None, "why": "UPDATE_MISS_STATS decrements deferred without counting the miss"}
        why = "UPDATE_MISS_STATS decrements deferred before the instruction increments it (one per miss)"
        return {"decremented": True, "why": why}
    inline = any("UPDATE_MISS_STATS(" in body for body in handlers.values())  # 3.14+: no DEOPT_IF
    if not inline and not any(macro_definitions(text, "DEOPT_IF") for text in macros):
        return {"decremented": None, "why": "no DEOPT_IF macro in the recorded source"}
    why = "no STAT_DEC of deferred in the recorded dispatch macros and handlers"
    return {"decremented": False, "why": why + (" (UPDATE_MISS_STATS does not touch it)" if updates else "")}


def _tier_one(ceval):
    """``ceval`` (not yet stripped: the include names a file) up to where it redefines the dispatch macros for the tier-2 interpreter (main
    Dec 2023 - Mar 2024: ``#undef DEOPT_IF`` after ``#include "generated_cases.c.h"``); the
    instruction handlers are compiled with the definitions before that."""
    include = ceval.find('#include "generated_cases.c.h"')
    undef = re.search(r"^[ \t]*#[ \t]*undef[ \t]+DEOPT_IF\b", ceval, re.M)
    if include >= 0 and undef is not None and undef.start() > include:
        return ceval[: undef.start()]
    return ceval


def source_facts(files, opnames):
    """The facts (see the module docstring) from ``read_files`` output, for the opcodes ``opnames``.

    ``{"files": [...], "handlers": {name: {fact: value}}, "misses": {...}, "attempts": {...}}``;
    ``handlers`` lists every instruction of ``opnames`` that has a handler (facts may be empty).
    """
    code = {rel: strip_c(text) for rel, text in files.items()}
    handlers = {}
    for rel in ("Python/ceval.c", "Python/generated_cases.c.h"):  # generated cases win
        handlers.update(handler_bodies(code.get(rel, "")))
    supers = {m.group(1): m.group(2).split("+") for m in _SUPER.finditer(code.get("Python/bytecodes.c", ""))}
    facts = {}
    for name, body in handlers.items():
        if name in opnames:
            components = [c.strip() for c in supers.get(name, ())]
            facts[name] = _handler_facts(body, opnames, components)
    macros = [code.get("Python/ceval_macros.h", ""), strip_c(_tier_one(files.get("Python/ceval.c", "")))]
    target_counts = any("INSTRUCTION_START" in d for text in macros for d in macro_definitions(text, "TARGET"))
    return {
        "files": sorted(files),
        "handlers": facts,
        "misses": _miss_fact(macros, code.get("Python/ceval.c", ""), handlers, target_counts),
        "attempts": _attempt_fact(macros, handlers),
        "deferred": _deferred_fact(macros, handlers),
    }
