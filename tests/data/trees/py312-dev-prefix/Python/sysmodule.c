// Trimmed excerpt of CPython main 1583c6e326~1 Python/sysmodule.c (probe test fixture).

#ifdef Py_STATS
/*[clinic input]
sys._stats_on

Turns on stats gathering (stats gathering is on by default).
[clinic start generated code]*/

