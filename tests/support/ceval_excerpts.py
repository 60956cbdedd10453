"""Excerpts shaped like CPython's dispatch macros, for the canary-rule and leakage-step tests."""

from __future__ import annotations

#: main 84b7e9e3fa / v3.12.0 Python/ceval_macros.h (Nov 2022 - Dec 2023; in ceval.c until Jan 2023)
MISS_STATS_DEC = """
#ifdef Py_STATS
#define UPDATE_MISS_STATS(INSTNAME)                              \\
    do {                                                         \\
        STAT_INC(opcode, miss);                                  \\
        STAT_INC((INSTNAME), miss);                              \\
        /* The counter is always the first cache entry: */       \\
        if (ADAPTIVE_COUNTER_IS_ZERO(next_instr->cache)) {       \\
            STAT_INC((INSTNAME), deopt);                         \\
        }                                                        \\
        else {                                                   \\
            /* This is about to be (incorrectly) incremented: */ \\
            STAT_DEC((INSTNAME), deferred);                      \\
        }                                                        \\
    } while (0)
#else
#define UPDATE_MISS_STATS(INSTNAME) ((void)0)
#endif

#define DEOPT_IF(COND, INSTNAME)                            \\
    if ((COND)) {                                           \\
        /* This is only a single jump on release builds! */ \\
        UPDATE_MISS_STATS((INSTNAME));                      \\
        assert(_PyOpcode_Deopt[opcode] == (INSTNAME));      \\
        GO_TO_INSTRUCTION(INSTNAME);                        \\
    }
"""
#: after dfaa9e060b (gh-113010, Dec 2023), c97d3af239 and 3.13.5: the else branch is gone
MISS_STATS_NO_DEC = MISS_STATS_DEC.replace(
    """        else {                                                   \\
            /* This is about to be (incorrectly) incremented: */ \\
            STAT_DEC((INSTNAME), deferred);                      \\
        }                                                        \\
""",
    "",
)
