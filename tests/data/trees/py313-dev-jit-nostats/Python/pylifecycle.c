/* Trimmed excerpt of CPython main f6d9e5926b Python/pylifecycle.c (configuration probe fixture). */
        // No JIT, maybe use the tier two interpreter:
        char *envvar = Py_GETENV("PYTHON_UOPS");
        int enabled = envvar != NULL && *envvar > '0';
        if (_Py_get_xoption(&config->xoptions, L"uops") != NULL) {
            enabled = 1;
