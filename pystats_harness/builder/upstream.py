"""Changes taken from upstream CPython at build time and applied after the patch series: a *repair*
(the stats lines of the commit that fixed a broken ``--enable-pystats`` build) or a *revert* (a bisect's
culprit undone, to confirm it). The text comes from the mirror; the build's cache key includes it."""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass
from typing import Any


class Kind(enum.StrEnum):
    REPAIR = "repair"
    REVERT = "revert"


@dataclass(frozen=True)
class UpstreamPatch:
    """One upstream change as a patch: which commit, which files, how it was chosen, and its text."""

    kind: Kind
    sha: str  # the fixing commit (repair) or the commit undone (revert)
    subject: str
    paths: tuple[str, ...]  # files it changes
    text: str
    how: str  # why this commit: "known window incremental-gc (configs/repairs.toml)", "found by search", …
    left_out: int = 0  # changed lines of the commit in these files that are not stats (repair), not taken

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def digest(self) -> str:
        """What the build's cache key includes."""
        return f"{self.kind}:{self.sha}:{self.sha256}"

    @property
    def file_name(self) -> str:
        return f"{self.kind}-{self.sha[:10]}.patch"

    def describe(self) -> str:
        """``repaired with upstream 23e4f80ce2 (Python/gc.c, Include/cpython/pystats.h)``."""
        files = ", ".join(self.paths)
        if self.kind is Kind.REPAIR:
            return f"repaired with upstream {self.sha[:10]} ({files})"
        return f"upstream {self.sha[:10]} reverted ({files})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "sha": self.sha,
            "subject": self.subject,
            "paths": list(self.paths),
            "how": self.how,
            "left_out": self.left_out,
            "sha256": self.sha256,
            "file": f"upstream/{self.file_name}",
            "describe": self.describe(),
        }


def describe_all(patches: tuple[UpstreamPatch, ...]) -> str:
    """Every upstream change of a build in one phrase ("" when there is none)."""
    return "; ".join(p.describe() for p in patches)
