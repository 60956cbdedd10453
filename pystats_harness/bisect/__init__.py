"""Capability: the first commit where a pystats metric changed -- metric, search, results store, report."""
