// Trimmed excerpt of CPython main 6f8875eba3~1 Include/internal/pycore_code.h (probe test fixture).
PyAPI_FUNC(PyObject*) _Py_GetSpecializationStats(void);
