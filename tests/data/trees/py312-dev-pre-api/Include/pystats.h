// Trimmed excerpt of CPython main 6f8875eba3~1 Include/pystats.h (probe test fixture).
} PyStats;

PyAPI_DATA(PyStats) _py_stats;

extern void _Py_PrintSpecializationStats(int to_file);

#ifdef _PY_INTERPRETER
