"""Capability: a pystats interpreter for a revision -- plan, patches by probing, container build, behaviour
fingerprint, cache."""
