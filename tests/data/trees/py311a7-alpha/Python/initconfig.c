// Trimmed excerpt of CPython 3.11.0a7 Python/initconfig.c (probe test fixture).
const wchar_t* known_xoptions[] = {
    L"faulthandler",
    L"showrefcount",
    L"tracemalloc",
    L"importtime",
    L"dev",
