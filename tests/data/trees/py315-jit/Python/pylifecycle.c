/* Trimmed excerpt of CPython main c97d3af239 Python/pylifecycle.c (configuration probe fixture). */
    // Turn on experimental tier 2 (uops-based) optimizer
    if (is_main_interp) {
#ifndef _Py_JIT
        // No JIT, maybe use the tier two interpreter:
        char *envvar = Py_GETENV("PYTHON_UOPS");
        int enabled = envvar != NULL && *envvar > '0';
        if (_Py_get_xoption(&config->xoptions, L"uops") != NULL) {
            enabled = 1;
        }
        if (enabled) {
#else
        // Always enable tier two for JIT builds (ignoring the environment
        // variable and command-line option above):
        if (true) {
#endif
