"""Every data path the harness reads from its own checkout, in one place."""

from __future__ import annotations

from pathlib import Path

#: The checkout: tasks.py, configs/, docker/, patches/ and the package itself.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = PROJECT_ROOT / "pystats_harness"
#: The reference suite: stdlib-only scripts, mounted read-only into run containers.
SUITE_DIR = PACKAGE_DIR / "suite"
#: docker/Dockerfile and build-deps.txt: the builder image's context.
DOCKER_DIR = PROJECT_ROOT / "docker"
CONFIGS_DIR = PROJECT_ROOT / "configs"
PATCHES_DIR = PROJECT_ROOT / "patches"
PATCH_SERIES = CONFIGS_DIR / "patch-series.toml"
CONFIGURATIONS_TOML = CONFIGS_DIR / "configurations.toml"
SUITE_TOML = CONFIGS_DIR / "suite.toml"
COLLECT_TOML = CONFIGS_DIR / "collect.toml"
SITES_TOML = CONFIGS_DIR / "sites.toml"
BASELINES_DIR = CONFIGS_DIR / "baselines"
REPAIRS_TOML = CONFIGS_DIR / "repairs.toml"
