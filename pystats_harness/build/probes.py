"""After a build: Python facts, the behaviour fingerprint (fresh containers), and names.json."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pystats_harness.build import fingerprint
from pystats_harness.build.cache import CacheEntry, write_json
from pystats_harness.config import Settings
from pystats_harness.console import Reporter
from pystats_harness.errors import VerificationFailed
from pystats_harness.infra.runner import RunRequest, run_python

PYINFO = (
    "import json, sys, sysconfig; print(json.dumps({'version': sys.version.split()[0], "
    "'hexversion': sys.hexversion, 'py_stats': sysconfig.get_config_var('Py_STATS'), "
    "'implementation': sys.implementation.name, 'has_stats_api': hasattr(sys, '_stats_on')}))"
)


@dataclass(frozen=True)
class ProbeReport:
    python: dict[str, Any]
    verdicts: tuple[fingerprint.ProbeVerdict, ...]

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)

    @property
    def fingerprint(self) -> dict[str, Any]:
        return {
            v.probe.id: {"expect": v.probe.expect, "observed": v.observed, "ok": v.ok, "problems": list(v.problems)}
            for v in self.verdicts
        }

    @property
    def mismatches(self) -> list[str]:
        return [f"{v.probe.id}: {'; '.join(v.problems)}" for v in self.verdicts if not v.ok]


def _observe(
    settings: Settings, entry: CacheEntry, probe: fingerprint.Probe, image: str | None, client: Any
) -> fingerprint.ProbeVerdict:
    request = RunRequest(probe.argv, env=dict(probe.env), stats_dir=probe.stats_dir_present, label=f"probe-{probe.id}")
    r = run_python(settings, entry, request, client, image=image, require_complete=image is None)
    obs = fingerprint.Observation(r.exit_code, r.stdout, r.stderr, r.stats_texts())
    return fingerprint.judge(probe, obs)


def collect(settings: Settings, entry: CacheEntry, *, image: str | None = None, client: Any = None) -> ProbeReport:
    """Run every fingerprint probe in its own fresh container (a few in parallel) and judge it."""
    complete = image is None
    info = run_python(
        settings,
        entry,
        RunRequest(("-c", PYINFO), stats_dir=False, label="pyinfo"),
        client,
        image=image,
        require_complete=complete,
    )
    python = json.loads(info.stdout.strip().splitlines()[-1]) if info.exit_code == 0 else {"error": info.stderr[-500:]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        verdicts = tuple(pool.map(lambda p: _observe(settings, entry, p, image, client), fingerprint.PROBES))
    return ProbeReport(python=python, verdicts=verdicts)


def capture_names(settings: Settings, entry: CacheEntry, image: str, client: Any = None) -> dict[str, Any]:
    """Opcode/family/failure-kind tables from the build's own interpreter and sources -> names.json."""
    from pystats_harness.stats.names import CAPTURE_SCRIPT, DEFINE_SOURCES, NameTables, source_defines

    r = run_python(
        settings,
        entry,
        RunRequest(("-I", "-c", CAPTURE_SCRIPT), stats_dir=False, label="names"),
        client,
        image=image,
        require_complete=False,
    )
    if r.exit_code != 0:
        raise VerificationFailed(f"capturing opcode names with the built interpreter failed: {r.stderr.strip()[-300:]}")
    files = {
        rel: (entry.source_dir / rel).read_text(errors="replace")
        for rel in DEFINE_SOURCES
        if (entry.source_dir / rel).is_file()
    }
    tables = NameTables.from_capture(r.stdout, source_defines(files)).to_json()
    write_json(entry.names_path, tables)
    return tables


def enforce(report: ProbeReport, *, strict: bool, reporter: Reporter, what: str) -> None:
    """A mismatch fails (strict) or is shown and recorded (the user chose the patches)."""
    if report.ok:
        return
    reporter.console.print(fingerprint.render_table(report.verdicts, title=f"behaviour fingerprint of {what}"))
    summary = (
        f"behaviour fingerprint of {what} differs from fixed pystats in {len(report.mismatches)} probe(s): "
        + ", ".join(m.split(":")[0] for m in report.mismatches)
    )
    if strict:
        raise VerificationFailed(summary + "; see the table above")
    reporter.warn(summary + " (recorded in the manifest; not fatal because --patches was chosen explicitly)")
