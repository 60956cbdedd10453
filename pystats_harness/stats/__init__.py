"""Capability: stats dumps of every generation parsed into one named schema; collections, comparisons,
and the cross-check against summarize_stats.py."""
