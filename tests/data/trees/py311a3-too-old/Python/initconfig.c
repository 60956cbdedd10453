// Trimmed excerpt of CPython main 342b93f9f2~1 (3.11.0a3 era) Python/initconfig.c (probe test fixture).
    L"faulthandler",
    L"showrefcount",
    L"tracemalloc",
    L"importtime",
    L"dev",
