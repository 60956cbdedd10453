// Trimmed excerpt of CPython 3.13.5 Include/internal/pycore_code.h (probe test fixture).
PyAPI_FUNC(PyObject*) _Py_GetSpecializationStats(void);
