/* Trimmed excerpt of CPython main 51fc725117 (2023-06-26) Python/pylifecycle.c (configuration probe fixture). */
    // Turn on experimental tier 2 (uops-based) optimizer
    if (is_main_interp) {
        char *envvar = Py_GETENV("PYTHONUOPS");
        int enabled = envvar != NULL && *envvar > '0';
        if (_Py_get_xoption(&config->xoptions, L"uops") != NULL) {
            enabled = 1;
        }
