// Trimmed excerpt of CPython main 1583c6e326 Include/internal/pycore_code.h (probe test fixture).
PyAPI_FUNC(PyObject*) _Py_GetSpecializationStats(void);
