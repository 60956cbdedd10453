# Trimmed excerpt of CPython 3.13.5 Tools/jit/_llvm.py (configuration probe fixture).
_LLVM_VERSION = 18
_LLVM_VERSION_PATTERN = re.compile(rf"version\s+{_LLVM_VERSION}\.\d+\.\d+\S*\s+")
