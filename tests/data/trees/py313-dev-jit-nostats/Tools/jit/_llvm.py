# Trimmed excerpt of CPython main f6d9e5926b Tools/jit/_llvm.py (configuration probe fixture).
_LLVM_VERSION = 16
_LLVM_VERSION_PATTERN = re.compile(rf"version\s+{_LLVM_VERSION}\.\d+\.\d+\s+")
