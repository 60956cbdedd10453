"""The task layer's functions: one module per task group; tasks.py calls them and maps errors to exits."""
