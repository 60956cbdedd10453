// Trimmed excerpt of CPython 3.11.2 Python/initconfig.c (probe test fixture).
    /* -X options */
    if (config_get_xoption(config, L"showrefcount")) {
        config->show_ref_count = 1;
    }

