"""pystats-harness: trustworthy CPython pystats at any revision."""

__version__ = "0.1.0"
