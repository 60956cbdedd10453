// Trimmed excerpt of CPython 3.11.0a7 Python/ceval.c (probe test fixture).
#ifdef Py_STATS
#define INSTRUCTION_START(op) \
    do { \
        frame->f_lasti = INSTR_OFFSET(); \
        next_instr++; \
        OPCODE_EXE_INC(op); \
        _py_stats.opcode_stats[lastopcode].pair_count[op]++; \
        lastopcode = op; \
    } while (0)
#else
