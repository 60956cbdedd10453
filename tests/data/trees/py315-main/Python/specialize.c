// Synthetic fixture: in main the stats code moved from this file to Python/pystats.c.
#include "Python.h"
