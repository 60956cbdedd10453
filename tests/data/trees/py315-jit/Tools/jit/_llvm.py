# Trimmed excerpt of CPython v3.15.0rc1 Tools/jit/_llvm.py (configuration probe fixture): the version is a string.
_LLVM_VERSION = "21"
_EXTERNALS_LLVM_TAG = "llvm-21.1.4.0"
