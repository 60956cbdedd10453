# Trimmed excerpt of CPython main c97d3af239 Tools/jit/_llvm.py (configuration probe fixture).
_LLVM_VERSION = 16
_LLVM_VERSION_PATTERN = re.compile(rf"version\s+{_LLVM_VERSION}\.\d+\.\d+\s+")
