// Trimmed excerpt of CPython main 6f8875eba3~1 Python/initconfig.c (probe test fixture).
const wchar_t* known_xoptions[] = {
    L"faulthandler",
    L"showrefcount",
    L"tracemalloc",
    L"importtime",
    L"dev",
