// Trimmed excerpt of CPython main 6f8875eba3~1 Python/sysmodule.c (probe test fixture).
static PyMethodDef sys_methods[] = {
    /* Might as well keep this in alphabetic order */
    SYS_GETDLOPENFLAGS_METHODDEF
    SYS_GETALLOCATEDBLOCKS_METHODDEF
#ifdef Py_STATS
    {"getdxp", _Py_GetDXProfile, METH_VARARGS},
#endif
    SYS_GETFILESYSTEMENCODING_METHODDEF
    SYS_GETFILESYSTEMENCODEERRORS_METHODDEF
    SYS__GETQUICKENEDCOUNT_METHODDEF
