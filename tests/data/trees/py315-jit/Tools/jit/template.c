/* Trimmed excerpt of CPython main c97d3af239 Tools/jit/template.c (configuration probe fixture). */
    UOP_STAT_INC(opcode, execution_count);
    UOP_STAT_INC(opcode, miss);
