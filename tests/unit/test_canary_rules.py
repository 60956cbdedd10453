"""Canary rules derived from the interpreter: the source facts (on hand-written C in the shape of
CPython's handlers and dispatch macros, not CPython's code) and the rule resolution.  The rules on
real data captured from builds: test_canary_captured.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pystats_harness.builder.record import SOURCE_SUBSET
from pystats_harness.suite import canaries as C
from pystats_harness.suite import canary_rules as R
from pystats_harness.suite import canary_source as S
from tests.support.ceval_excerpts import MISS_STATS_DEC, MISS_STATS_NO_DEC

DATA = Path(__file__).resolve().parents[1] / "data" / "canaries"
GENERATIONS = ("3.11.2", "main-1583c6e326", "3.12.0", "3.13.5")
G = R.JUMP_GROUP

# --- source facts, on hand-written snippets ------------------------------------------------------

HANDLERS = r"""
        TARGET(NOP) {
            DISPATCH();
        }
        TARGET(SUPER_A__B) {
            /* a brace in a comment { and in a literal */ char c = '{'; const char *s = "}{";
            NEXTOPARG();
            next_instr++;
            if (x) { y(); }
        }
        TARGET(RANGE_FORM) {
            _Py_CODEUNIT next = next_instr[1];
            assert(_PyOpcode_Deopt[_Py_OPCODE(next)] == STORE_FAST);
            if (r) { JUMPBY(2); } else { JUMPBY(1); }
        }
        TARGET(CMP_JUMP) {
            NEXTOPARG();
            assert(opcode == POP_JUMP_IF_FALSE || opcode == POP_JUMP_IF_TRUE || x == NOT_AN_OPCODE);
        }
        TARGET(PRE_LEN) {
            SKIP_CALL();
        }
        TARGET(GEN_SUPER) {
            oparg = (next_instr++)->op.arg;
        }
"""
BYTECODES = "        super(GEN_SUPER) = LOAD_FAST + LOAD_CONST;\n        super(NOT_AN_OPCODE) = A + B;\n"
OPNAMES = {"NOP", "SUPER_A__B", "RANGE_FORM", "CMP_JUMP", "PRE_LEN", "GEN_SUPER", "STORE_FAST"} | {
    "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_TRUE",
    "LOAD_FAST",
    "LOAD_CONST",
}
MISS_311 = """
#define TARGET(op) TARGET_##op: INSTRUCTION_START(op);
#define DEOPT_IF(cond, instname) if (cond) { goto miss; }
#define DISPATCH_SAME_OPARG() \\
    { \\
        opcode = _Py_OPCODE(*next_instr); \\
        DISPATCH_GOTO(); \\
    }
miss:
    {
        STAT_INC(opcode, miss);
        next_instr--;
        DISPATCH_GOTO();
    }
"""
MACROS_PREDICTED = """
#  define TARGET(op) TARGET_##op:
#define GO_TO_INSTRUCTION(op) goto PREDICT_ID(op)
#define DEOPT_IF(COND, INSTNAME)                            \\
    if ((COND)) {                                           \\
        UPDATE_MISS_STATS((INSTNAME));                      \\
        GO_TO_INSTRUCTION(INSTNAME);                        \\
    }
"""


def test_handler_bodies_skip_comments_and_literals() -> None:
    bodies = S.handler_bodies(S.strip_c(HANDLERS))
    assert set(bodies) == {"NOP", "SUPER_A__B", "RANGE_FORM", "CMP_JUMP", "PRE_LEN", "GEN_SUPER"}
    assert "y();" in bodies["SUPER_A__B"] and "RANGE_FORM" not in bodies["SUPER_A__B"]


def test_handler_facts() -> None:
    files = {"Python/generated_cases.c.h": HANDLERS, "Python/bytecodes.c": BYTECODES}
    handlers = S.source_facts(files, OPNAMES)["handlers"]
    assert handlers["NOP"] == {}
    assert handlers["SUPER_A__B"] == {"reads_next": True}
    assert handlers["RANGE_FORM"] == {"asserts": ["STORE_FAST"]}
    assert handlers["CMP_JUMP"] == {"asserts": ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"], "reads_next": True}
    assert handlers["PRE_LEN"] == {"skip_call": True}
    assert handlers["GEN_SUPER"] == {"reads_next": True, "super": ["LOAD_FAST", "LOAD_CONST"]}


def test_miss_and_attempt_facts() -> None:
    facts = S.source_facts({"Python/ceval.c": MISS_311 + HANDLERS}, OPNAMES)
    assert facts["misses"]["counted_twice"] is True and "miss:" in facts["misses"]["why"]
    assert facts["attempts"]["counted_twice"] is True
    counted_first = "TARGET(LOAD_X) {\n INSTRUCTION_STATS(LOAD_X);\n PREDICTED(LOAD_X);\n }\n"
    files = {"Python/ceval_macros.h": MACROS_PREDICTED, "Python/generated_cases.c.h": counted_first}
    assert S.source_facts(files, OPNAMES)["misses"]["counted_twice"] is False
    predicted_first = "TARGET(LOAD_X) {\n PREDICTED(LOAD_X);\n INSTRUCTION_STATS(LOAD_X);\n }\n"
    files["Python/generated_cases.c.h"] = predicted_first
    facts = S.source_facts(files, OPNAMES)
    assert facts["misses"]["counted_twice"] is None and "LOAD_X" in facts["misses"]["why"]
    assert facts["attempts"]["counted_twice"] is None  # no DISPATCH_SAME_OPARG there
    counting_target = MACROS_PREDICTED.replace("TARGET_##op:", "TARGET_##op: INSTRUCTION_START(op);")
    files["Python/ceval_macros.h"] = counting_target
    assert S.source_facts(files, OPNAMES)["misses"]["counted_twice"] is False
    notrace = MISS_311.replace("define DISPATCH_SAME_OPARG", "define NOTRACE_DISPATCH_SAME_OPARG")
    assert S.source_facts({"Python/ceval.c": notrace}, OPNAMES)["attempts"]["counted_twice"] is True
    non_tracing = MISS_311.replace("DISPATCH_GOTO(); \\\n    }", "DISPATCH_GOTO_NON_TRACING(); \\\n    }", 1)
    assert "DISPATCH_GOTO_NON_TRACING" in non_tracing  # 3.15 and main
    attempts = S.source_facts({"Python/ceval.c": non_tracing}, OPNAMES)["attempts"]
    assert attempts == {"counted_twice": True, "why": attempts["why"]} and "NON_TRACING" in attempts["why"]
    elsewhere = MISS_311.replace("DISPATCH_GOTO(); \\\n    }", "goto somewhere; \\\n    }", 1)
    assert S.source_facts({"Python/ceval.c": elsewhere}, OPNAMES)["attempts"]["counted_twice"] is None
    in_place = "TARGET(RESUME) {\n if (x) { next_instr = this_instr; DISPATCH(); }\n _Py_Specialize_Resume(i);\n DISPATCH();\n}\n"
    in_place += "TARGET(LOAD_X) {\n _Py_Specialize_LoadX(i);\n DISPATCH_SAME_OPARG();\n}\n"
    attempts = S.source_facts({"Python/ceval.c": non_tracing + in_place}, OPNAMES)["attempts"]
    assert attempts["counted_twice"] is True and attempts["in_place"] == ["RESUME"]  # 3.15's _QUICKEN_RESUME
    assert "not RESUME" in attempts["why"]
    table = R.resolve({1: "RESUME", 2: "RESUME_CHECK"}, {"RESUME_CHECK": "RESUME"}, {"attempts": attempts})
    assert table["attempt_double_counted"] is True and table["attempt_in_place"] == ["RESUME"]
    no_miss_block = MISS_311.split("miss:")[0]
    assert S.source_facts({"Python/ceval.c": no_miss_block}, OPNAMES)["misses"]["counted_twice"] is None
    assert S.source_facts({}, OPNAMES)["misses"]["counted_twice"] is None


def test_read_files_and_source_subset(tmp_path: Path) -> None:
    assert S.read_files(str(tmp_path)) == {}
    (tmp_path / "Python").mkdir()
    (tmp_path / "Python" / "ceval.c").write_text("x")
    assert S.read_files(str(tmp_path)) == {"Python/ceval.c": "x"}
    assert set(S.FILES) <= set(SOURCE_SUBSET), "the build must record every file the canary rules read"


# --- resolution ---------------------------------------------------------------------------------


def test_every_rule_has_a_witness() -> None:
    assert set(R.IMPLIED) == set(R.WITNESS)
    for name, (kind, value) in R.WITNESS.items():
        assert kind in ("super", "asserts", "base_asserts", "skip_call"), name
        assert value in R.IMPLIED[name] or (value == G and G in R.IMPLIED[name]), name


def names(*ops: str) -> dict[int, str]:
    return dict(enumerate(ops, 1))


def test_resolve_without_source_is_undetermined_not_wrong() -> None:
    got = R.resolve(names("FOR_ITER_RANGE", "STORE_FAST", "COMPARE_OP_INT_JUMP", "POP_JUMP_IF_TRUE"), {}, None)
    assert got["implied"] == {} and got["groups"] == {}
    assert got["miss_double_counted"] is False and got["attempt_double_counted"] is False
    rules = {u["rule"]: u["families"] for u in got["undetermined"]}
    assert rules == {
        "FOR_ITER_RANGE": ["STORE_FAST"],
        "COMPARE_OP_INT_JUMP": ["POP_JUMP_IF_TRUE"],
        "misses": None,
        "attempts": None,
    }
    assert got["rules"]["FOR_ITER_RANGE"].startswith("undetermined: no handler")


def test_resolve_applies_only_what_the_handler_shows() -> None:
    source = {
        "files": ["Python/generated_cases.c.h"],
        "handlers": {
            "FOR_ITER_RANGE": {},  # pushes the value (3.12.0): no STORE_FAST performed
            "COMPARE_OP_INT_JUMP": {"asserts": ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"], "reads_next": True},
            "LOAD_FAST__LOAD_FAST": {"super": ["LOAD_FAST", "LOAD_FAST"], "reads_next": True},
            "STORE_FAST__LOAD_FAST": {"super": ["STORE_FAST", "LOAD_CONST"]},  # not what the name says
        },
        "misses": {"counted_twice": False, "why": "w"},
        "attempts": {"counted_twice": True, "why": "w"},
    }
    ops = ("FOR_ITER_RANGE", "COMPARE_OP_INT_JUMP", "LOAD_FAST__LOAD_FAST", "STORE_FAST__LOAD_FAST")
    got = R.resolve(names(*ops, "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"), {}, source)
    assert got["implied"] == {"COMPARE_OP_INT_JUMP": {G: 1}, "LOAD_FAST__LOAD_FAST": {"LOAD_FAST": 1}}
    assert got["groups"] == {G: ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    assert got["rules"]["FOR_ITER_RANGE"] == "not applied: handler does not assert STORE_FAST"
    assert got["rules"]["STORE_FAST__LOAD_FAST"].startswith("not applied: super(")
    assert got["undetermined"] == [] and got["attempt_double_counted"] is True


def test_branch_forms_take_the_jump_their_base_asserts() -> None:
    base = {"asserts": ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    source = {"handlers": {"COMPARE_AND_BRANCH": base, "COMPARE_AND_BRANCH_INT": {"reads_later_oparg": True}}}
    ops = names("COMPARE_AND_BRANCH", "COMPARE_AND_BRANCH_INT", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
    families = {"COMPARE_AND_BRANCH_INT": "COMPARE_AND_BRANCH"}
    got = R.resolve(ops, families, source)
    assert got["implied"] == {"COMPARE_AND_BRANCH": {G: 1}, "COMPARE_AND_BRANCH_INT": {G: 1}}
    assert got["groups"] == {G: ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    source["handlers"]["COMPARE_AND_BRANCH_INT"] = {}  # takes no oparg from the jump: performs none
    assert "COMPARE_AND_BRANCH_INT" not in R.resolve(ops, families, source)["implied"]
    later = "TARGET(CAB_INT) {\n int offset = next_instr[1].op.arg;\n JUMPBY(offset);\n }\n"
    facts = S.source_facts({"Python/generated_cases.c.h": later}, {"CAB_INT"})
    assert facts["handlers"]["CAB_INT"] == {"reads_later_oparg": True}


def test_a_kernel_the_walk_refuses_cannot_be_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    def maybe(n):
        acc = 0
        for i in range(n):
            if i is None:
                acc += 1
        return acc

    monkeypatch.setitem(C.KERNELS, "maybe", maybe)
    table = C.expect_table(["maybe", "arith"], source_root=None)
    assert table["canaries"]["maybe"]["cannot_count"].startswith("cannot count canary maybe statically")
    assert "per_iteration" in table["canaries"]["arith"]


def test_any_jump_of_the_interpreter_tables_is_refused() -> None:
    import opcode
    from types import SimpleNamespace

    from pystats_harness.suite import canary_expect as E

    unknown_jump = SimpleNamespace(opname="BRANCH_SOMEHOW", opcode=250)  # no JUMP in the name
    assert E._unsupported(unknown_jump, {250}) and not E._unsupported(unknown_jump, set())
    assert E.jump_opcodes() >= {op for name, op in opcode.opmap.items() if "JUMP_" in name}


# --- families of interpreters older than opcode._specializations ---------------------------------


def test_families_derived_from_a_flat_list_match_the_311_table() -> None:
    """3.11.2's own families, flattened, come back unchanged (supers under their first half,
    _ADAPTIVE and _QUICK forms under their base, others under the longest adaptive base)."""
    import json

    from pystats_harness.suite.canary_expect import families_from_instructions

    table = json.loads((DATA / "3.11.2" / "table.json").read_text())["families"]
    expected: dict[str, set[str]] = {}
    for spec, base in table.items():
        expected.setdefault(base, set()).add(spec)
    got = families_from_instructions(list(table), set(table.values()))
    assert {k: set(v) for k, v in got.items()} == expected


def test_families_derived_for_an_early_alpha_list() -> None:
    from pystats_harness.suite.canary_expect import families_from_instructions

    flat = ["CALL_NO_KW_ADAPTIVE", "CALL_NO_KW_LEN", "PRECALL_ADAPTIVE", "PRECALL_BOUND_METHOD"]
    flat += ["JUMP_ABSOLUTE_QUICK", "LOAD_FAST__LOAD_FAST", "NOT_A_FAMILY_X", "LOAD_ATTR_ADAPTIVE", "LOAD_ATTR_SLOT"]
    bases = {"CALL_NO_KW", "PRECALL", "JUMP_ABSOLUTE", "LOAD_FAST", "LOAD_ATTR"}
    assert families_from_instructions(flat, bases) == {
        "CALL_NO_KW": ["CALL_NO_KW_ADAPTIVE", "CALL_NO_KW_LEN"],
        "PRECALL": ["PRECALL_ADAPTIVE", "PRECALL_BOUND_METHOD"],
        "JUMP_ABSOLUTE": ["JUMP_ABSOLUTE_QUICK"],
        "LOAD_FAST": ["LOAD_FAST__LOAD_FAST"],
        "LOAD_ATTR": ["LOAD_ATTR_ADAPTIVE", "LOAD_ATTR_SLOT"],
    }


MACROS_EARLY_ALPHA = """
#define TARGET(op) TARGET_##op: INSTRUCTION_START(op);
#define DISPATCH() \\
    { \\
        NEXTOPARG(); \\
        DISPATCH_GOTO(); \\
    }
#define JUMP_TO_INSTRUCTION(op) goto PREDICT_ID(op)
#define DEOPT_IF(cond, instname) if (cond) { goto instname ## _miss; }
#define MISS_WITH_CACHE(opname) \\
opname ## _miss: \\
    { \\
        STAT_INC(opname, miss); \\
        JUMP_TO_INSTRUCTION(opname); \\
    }
        TARGET(LOAD_X) {
            PREDICTED(LOAD_X);
        }
        TARGET(LOAD_X_ADAPTIVE) {
            if (counter == 0) {
                next_instr--;
                if (_Py_Specialize_LoadX(owner, next_instr) < 0) {
                    goto error;
                }
                DISPATCH();
            }
            JUMP_TO_INSTRUCTION(LOAD_X);
        }
"""


def test_early_alpha_miss_blocks_and_adaptive_redispatch() -> None:
    """Main before Mar/Apr 2022: a miss goes through its family's NAME_miss: block to the base's
    PREDICTED label (after the count: counted once); an attempt steps back and DISPATCH()es the
    rewritten instruction (counted twice)."""
    facts = S.source_facts({"Python/ceval.c": MACROS_EARLY_ALPHA}, OPNAMES)
    assert facts["misses"] == {"counted_twice": False, "why": facts["misses"]["why"]}
    assert "NAME_miss:" in facts["misses"]["why"]
    assert facts["attempts"]["counted_twice"] is True and "DISPATCH()" in facts["attempts"]["why"]
    redispatching_block = MACROS_EARLY_ALPHA.replace("JUMP_TO_INSTRUCTION(opname); \\", "DISPATCH(); \\")
    assert S.source_facts({"Python/ceval.c": redispatching_block}, OPNAMES)["misses"]["counted_twice"] is None
    deferred_only = MACROS_EARLY_ALPHA.replace(
        "                DISPATCH();\n", "                JUMP_TO_INSTRUCTION(LOAD_X);\n"
    )
    assert S.source_facts({"Python/ceval.c": deferred_only}, OPNAMES)["attempts"]["counted_twice"] is None


def test_tier_two_redefinition_of_deopt_if_is_not_the_handlers_one() -> None:
    """Main Dec 2023 - Mar 2024: ceval.c includes the tier-1 handlers, then `#undef DEOPT_IF` and
    redefines it (goto deoptimize) for the tier-2 interpreter: the handlers' DEOPT_IF is the first."""
    ceval = (
        '#include "generated_cases.c.h"\n'
        "#undef DEOPT_IF\n"
        "#define DEOPT_IF(COND, INSTNAME) \\\n    if ((COND)) {                \\\n        goto deoptimize;\\\n    }\n"
    )
    files = {"Python/ceval_macros.h": MACROS_PREDICTED, "Python/ceval.c": ceval}
    assert S.source_facts(files, OPNAMES)["misses"]["counted_twice"] is False
    before = ceval.replace('#include "generated_cases.c.h"\n', "") + '#include "generated_cases.c.h"\n'
    files["Python/ceval.c"] = before  # redefined before the handlers: the handlers use goto deoptimize
    assert S.source_facts(files, OPNAMES)["misses"]["counted_twice"] is None


# --- the leakage step's deferred rule (UPDATE_MISS_STATS), on excerpts shaped like the real macros -----
# (MISS_STATS_DEC and MISS_STATS_NO_DEC: tests/support/ceval_excerpts.py)

HANDLER_DEFERRED = "TARGET(LOAD_X) {\n STAT_INC(LOAD_X, deferred);\n DECREMENT_ADAPTIVE_COUNTER(c);\n }\n"


def deferred(files: dict[str, str]) -> dict[str, object]:
    return R.deferred_rule(S.source_facts(files, OPNAMES))


def test_deferred_rule_read_from_update_miss_stats() -> None:
    applied = deferred({"Python/ceval_macros.h": MISS_STATS_DEC, "Python/generated_cases.c.h": HANDLER_DEFERRED})
    assert applied == {
        "applied": True,
        "why": "UPDATE_MISS_STATS decrements deferred before the instruction increments it (one per miss)",
    }
    assert deferred({"Python/ceval.c": MISS_STATS_DEC})["applied"] is True  # main Nov 2022 - Jan 2023
    gone = deferred({"Python/ceval_macros.h": MISS_STATS_NO_DEC, "Python/generated_cases.c.h": HANDLER_DEFERRED})
    assert gone["applied"] is False and "UPDATE_MISS_STATS does not touch it" in str(gone["why"])
    assert deferred({"Python/ceval.c": MISS_311})["applied"] is False  # 3.11: miss: block, no STAT_DEC


def test_deferred_rule_undetermined_where_the_source_does_not_show_it() -> None:
    assert R.deferred_rule(None) == {"applied": None, "why": "no interpreter source recorded with this build"}
    assert deferred({"Python/ceval.c": HANDLER_DEFERRED})["applied"] is None  # no DEOPT_IF at all
    unpaired = MISS_STATS_DEC.replace("STAT_INC((INSTNAME), miss);", "")
    assert "without counting the miss" in str(deferred({"Python/ceval_macros.h": unpaired})["why"])
    in_handler = HANDLER_DEFERRED.replace("STAT_INC(LOAD_X, deferred)", "STAT_DEC(LOAD_X, deferred)")
    got = deferred({"Python/ceval_macros.h": MISS_STATS_NO_DEC, "Python/generated_cases.c.h": in_handler})
    assert got["applied"] is None and "outside UPDATE_MISS_STATS" in str(got["why"])
    older = S.source_facts({"Python/ceval_macros.h": MISS_STATS_DEC}, OPNAMES)
    del older["deferred"]  # facts read by a harness before this rule
    assert R.deferred_rule(older)["applied"] is None


def test_the_deferred_rule_is_in_the_interpreter_table_not_in_the_canary_rules() -> None:
    source = S.source_facts({"Python/ceval_macros.h": MISS_STATS_DEC}, OPNAMES)
    table = R.interpreter_table(names("LOAD_X"), {}, source)
    assert table["deferred_rule"]["applied"] is True
    assert "deferred_rule" not in R.resolve(names("LOAD_X"), {}, source)  # captured canary tables stay valid


MACROS_314 = """
#if Py_TAIL_CALL_INTERP
#   define JUMP_TO_PREDICTED(name) \\
        do { \\
            Py_MUSTTAIL return (_TAIL_CALL_##name)(frame, stack_pointer, tstate, this_instr, oparg); \\
        } while (0)
#elif USE_COMPUTED_GOTOS
#  define TARGET(op) TARGET_##op:
#  define JUMP_TO_PREDICTED(name) goto PREDICTED_##name;
#else
#  define TARGET(op) case op: TARGET_##op:
#  define JUMP_TO_PREDICTED(name) goto PREDICTED_##name;
#endif
#define UPDATE_MISS_STATS(INSTNAME) \\
    do { STAT_INC(opcode, miss); STAT_INC((INSTNAME), miss); } while (0)
"""
HANDLERS_314 = """
        TARGET(LOAD_X) {
            INSTRUCTION_STATS(LOAD_X);
            PREDICTED_LOAD_X:;
            x();
        }
        TARGET(LOAD_X_FAST) {
            INSTRUCTION_STATS(LOAD_X_FAST);
            if (cond) {
                UPDATE_MISS_STATS(LOAD_X);
                assert(_PyOpcode_Deopt[opcode] == (LOAD_X));
                JUMP_TO_PREDICTED(LOAD_X);
            }
        }
        TARGET(POP_JUMP_IF_TRUE) {
            INSTRUCTION_STATS(POP_JUMP_IF_TRUE);
            JUMPBY(flag ? oparg : next_instr->op.code == NOT_TAKEN);
        }
"""


def test_314_misses_written_out_in_the_handlers_are_counted_once_and_the_jumps_skip_not_taken() -> None:
    """3.14: no DEOPT_IF macro; a miss is UPDATE_MISS_STATS + JUMP_TO_PREDICTED (goto PREDICTED_NAME,
    the label after the count) in the generated handler; the tail-calling interpreter's definition
    (not built by the harness) is not judged."""
    opnames = OPNAMES | {"LOAD_X", "LOAD_X_FAST", "NOT_TAKEN"}
    files = {"Python/ceval_macros.h": MACROS_314, "Python/generated_cases.c.h": HANDLERS_314}
    facts = S.source_facts(files, opnames)
    assert facts["misses"]["counted_twice"] is False and "JUMP_TO_PREDICTED" in facts["misses"]["why"]
    assert facts["handlers"]["POP_JUMP_IF_TRUE"]["skips_next"] == ["NOT_TAKEN"]
    assert facts["deferred"]["decremented"] is False
    label_first = HANDLERS_314.replace(
        "INSTRUCTION_STATS(LOAD_X);\n            PREDICTED_LOAD_X:;",
        "PREDICTED_LOAD_X:;\n            INSTRUCTION_STATS(LOAD_X);",
    )
    early = S.source_facts({**files, "Python/generated_cases.c.h": label_first}, opnames)["misses"]
    assert early["counted_twice"] is None and "LOAD_X" in early["why"]
    tail_only = MACROS_314.split("#elif")[0] + "#endif\n"
    assert S.source_facts({**files, "Python/ceval_macros.h": tail_only}, opnames)["misses"]["counted_twice"] is None
    # the rule: where a jump's handler tests for NOT_TAKEN, the walk steps over it
    table = R.resolve(names("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "NOT_TAKEN"), {}, facts)
    assert table["skipped_after"] == {"POP_JUMP_IF_TRUE": ["NOT_TAKEN"]}
    blind = R.resolve(names("POP_JUMP_IF_TRUE", "NOT_TAKEN"), {}, None)
    assert blind["skipped_after"] == {} and blind["undetermined"][0]["families"] == ["NOT_TAKEN"]
    assert R.resolve(names("POP_JUMP_IF_TRUE"), {}, facts)["skipped_after"] == {}  # before 3.14: no NOT_TAKEN
