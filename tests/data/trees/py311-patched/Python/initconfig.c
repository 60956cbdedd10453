// Trimmed excerpt of CPython 3.11.2 + patches/*/3.11.patch Python/initconfig.c (probe test fixture).
    /* -X options */
    if (config_get_xoption(config, L"showrefcount")) {
        config->show_ref_count = 1;
    }

// ...
       like 3.13 (gh-108753) a non-empty PYTHONSTATS also turns them on. */
    if (config_get_xoption(config, L"pystats")
        || config_get_env(config, "PYTHONSTATS")) {
        _py_stats = &_py_stats_struct;
    }
#endif

    status = config_read_complex_options(config);
    if (_PyStatus_EXCEPTION(status)) {
        return status;
