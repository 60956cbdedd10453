"""What a build entry records and keeps besides its install: the sources the harness reads later (name
tables, summarize_stats.py, the canary rules' instruction handlers), the files its patches touch, and
its ``manifest.json`` (pure: from the plan, the build's facts and its fingerprint)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pystats_harness import __version__
from pystats_harness.builder import probes
from pystats_harness.builder.plan import BuildPlan

#: Files copied from the worktree into the artifact (for summarize_stats.py, name tables, and the
#: instruction handlers and dispatch macros the canary rules are read from: suite/canary_source.py).
SOURCE_SUBSET = (
    "Tools/scripts/summarize_stats.py",
    "Python/ceval.c",
    "Python/ceval_macros.h",
    "Python/generated_cases.c.h",
    "Python/bytecodes.c",
    "Python/specialize.c",
    "Include/pystats.h",
    "Include/cpython/pystats.h",
    "Include/opcode.h",
    "Include/opcode_ids.h",
    "Include/internal/pycore_code.h",
    "Include/internal/pycore_opcode.h",
    "Include/internal/pycore_opcode_metadata.h",
    "Include/internal/pycore_uop_ids.h",
    "Lib/opcode.py",
    "Lib/_opcode_metadata.py",
    "configure.ac",
)


def patched_files(patches: list[Path]) -> list[str]:
    """Paths a list of patches touches (their builds must recompile them)."""
    files = []
    for patch in patches:
        for line in patch.read_text(errors="replace").splitlines():
            if line.startswith("+++ b/"):
                files.append(line[6:].split("\t")[0])
    return files


def copy_source_subset(worktree: Path, dest: Path) -> list[str]:
    """The :data:`SOURCE_SUBSET` files the worktree has, copied under ``dest``; their paths."""
    copied = []
    for rel in SOURCE_SUBSET:
        src = worktree / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
            copied.append(rel)
    return copied


def manifest(plan: BuildPlan, facts: dict[str, Any], report: probes.ProbeReport, *, strict: bool) -> dict[str, Any]:
    """Pure: what ``manifest.json`` records about a finished build."""
    return {
        "harness_version": __version__,
        "key": plan.key,
        "revision": plan.commit.rev,
        "sha": plan.commit.sha,
        "commit_date": plan.commit.date,
        "subject": plan.commit.subject,
        "configuration": plan.configuration.name,
        "configuration_form": {"id": plan.configuration.form, "llvm": plan.configuration.llvm},
        "runtime": plan.configuration.runtime(),
        "patches": plan.patches.manifest_patches(),
        "upstream": [u.to_dict() for u in plan.upstream],
        "configure_flags": list(plan.all_configure_args),
        "image": {"tag": plan.image_tag, "id": plan.image_id},
        "compiler": facts.get("compiler", "unknown"),
        "ccache": facts.get("ccache", {}),
        "build_dir": facts.get("build_dir", {}),
        "seconds": facts["seconds"],
        "python": report.python,
        "fingerprint": report.fingerprint,
        "verification": {
            "ok": report.ok,
            "mismatches": report.mismatches,
            "strict": strict,
            "configuration": report.configuration,
            "exempt": report.exempted,
        },
        "patch_decisions": plan.patches.manifest_decisions(),
        "source_files": facts.get("source_files", []),
        "built_at": facts["built_at"],
    }
