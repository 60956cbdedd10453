// Trimmed excerpt of CPython main (2025, after gh-131253) Python/pystats.c (probe test fixture).
#ifdef Py_STATS

PyStats *
_PyStats_GetLocal(void)
// ...
static int
mem_is_zero(unsigned char *ptr, size_t size)
{
    for (size_t i=0; i < size; i++) {
        if (*ptr != 0) {
            return 0;
        }
        ptr++;
    }
    return 1;
}

int
_Py_PrintSpecializationStats(int to_file)
{
    assert(to_file);
    stats_merge_all();
// ...
#endif // Py_STATS
