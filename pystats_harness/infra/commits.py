"""A resolved revision: the value every capability passes around (made by :mod:`~pystats_harness.infra.mirror`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommitInfo:
    """A resolved revision."""

    rev: str
    sha: str
    date: str  # ISO 8601 committer date
    subject: str

    @property
    def short(self) -> str:
        return self.sha[:10]
