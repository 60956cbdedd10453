// Trimmed excerpt of CPython main 342b93f9f2 Python/initconfig.c (probe test fixture).
const wchar_t* known_xoptions[] = {
    L"faulthandler",
    L"showrefcount",
--
    if (config_get_xoption(config, L"showrefcount")) {
        config->show_ref_count = 1;
    }
