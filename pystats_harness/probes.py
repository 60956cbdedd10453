"""Behaviour fingerprint of a fresh build: run probes in fresh containers and judge them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .cache import CacheEntry
from .config import Settings
from .console import Reporter
from .errors import VerificationFailed
from .runner import RunRequest, run_python

PYINFO = (
    "import json, sys, sysconfig; print(json.dumps({'version': sys.version.split()[0], "
    "'hexversion': sys.hexversion, 'py_stats': sysconfig.get_config_var('Py_STATS'), "
    "'implementation': sys.implementation.name, 'has_stats_api': hasattr(sys, '_stats_on')}))"
)


@dataclass(frozen=True)
class ProbeReport:
    python: dict[str, Any]
    fingerprint: dict[str, Any]
    verification: dict[str, Any]


def _nonzero(texts: list[tuple[str, str]]) -> int:
    count = 0
    for _, text in texts:
        for line in text.splitlines():
            value = line.rpartition(":")[2].strip()
            if value.isdigit() and int(value) > 0:
                count += 1
    return count


def collect(settings: Settings, entry: CacheEntry, plan: Any, *, client: Any = None) -> ProbeReport:
    """Python facts plus what each probe left in its stats dir."""
    info = run_python(settings, entry, RunRequest(("-c", PYINFO), stats_dir=False, label="pyinfo"), client, image=plan.image_id, require_complete=False)
    python = json.loads(info.stdout.strip().splitlines()[-1]) if info.exit_code == 0 else {"error": info.stderr[-500:]}
    fingerprint: dict[str, Any] = {}
    probes = {
        "pass": ("-c", "pass"),
        "xpystats_pass": ("-X", "pystats", "-c", "pass"),
        "bracketed": ("-c", "import sys\nif hasattr(sys, '_stats_on'): sys._stats_on()\nsum(range(1000))\nif hasattr(sys, '_stats_off'): sys._stats_off()"),
    }
    for name, args in probes.items():
        r = run_python(settings, entry, RunRequest(args, label=f"probe-{name}"), client, image=plan.image_id, require_complete=False)
        texts = r.stats_texts()
        fingerprint[name] = {"exit_code": r.exit_code, "files": len(texts), "nonzero_lines": _nonzero(texts)}
    return ProbeReport(python=python, fingerprint=fingerprint, verification={"checked": False})


def capture_names(settings: Settings, entry: CacheEntry, image: str, client: Any = None) -> dict[str, Any]:
    """Opcode/family/failure-kind tables from the build's own interpreter and sources -> names.json."""
    from .names import CAPTURE_SCRIPT, DEFINE_SOURCES, NameTables, source_defines

    r = run_python(settings, entry, RunRequest(("-I", "-c", CAPTURE_SCRIPT), stats_dir=False, label="names"),
                   client, image=image, require_complete=False)
    if r.exit_code != 0:
        raise VerificationFailed(f"capturing opcode names with the built interpreter failed: {r.stderr.strip()[-300:]}")
    files = {rel: (entry.source_dir / rel).read_text(errors="replace") for rel in DEFINE_SOURCES
             if (entry.source_dir / rel).is_file()}
    tables = NameTables.from_capture(r.stdout, source_defines(files)).to_json()
    from .cache import write_json

    write_json(entry.names_path, tables)
    return tables


def enforce(report: ProbeReport, *, strict: bool, reporter: Reporter) -> None:
    mismatches = report.verification.get("mismatches", [])
    if mismatches and strict:
        raise VerificationFailed(f"behaviour fingerprint differs from the fixed semantics: {', '.join(mismatches)}")
    for m in mismatches:
        reporter.warn(f"fingerprint mismatch (recorded, not fatal): {m}")
