// Trimmed excerpt of CPython 3.11.2 + patches/*/3.11.patch Python/sysmodule.c (probe test fixture).

#ifdef Py_STATS
/* Backport of GH-93841 (plain functions instead of Argument Clinic). */
PyDoc_STRVAR(sys__stats_on__doc__,
"_stats_on($module, /)\n--\n\n"
"Turns on stats gathering (stats gathering is off by default).");

static PyObject *
