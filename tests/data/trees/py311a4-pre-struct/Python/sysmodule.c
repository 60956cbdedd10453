// Trimmed excerpt of CPython main 342b93f9f2 Python/sysmodule.c (probe test fixture).
static PyMethodDef sys_methods[] = {
    /* Might as well keep this in alphabetic order */
