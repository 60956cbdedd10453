"""Benchmark sites on a real v3.13.5 build: a compiled requirement (bm_yaml: PyYAML's cp313 wheel) and
a pure one (bm_tomli_loads) installed offline from the benchmark wheelhouse, importable by the built
interpreter from a read-only mount; a wheelhouse without a file the lock names is WheelMissing (exit 17)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.pyperformance import sites
from pystats_harness.pyperformance.errors import WheelMissing
from pystats_harness.pyperformance.fallbacks import Fallback, Kind
from pystats_harness.pyperformance.interpreters import Installer
from pystats_harness.pyperformance.locks import Lock
from pystats_harness.pyperformance.sites import SiteReady, benchmark_data_dir, driver_plan, prepare_site
from pystats_harness.pyperformance.wheelhouse import Choice, SitePlan, Source, read_wheelhouse
from tests.support.builds import built
from tests.support.invoke_runner import Harness

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("benchmark_wheelhouse")]


def context(harness: Harness) -> Context:
    """The harness's context with the wheelhouse the tasks would use (INVOKE_PYSTATS_WHEELHOUSE_DIR
    as for `invoke`; else the default one, which scripts/bootstrap.sh fills)."""
    ctx = harness.context()
    chosen = os.environ.get("INVOKE_PYSTATS_WHEELHOUSE_DIR")
    return ctx.with_settings(ctx.settings.with_overrides(wheelhouse_dir=Path(chosen))) if chosen else ctx


@pytest.fixture(scope="module")
def entry(harness: Harness) -> CacheEntry:
    return built(harness, "v3.13.5")


def test_sites_for_a_compiled_and_a_pure_requirement_import_with_the_built_interpreter(
    harness: Harness, entry: CacheEntry
) -> None:
    ctx = context(harness)
    data = benchmark_data_dir(ctx)
    assert (data / "bm_yaml" / "run_benchmark.py").is_file() and (data / "MANIFEST").is_file()
    sites = {bench: prepare_site(ctx, entry, bench) for bench in ("bm_yaml", "bm_tomli_loads")}
    assert all(isinstance(site, SiteReady) for site in sites.values()), sites
    assert prepare_site(ctx, entry, "bm_yaml") == sites["bm_yaml"]  # cached: the same directory
    # PyYAML 6.0.1 has no cp313 wheel: it was built from its sdist against this interpreter (without
    # libyaml, which the builder image lacks, so yaml.__with_libyaml__ is False).
    yaml_site = sites["bm_yaml"]
    assert isinstance(yaml_site, SiteReady)
    outcome = json.loads((yaml_site.path.parent / "outcome.json").read_text())
    assert outcome["built"] == ["pyyaml-6.0.1-cp313-cp313-linux_x86_64.whl"] and "yaml" in outcome["modules"]
    probe = "import json, yaml, tomli; print(json.dumps([yaml.__version__, tomli.loads('a = 1'), yaml.__file__]))"
    mounts = tuple(
        engine.Mount(str(site.path), f"/site/{bench}", read_only=True)
        for bench, site in sites.items()
        if isinstance(site, SiteReady)
    )
    result = run_python(
        ctx,
        entry,
        RunRequest(("-c", probe), env={"PYTHONPATH": "/site/bm_yaml:/site/bm_tomli_loads"}, mounts=mounts),
    )
    assert result.exit_code == 0, result.stderr[-2000:]
    version, loaded, where = json.loads(result.stdout.strip().splitlines()[-1])
    assert (version, loaded) == ("6.0.1", {"a": 1}) and where.startswith("/site/bm_yaml/")


def test_a_file_missing_from_the_wheelhouse_is_wheel_missing_naming_the_package(
    harness: Harness, entry: CacheEntry, tmp_path: Path
) -> None:
    ctx = context(harness)
    source = read_wheelhouse(ctx.settings.wheelhouse_dir).root
    copy = tmp_path / "wheelhouse" / "benchmarks"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*.whl", "*.tar.gz", "*.zip"))
    ctx = ctx.with_settings(ctx.settings.with_overrides(wheelhouse_dir=copy.parent))
    with pytest.raises(WheelMissing) as caught:
        prepare_site(ctx, entry, "bm_yaml")
    assert caught.value.exit_code == 17 and caught.value.package == "pyyaml==6.0.1"
    assert f"make_benchmark_wheelhouse.py {copy.parent} --versions 3.13" in str(caught.value)


def _sdist(into: Path, name: str, setup_py: str) -> Path:
    """A planted sdist: a one-module package whose setup.py is ``setup_py``."""
    root = into / f"{name}-1.0"
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools", "wheel"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    (root / "setup.py").write_text(setup_py.replace("NAME", name))
    (root / f"{name}.py").write_text("VALUE = 1\n")
    (root / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    archive = shutil.make_archive(str(into / f"{name}-1.0"), "gztar", into, f"{name}-1.0")
    shutil.rmtree(root)
    return Path(archive)


def test_a_failed_sdist_takes_its_fallback_in_the_real_driver_built_again_with_env_or_left_out(
    harness: Harness, entry: CacheEntry, tmp_path: Path
) -> None:
    """The site driver in a confined container of the v3.13.5 build: a package whose C build fails unless a
    variable is set is built again with it (env), one that always fails is left out (omit); both are recorded."""
    ctx = context(harness)
    real = read_wheelhouse(ctx.settings.wheelhouse_dir)
    source, root = real.root, tmp_path / "wheelhouse" / "benchmarks"
    (root / "files").mkdir(parents=True)
    shutil.copytree(source / "tools", root / "tools", ignore=shutil.ignore_patterns("pyperformance-*"))
    shutil.copytree(
        source / "build",
        root / "build",
        ignore=lambda _d, names: [n for n in names if not n.startswith(("setuptools-8", "wheel-"))],
    )
    fails = 'import os\nfrom setuptools import setup\nif not os.environ.get("PLANTED_PURE"):\n    raise SystemExit("planted.c:1:1: error: does not compile here")\nsetup(name="NAME", version="1.0", py_modules=["NAME"])\n'
    always = 'raise SystemExit("optional.c:1:1: error: never compiles")\n'
    files = [_sdist(root / "files", "planted", fails), _sdist(root / "files", "optional", always)]
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    ctx = ctx.with_settings(ctx.settings.with_overrides(wheelhouse_dir=root.parent))
    plan = SitePlan(
        Lock("bm_planted", "3.13", ("planted==1.0", "optional==1.0"), "0" * 64),
        tuple(Choice(f.name.split("-")[0], "1.0", f"files/{f.name}", Source.SDIST) for f in files),
        on_failure=(
            Fallback("planted", Kind.ENV, "its C part is optional", env={"PLANTED_PURE": "1"}),
            Fallback("optional", Kind.OMIT, "never imported by the timed code"),
        ),
    )
    driver = driver_plan(plan, real.pip_wheel(Installer.CURRENT))  # its name, under tools/
    staging = tmp_path / "staging"
    staging.mkdir()
    outcome = sites._make(ctx, entry, plan, driver, staging)  # what prepare_site runs once a plan has fallbacks
    assert outcome["status"] == "ready", outcome
    assert outcome["built"] == ["planted-1.0-py3-none-any.whl"] and "planted" in outcome["modules"]
    used = {u["package"]: u for u in outcome["fallbacks"]}
    assert (
        used["planted"]["done"] == "built with PLANTED_PURE=1" and "does not compile here" in used["planted"]["because"]
    )
    assert used["optional"]["done"] == "left out" and "never compiles" in used["optional"]["because"]
    assert not list((staging / "site").glob("optional*"))
