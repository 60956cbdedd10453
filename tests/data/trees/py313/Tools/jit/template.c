/* Trimmed excerpt of CPython 3.13.5 Tools/jit/template.c (configuration probe fixture). */

    OPT_STAT_INC(uops_executed);
    UOP_STAT_INC(uopcode, execution_count);

