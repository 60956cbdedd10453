"""After a build: Python facts, the behaviour fingerprint (fresh containers), and names.json."""

from __future__ import annotations

import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.builder import fingerprint
from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import VerificationFailed
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.stats.names import CAPTURE_SCRIPT, DEFINE_SOURCES, NameTables, source_defines

PYINFO = (
    "import json, sys, sysconfig; print(json.dumps({'version': sys.version.split()[0], "
    "'hexversion': sys.hexversion, 'py_stats': sysconfig.get_config_var('Py_STATS'), "
    "'implementation': sys.implementation.name, 'has_stats_api': hasattr(sys, '_stats_on')}))"
)


@dataclass(frozen=True)
class ProbeReport:
    """The fingerprint of one build, run with its configuration's run-time switch. A probe the
    configuration exempts (configs/configurations.toml, with the reason) does not fail it, and is
    reported as exempt with that reason, never as a pass."""

    python: dict[str, Any]
    verdicts: tuple[fingerprint.ProbeVerdict, ...]
    configuration: str = "default"
    exempt: Mapping[str, str] = field(default_factory=dict)  # probe id -> why it cannot hold here

    @property
    def ok(self) -> bool:
        return all(v.ok or v.probe.id in self.exempt for v in self.verdicts)

    @property
    def failed_probes(self) -> tuple[str, ...]:
        return tuple(v.probe.id for v in self.verdicts if not v.ok and v.probe.id not in self.exempt)

    @property
    def exempted(self) -> dict[str, str]:
        """The exempt probes of this fingerprint, with the reason (whether or not they held)."""
        return {v.probe.id: self.exempt[v.probe.id] for v in self.verdicts if v.probe.id in self.exempt}

    @property
    def fingerprint(self) -> dict[str, Any]:
        return {
            v.probe.id: {
                "expect": v.probe.expect.value,
                "observed": v.observed,
                "ok": v.ok,
                "problems": list(v.problems),
                **({"exempt": self.exempt[v.probe.id]} if v.probe.id in self.exempt else {}),
            }
            for v in self.verdicts
        }

    @property
    def mismatches(self) -> list[str]:
        return [f"{v.probe.id}: {'; '.join(v.problems)}" for v in self.verdicts if v.probe.id in self.failed_probes]


def _observe(ctx: Context, entry: CacheEntry, probe: fingerprint.Probe, image: str | None) -> fingerprint.ProbeVerdict:
    request = RunRequest(probe.argv, env=dict(probe.env), stats_dir=probe.stats_dir_present, label=f"probe-{probe.id}")
    r = run_python(ctx, entry, request, image=image, require_complete=image is None)
    obs = fingerprint.Observation(r.exit_code, r.stdout, r.stderr, r.stats_texts())
    return fingerprint.judge(probe, obs)


def collect(
    ctx: Context,
    entry: CacheEntry,
    *,
    image: str | None = None,
    configuration: str = "default",
    exempt: Mapping[str, str] | None = None,
) -> ProbeReport:
    """Run every fingerprint probe in its own fresh container (a few in parallel) and judge it; each
    run carries the build's run-time switch (the runner adds it). Without ``configuration`` and
    ``exempt`` they are read from the entry's manifest (a cached build).

    ``image`` is given during a build, before the entry is complete."""
    if exempt is None:
        recorded = entry.manifest().get("verification", {}) if entry.manifest_path.is_file() else {}
        configuration = recorded.get("configuration", configuration)
        exempt = dict(recorded.get("exempt", {}))
    request = RunRequest(("-c", PYINFO), stats_dir=False, label="pyinfo")
    info = run_python(ctx, entry, request, image=image, require_complete=image is None)
    python = json.loads(info.stdout.strip().splitlines()[-1]) if info.exit_code == 0 else {"error": info.stderr[-500:]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        verdicts = tuple(pool.map(lambda p: _observe(ctx, entry, p, image), fingerprint.PROBES))
    return ProbeReport(python, verdicts, configuration, dict(exempt))


def capture_names(ctx: Context, entry: CacheEntry, image: str) -> dict[str, Any]:
    """Opcode/family/failure-kind tables from the build's own interpreter and sources -> names.json."""
    request = RunRequest(("-I", "-c", CAPTURE_SCRIPT), stats_dir=False, label="names")
    r = run_python(ctx, entry, request, image=image, require_complete=False)
    if r.exit_code != 0:
        raise VerificationFailed(f"capturing opcode names with the built interpreter failed: {r.stderr.strip()[-300:]}")
    files = {
        rel: (entry.source_dir / rel).read_text(errors="replace")
        for rel in DEFINE_SOURCES
        if (entry.source_dir / rel).is_file()
    }
    tables = NameTables.from_capture(r.stdout, source_defines(files)).to_dict()
    write_json_atomic(entry.names_path, tables, indent=2, sort_keys=True)
    return tables


def mismatch_summary(report: ProbeReport, what: str) -> str:
    if not report.failed_probes:
        return f"behaviour fingerprint of {what}: {exempt_line(report)}"
    return (
        f"behaviour fingerprint of {what} differs from fixed pystats in {len(report.failed_probes)} probe(s): "
        + ", ".join(report.failed_probes)
    )


def exempt_line(report: ProbeReport) -> str:
    """The probes the build's configuration exempts, with the reasons, as one phrase."""
    reasons = "; ".join(f"{probe}: {why}" for probe, why in report.exempted.items())
    return f"not checked for configuration {report.configuration} (exempt): {reasons}"


def enforce(ctx: Context, report: ProbeReport, *, strict: bool, what: str) -> None:
    """A mismatch fails (strict) or is shown and recorded (the user chose the patches); a probe the
    configuration exempts is said to be unchecked, with its reason."""
    if report.exempted:
        ctx.reporter.warn(f"behaviour fingerprint of {what}: {exempt_line(report)}")
    if report.ok:
        return
    table = fingerprint.to_rich(report.verdicts, title=f"behaviour fingerprint of {what}", exempt=report.exempt)
    ctx.reporter.console.print(table)
    summary = mismatch_summary(report, what)
    if strict:
        raise VerificationFailed(summary + "; see the table above")
    ctx.reporter.warn(summary + " (recorded in the manifest; not fatal because --patches was chosen explicitly)")
