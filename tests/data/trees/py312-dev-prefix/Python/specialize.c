// Trimmed excerpt of CPython main 1583c6e326~1 Python/specialize.c (probe test fixture).
#ifdef Py_STATS
PyStats _py_stats_struct = { 0 };
PyStats *_py_stats = &_py_stats_struct;

#define ADD_STAT_TO_DICT(res, field) \
// ...

void
_Py_PrintSpecializationStats(int to_file)
{
    if (_py_stats == NULL) {
        return;
    }
    FILE *out = stderr;
    if (to_file) {
        /* Write to a file instead of stderr. */
# ifdef MS_WINDOWS
        const char *dirname = "c:\\temp\\py_stats\\";
# else
        const char *dirname = "/tmp/py_stats/";
# endif
// ...
    }
    print_stats(out, _py_stats);
    if (out != stderr) {
        fclose(out);
    }
}
