"""Benchmark sites: each benchmark's requirements installed for one built interpreter, offline.

``prepare_site`` plans (pure: :mod:`pystats_harness.pyperformance.wheelhouse`), then runs pip from its wheel
with the built interpreter in a confined run container of the builder image (network none, the build
and the wheelhouse read-only, as nobody), so sdists compile against that interpreter. The result is
cached per (build key, plan digest: the lock's sha256 and the files chosen, the tools: pip and its
constraints) in ``<cache_dir>/sites/<build key>/<benchmark>-<digest>-<installer>-<tools>-<recipe>/``: staged, moved into place, marker last.
A site that cannot be made is a :class:`SiteSkipped` naming the package and why (also cached: the
same build and files fail the same way).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.builder.configurations import is_free_threaded
from pystats_harness.errors import RunFailed
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import put_in_place, write_json_atomic
from pystats_harness.infra.runner import RUN_UID, RunRequest, run_python
from pystats_harness.pyperformance import sitedriver
from pystats_harness.pyperformance.fallbacks import Used
from pystats_harness.pyperformance.interpreters import installer_for, short_version
from pystats_harness.pyperformance.pip_output import failure_line
from pystats_harness.pyperformance.wheelhouse import (
    MOUNT,
    SitePlan,
    Source,
    Unavailable,
    read_wheelhouse,
)
from pystats_harness.pyperformance.wheelhouse_ensure import ensure_benchmark_wheelhouse

MARKER = "COMPLETE"
OUTCOME = "outcome.json"
DRIVER_MOUNT = "/driver"
OUT_MOUNT = "/out"
#: Bumped when what a site holds changes (the driver's steps, the choice of tools): old sites then miss and
#: are remade.
SITE_RECIPE = 8


@dataclass(frozen=True)
class SiteReady:
    """A host directory holding the benchmark's packages: mount it read-only, first on PYTHONPATH.
    ``fallbacks``: what was installed otherwise than the lock says (configs/sites.toml), and why."""

    path: Path
    fallbacks: tuple[Used, ...] = ()


@dataclass(frozen=True)
class SiteSkipped:
    package: str
    reason: str

    def __str__(self) -> str:
        return f"skipped: needs {self.package} ({self.reason})"


def _readable(root: Path) -> None:
    """World-readable (runs are nobody): directories 755, files 644."""
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


def benchmark_data_dir(ctx: Context) -> Path:
    """pyperformance's ``data-files/benchmarks`` (``bm_*/``, MANIFEST), extracted once from its wheel;
    the benchmark wheelhouse is made first if it is not complete (what needs benchmarks starts here)."""
    ensure_benchmark_wheelhouse(ctx)
    wheelhouse = read_wheelhouse(ctx.settings.wheelhouse_dir)
    base = ctx.settings.paths.pyperformance / wheelhouse.pyperformance_version
    if (base / MARKER).is_file():
        return base / "benchmarks"
    base.parent.mkdir(parents=True, exist_ok=True)
    staging = base.parent / f".staging-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    prefix = "pyperformance/data-files/benchmarks/"
    try:
        with zipfile.ZipFile(wheelhouse.pyperformance_wheel) as wheel:
            for name in wheel.namelist():
                if name.startswith(prefix) and not name.endswith("/"):
                    target = staging / "benchmarks" / name[len(prefix) :]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(wheel.read(name))
        _readable(staging)
        put_in_place(staging, base, MARKER)  # a worker's threads may extract at once: one wins, none removes
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return base / "benchmarks"


def _empty_site(ctx: Context) -> SiteReady:
    path = ctx.settings.paths.sites / "empty"
    path.mkdir(parents=True, exist_ok=True)
    return SiteReady(path)


def _cached(final: Path) -> SiteReady | SiteSkipped | None:
    if not (final / MARKER).is_file():
        return None
    outcome = json.loads((final / OUTCOME).read_text())
    if outcome["status"] == "ready":
        return SiteReady(final / "site", tuple(Used.from_dict(u) for u in outcome.get("fallbacks", [])))
    return SiteSkipped(outcome["package"], outcome["reason"])


def has_imp_importer(entry: CacheEntry) -> bool:
    """Whether the build's ``pkgutil`` still has ``ImpImporter`` (read from its installed stdlib, once
    per build: a complete entry never changes)."""
    return _has_imp_importer(entry.install_dir, entry.key)


@functools.lru_cache(maxsize=64)
def _has_imp_importer(install_dir: Path, key: str) -> bool:
    found = sorted(install_dir.glob("lib/python3*/pkgutil.py"))
    if not found:
        raise RunFailed(f"build {key} has no lib/python3*/pkgutil.py under {install_dir}")
    return "class ImpImporter" in found[0].read_text(errors="replace")


def has_tomllib(entry: CacheEntry) -> bool:
    """Whether the build's stdlib has ``tomllib`` (3.11 development before 2022-03-08 has not)."""
    return any(entry.install_dir.glob("lib/python3*/tomllib/__init__.py"))


def prepare_site(ctx: Context, entry: CacheEntry, benchmark_dir: str) -> SiteReady | SiteSkipped:
    """The site of ``benchmark_dir`` (e.g. ``bm_yaml``) for the build ``entry``; raises WheelMissing when
    the wheelhouse lacks a file the lock names."""
    python_version = str(entry.manifest()["python"]["version"])
    ensure_benchmark_wheelhouse(ctx, python=short_version(python_version))  # its X.Y's part (3.14: not by default)
    wheelhouse = read_wheelhouse(ctx.settings.wheelhouse_dir)
    if wheelhouse.requirements(benchmark_dir) is None:
        return _empty_site(ctx)
    free_threaded = is_free_threaded(entry.manifest())  # --disable-gil: ABI cp3Nt
    plan = wheelhouse.plan(python_version, benchmark_dir, free_threaded)
    if isinstance(plan, Unavailable):
        return SiteSkipped(plan.package, plan.reason)
    installer = installer_for(python_version, has_imp_importer(entry), has_tomllib(entry))
    driver = driver_plan(plan, wheelhouse.pip_wheel(installer), wheelhouse.build_constraints(installer))
    tools = hashlib.sha256(json.dumps([driver["pip"], driver["constraints"]]).encode()).hexdigest()[:8]
    final = ctx.settings.paths.sites / entry.key / f"{benchmark_dir}-{plan.digest()}-{installer}-{tools}-{SITE_RECIPE}"
    found = _cached(final)
    if found is not None:
        return found
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = final.parent / f".staging-{final.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    try:
        outcome = _make(ctx, entry, plan, driver, staging) | {
            "installer": installer.value,
            "lock": plan.lock.describe(),
        }
        return _commit(staging, final, outcome)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def driver_plan(plan: SitePlan, pip_wheel: Path, constraints: tuple[str, ...] = ()) -> dict[str, object]:
    """Pure: what the in-container driver installs, in container paths (and the fallbacks it may take
    when an sdist fails to build)."""
    return {
        "fallbacks": {f.package: f.to_driver() for f in plan.on_failure},
        "constraints": list(constraints),
        "pip": f"{MOUNT}/{pip_wheel.parent.name}/{pip_wheel.name}",
        "find_links": f"{MOUNT}/build",
        "target": f"{OUT_MOUNT}/site",
        "wheels": [f"{MOUNT}/{c.file}" for c in plan.choices if c.source is Source.WHEEL],
        "sdists": [[c.package, f"{MOUNT}/{c.file}"] for c in plan.choices if c.source is Source.SDIST],
    }


def _make(
    ctx: Context, entry: CacheEntry, plan: SitePlan, driver_input: dict[str, object], staging: Path
) -> dict[str, Any]:
    """Run the driver; the outcome as stored in outcome.json (ready, or skipped with package and reason)."""
    if os.geteuid() == 0:
        os.chown(staging, RUN_UID, RUN_UID)
    else:
        staging.chmod(0o777)
    driver = Path(sitedriver.__file__)
    request = RunRequest(
        args=(f"{DRIVER_MOUNT}/{driver.name}", json.dumps(driver_input)),
        # The image's CC is "ccache gcc"; without its volume ccache fails and setup.py files that
        # make their C speedups optional (MarkupSafe, SQLAlchemy) silently build pure wheels.
        env={"HOME": "/tmp", "CCACHE_DISABLE": "1", "PIP_NO_CACHE_DIR": "1", "PIP_CONFIG_FILE": "/dev/null"},
        mounts=(
            engine.Mount(str(ctx.settings.wheelhouse_dir / "benchmarks"), MOUNT, read_only=True),
            engine.Mount(str(driver.parent), DRIVER_MOUNT, read_only=True),
            engine.Mount(str(staging), OUT_MOUNT),
        ),
        label=f"site-{plan.lock.benchmark}",
    )
    result = run_python(ctx, entry, request)
    shutil.rmtree(result.run_dir / "py_stats", ignore_errors=True)  # pip's own counts: of no use
    lines = result.stdout.strip().splitlines()
    try:
        outcome = json.loads(lines[-1]) if result.exit_code == 0 and lines else None
    except ValueError:
        outcome = None
    if not isinstance(outcome, dict):
        raise RunFailed(
            f"preparing the site of {plan.lock.benchmark} did not finish (exit {result.exit_code}): "
            f"{failure_line(result.stderr or result.stdout)}; output kept in {result.run_dir}"
        )
    if outcome["status"] == "ready":
        taken = {f.package: f for f in plan.on_failure}
        used = [*plan.used] + [
            Used(u["package"], taken[u["package"]].describe(), taken[u["package"]].why, failure_line(u["output"]))
            for u in outcome.get("fallbacks", [])
        ]
        return {
            "status": "ready",
            "built": outcome.get("built", []),
            "modules": outcome.get("modules", []),
            "fallbacks": [u.to_dict() for u in used],
        }
    package = outcome["package"] or plan.lock.pins[0].split("==")[0]
    reason = f"{outcome['stage']} failed: {failure_line(outcome['output'])}"
    return {"status": "skipped", "package": package, "reason": reason}


def _commit(staging: Path, final: Path, outcome: dict[str, Any]) -> SiteReady | SiteSkipped:
    """Move the staged site into place with its marker (another thread or process may have won)."""
    if outcome["status"] != "ready":
        shutil.rmtree(staging / "site", ignore_errors=True)
    (staging / "site").mkdir(exist_ok=True)
    write_json_atomic(staging / OUTCOME, outcome)
    _readable(staging)
    put_in_place(staging, final, MARKER)  # another thread or process may have won: theirs is used
    result = _cached(final)
    assert result is not None
    return result
