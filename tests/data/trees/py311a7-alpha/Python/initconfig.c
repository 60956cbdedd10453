// Trimmed excerpt of CPython 3.11.0a7 Python/initconfig.c (probe test fixture).
    L"faulthandler",
    L"showrefcount",
    L"tracemalloc",
    L"importtime",
    L"dev",
