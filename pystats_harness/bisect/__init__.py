"""Capability: the first commit where a pystats metric changed -- metric, search, result cache, report."""
