// Trimmed excerpt of CPython main 342b93f9f2 Python/specialize.c (probe test fixture).
SpecializationStats _specialization_stats[256] = { 0 };
_Py_PrintSpecializationStats(int to_file)
    print_stats(out, &_specialization_stats[LOAD_ATTR], "load_attr");
