/* Trimmed excerpt of CPython main f6d9e5926b Tools/jit/template.c (configuration probe fixture): no *_STAT_INC. */
_JIT_ENTRY(_PyInterpreterFrame *frame, PyObject **stack_pointer, PyThreadState *tstate)
{
    // Locals that the instruction implementations expect to exist:
    PATCH_VALUE(_PyExecutorObject *, current_executor, _JIT_EXECUTOR)
