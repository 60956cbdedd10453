// Trimmed excerpt of CPython main 1583c6e326~1 Include/pystats.h (probe test fixture).


PyAPI_DATA(PyStats) _py_stats_struct;
PyAPI_DATA(PyStats *) _py_stats;

extern void _Py_StatsClear(void);
extern void _Py_PrintSpecializationStats(int to_file);
