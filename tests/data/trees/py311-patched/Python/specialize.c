// Trimmed excerpt of CPython 3.11.2 + patches/*/3.11.patch Python/specialize.c (probe test fixture).
#ifdef Py_STATS
PyStats _py_stats_struct = { 0 };
PyStats *_py_stats = NULL;

#define ADD_STAT_TO_DICT(res, field) \
// ...
   all-zero stats so that processes that never collected leave no file. */
int
_Py_PrintSpecializationStats(int to_file)
{
    if (mem_is_zero((const unsigned char *)&_py_stats_struct,
                    sizeof(_py_stats_struct))) {
        return 0;
    }
    FILE *out = stderr;
    if (to_file) {
        /* Write to a file instead of stderr. */
# ifdef MS_WINDOWS
        const char *dirname = "c:\\temp\\py_stats\\";
# else
        const char *dirname = "/tmp/py_stats/";
// ...
    }
    print_stats(out, &_py_stats_struct);
    if (out != stderr) {
        fclose(out);
    }
    return 1;
