"""Capability: can a build's stats be trusted? The reference suite's runs, the five steps, baselines."""
