// Trimmed excerpt of CPython main 1583c6e326~1 Python/initconfig.c (probe test fixture).
    /* -X options */
    if (config_get_xoption(config, L"showrefcount")) {
        config->show_ref_count = 1;
    }

