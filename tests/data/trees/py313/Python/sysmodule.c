// Trimmed excerpt of CPython 3.13.5 Python/sysmodule.c (probe test fixture).

#ifdef Py_STATS
/*[clinic input]
sys._stats_on

Turns on stats gathering (stats gathering is off by default).
[clinic start generated code]*/

