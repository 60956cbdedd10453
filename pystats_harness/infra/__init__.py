"""Infrastructure beneath the capabilities: the Docker engine (the only module importing docker), the
CPython mirror (the only one importing git), runs in fresh containers, subprocesses, files, the context."""
