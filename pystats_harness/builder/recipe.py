"""What a build is made of, as one value: the resolved commit, the ``--patches`` asked for, the build
configuration, and upstream changes applied on top (a bisect's revert). A :class:`Recipe` is what every
unit of work carries and what :func:`~pystats_harness.builder.obtain.plan_for` plans; it is frozen and
small, so it travels to a cluster worker as it is (the worker finds the commit in its own mirror)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.builder.upstream import UpstreamPatch
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror


@dataclass(frozen=True)
class Recipe:
    commit: CommitInfo  # resolved once, at the edge (or in this worker's mirror: :meth:`at`)
    patches: str = "auto"  # --patches as given: auto, none, or change ids
    config: ConfigName = DEFAULT
    extra: tuple[UpstreamPatch, ...] = ()  # upstream changes after the patch series (a bisect's revert)

    @classmethod
    def resolve(cls, ctx: Context, rev: str | None, patches: str = "auto", config: ConfigName = DEFAULT) -> Recipe:
        """The recipe of ``rev`` (the setting ``default_rev`` when not given), resolved once in this
        machine's mirror (RevisionNotFound, exit 3)."""
        return cls(resolve_rev(ctx, rev), patches, config)

    def at(self, commit: CommitInfo) -> Recipe:
        """The same recipe for ``commit`` (the same sha found in another mirror)."""
        return replace(self, commit=commit)

    def describe(self) -> str:
        """``v3.13.5 (--patches auto, --config tier2)``: the default configuration is not named."""
        config = "" if self.config == DEFAULT else f", --config {self.config}"
        return f"{self.commit.rev} (--patches {self.patches}{config})"


def resolve_rev(ctx: Context, rev: str | None) -> CommitInfo:
    """``--rev`` (the setting ``default_rev`` when not given) resolved in this machine's mirror."""
    return Mirror(ctx.settings.mirror_dir).resolve(rev or ctx.settings.default_rev)
