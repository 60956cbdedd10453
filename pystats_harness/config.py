"""Settings: declared once (defaults here), overridable by invoke.yaml / INVOKE_PYSTATS_* / flags."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.config_values import (
    _as_bool,
    _as_cache_size,
    _as_choice,
    _as_int,
    _as_metrics,
    _as_positive,
    _as_redis_url,
    _as_scheduler,
    _as_size,
)
from pystats_harness.console import Reporter
from pystats_harness.errors import ConfigError
from pystats_harness.paths import CachePaths
from pystats_harness.resources import PROJECT_ROOT


@dataclass(frozen=True)
class Setting:
    """One setting: its default, what it means, and the default as the README says it when the value
    alone does not ("0 (= cores)"); the README's settings table is generated from these."""

    default: str
    meaning: str
    shown: str = ""


#: Every setting with its default and meaning, declared once. Values are strings on purpose: invoke
#: casts an environment value to the default's type and fails with a traceback on bad input;
#: load_settings() validates with one clear line instead.
SETTINGS: dict[str, Setting] = {
    "cache_dir": Setting(
        "~/.cache/pystats-harness",
        "mirror (`cpython.git`), `builds/`, `runs/`, reports and the rest: `invoke cache list` shows every area "
        "(`pystats_harness/paths.py`)",
    ),
    "mirror_remote": Setting(
        "https://github.com/python/cpython.git",
        "what `invoke mirror` fetches (URL or local path)",
        shown="official CPython git URL",
    ),
    "image": Setting("pystats-harness/builder:bookworm", "builder image tag"),
    "base_image": Setting("debian:bookworm-slim", "Dockerfile `BASE` when not bootstrapping"),
    "bootstrap_image": Setting("pystats-harness/base:bookworm", "tag of the debootstrapped base"),
    "debian_mirror": Setting("", "Debian archive for debootstrap", shown="derived from `/etc/apt`"),
    "debian_suite": Setting("bookworm", "Debian release debootstrap installs (and looks up in `/etc/apt`)"),
    "make_jobs": Setting(
        "0", "`make -j` of a build (the old name `jobs` still works, with a warning)", shown="0 (= cores)"
    ),
    "configure_flags_file": Setting(
        "configs/configure.toml", "extra configure flags (`--enable-pystats` is always added)"
    ),
    "default_rev": Setting("v3.13.5", "revision used when `--rev` is omitted"),
    "config": Setting("default", "build configuration used when `--config` is omitted (`configs/configurations.toml`)"),
    "repairs": Setting(
        "auto",
        "`auto`: a revision whose pystats build upstream broke is built with the stats lines of the upstream fix "
        "(`configs/repairs.toml`); `none`: never",
    ),
    "keep_containers": Setting("false", "keep containers for debugging"),
    "run_timeout": Setting("900", "seconds a run container may take"),
    # Limits of a run container: the reference suite peaks at ~50 MiB and 2 processes (pyperf runs its
    # workers one at a time). A Python fork bomb costs ~4.6 MiB per process, so it reaches 256
    # processes (~1.2 GiB) before 2g and is reported as what it is.
    "run_memory": Setting(
        "2g", "memory limit of a run container (digits and `b`/`k`/`m`/`g`, at least `6m`); no swap on top"
    ),
    "run_pids": Setting("256", "processes and threads a run container may have at once"),
    # A build's: make -jN with cc1 processes of up to a few hundred MiB each; raise for large N.
    "build_memory": Setting("8g", "memory limit of a build container (raise it for a large `make_jobs`)"),
    "build_pids": Setting("4096", "processes and threads a build container may have at once"),
    "ccache_volume": Setting("pystats-harness-ccache", "Docker volume holding the persistent ccache"),
    "ccache_remote": Setting(
        "",
        "`redis://HOST:PORT`: ccache's remote storage shared by every build host; build containers then use "
        "the host's network; unreachable → one warning, the local ccache alone",
        shown="empty (local only)",
    ),
    "cluster": Setting(
        "",
        "a Dask scheduler address (`tcp://HOST:8786`): `bisect`, `history`, `validate` and `collect` send "
        "their builds and runs to its workers",
        shown="empty (this machine)",
    ),
    "cluster_wait": Setting("120", "seconds a cluster client waits for a fit worker, then exit 18 naming each and why"),
    "baselines_dir": Setting(
        "configs/baselines", "where `invoke baseline` writes and `invoke validate` reads baselines"
    ),
    "wheelhouse_dir": Setting(
        "~/.cache/pystats-harness/wheelhouse",
        "pyperf + psutil (`scripts/make-wheelhouse.sh`), mounted read-only into automated runs; `benchmarks/`: "
        "pyperformance and the benchmarks' requirements (`scripts/make_benchmark_wheelhouse.py`)",
    ),
    "cache_max_size": Setting(
        "",
        "e.g. `50G`: after every build, least recently used builds are pruned until the cache fits",
        shown="empty (no limit)",
    ),
    "publish_metrics": Setting(
        "opcode.*.execution_count, family.<family>.specialization.hit_ratio, "
        "family.<family>.specialization.deferred_share, uops.*.execution_count, gc.*.collections",
        "the headline metrics `invoke publish` plots, comma-separated (besides any asked with `invoke results "
        "--metric`): `*` sums over one name segment, `<family>` is each family in the store "
        "(`docs/publish.md`)",
        shown="instructions, each family's hit ratio and deferred share, uops, gc collections (per loop)",
    ),
}

#: Every setting with its default. tasks.py hands this to ``ns.configure({"pystats": DEFAULTS})``
#: so that invoke.yaml and INVOKE_PYSTATS_<KEY> environment variables can override each key.
DEFAULTS: dict[str, Any] = {key: setting.default for key, setting in SETTINGS.items()}
#: Settings renamed (old name -> new name): the old name is read for one release, with a warning. ``jobs``
#: was ``make -j`` while every task's ``--jobs`` meant parallel containers.
RENAMED_SETTINGS = {"jobs": "make_jobs"}
#: What invoke's config holds: every setting, and each old name empty (not given), so that
#: INVOKE_PYSTATS_<OLD NAME> still reaches load_settings.
INVOKE_DEFAULTS: dict[str, Any] = {**DEFAULTS, **dict.fromkeys(RENAMED_SETTINGS, "")}


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Resolved settings for one invocation."""

    cache_dir: Path
    mirror_remote: str
    image: str
    base_image: str
    bootstrap_image: str
    debian_mirror: str
    debian_suite: str
    make_jobs: int  # 0: one per core (effective_make_jobs)
    configure_flags_file: Path
    default_rev: str
    config: str  # a name in configs/configurations.toml, checked where a build is planned
    repairs: str  # "auto" or "none" (builder/repairs.py)
    keep_containers: bool
    run_timeout: int
    run_memory: str  # a size the engine reads ("2g"), validated and lower-cased
    run_pids: int
    build_memory: str
    build_pids: int
    ccache_volume: str
    ccache_remote: str  # "" or "redis://host:port": build containers use it (host networking)
    cluster: str  # "" or a Dask scheduler address ("tcp://host:8786")
    cluster_wait: int  # seconds without a fit worker (or a scheduler) before exit 18
    wheelhouse_dir: Path
    baselines_dir: Path
    cache_max_size: str  # "" = no limit; else e.g. "50G": pruned to it after every build
    publish_metrics: tuple[str, ...]  # metric names, ``*`` and ``<family>`` expanded by publish

    @property
    def paths(self) -> CachePaths:
        """Every area under ``cache_dir`` (pystats_harness/paths.py names them)."""
        return CachePaths(self.cache_dir)

    # The areas most code reads, under the names it has always used.
    @property
    def mirror_dir(self) -> Path:
        return self.paths.mirror

    @property
    def builds_dir(self) -> Path:
        return self.paths.builds

    @property
    def runs_dir(self) -> Path:
        return self.paths.runs

    @property
    def worktrees_dir(self) -> Path:
        return self.paths.worktrees

    @property
    def configure_cache_dir(self) -> Path:
        return self.paths.configure_cache

    @property
    def effective_make_jobs(self) -> int:
        return self.make_jobs if self.make_jobs > 0 else (os.cpu_count() or 2)

    def with_overrides(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def settings_from_environment(environ: Mapping[str, str]) -> Settings:
    """Settings from ``INVOKE_PYSTATS_<KEY>`` variables alone, as a Dask worker process reads them."""
    prefix = "INVOKE_PYSTATS_"
    raw = {k[len(prefix) :].lower(): v for k, v in environ.items() if k.startswith(prefix)}
    return load_settings({k: v for k, v in raw.items() if k in INVOKE_DEFAULTS})


def _project_path(text: str) -> Path:
    path = Path(os.path.expanduser(text))
    return path if path.is_absolute() else PROJECT_ROOT / path


def load_settings(raw: Mapping[str, Any] | None = None) -> Settings:
    """Build Settings from a mapping (invoke's ``c.config.pystats``); unknown keys are refused."""
    merged = dict(DEFAULTS)
    for key, value in _renamed(dict(raw or {})).items():
        if key not in DEFAULTS:
            raise ConfigError(f"unknown setting pystats.{key}; known settings: {', '.join(sorted(DEFAULTS))}")
        merged[key] = value
    if (make_jobs := _as_int("make_jobs", merged["make_jobs"])) < 0:
        raise ConfigError(f"setting pystats.make_jobs={make_jobs} is negative; use 0 for one job per core")
    return Settings(
        cache_dir=Path(os.path.expanduser(str(merged["cache_dir"]))).resolve(),
        mirror_remote=str(merged["mirror_remote"]),
        image=str(merged["image"]),
        base_image=str(merged["base_image"]),
        bootstrap_image=str(merged["bootstrap_image"]),
        debian_mirror=str(merged["debian_mirror"]),
        debian_suite=str(merged["debian_suite"]),
        make_jobs=make_jobs,
        configure_flags_file=_project_path(str(merged["configure_flags_file"])),
        default_rev=str(merged["default_rev"]),
        config=str(merged["config"]).strip() or "default",
        repairs=_as_choice("repairs", merged["repairs"], ("auto", "none")),
        keep_containers=_as_bool("keep_containers", merged["keep_containers"]),
        run_timeout=_as_int("run_timeout", merged["run_timeout"]),
        run_memory=_as_size("run_memory", merged["run_memory"]),
        run_pids=_as_positive("run_pids", merged["run_pids"]),
        build_memory=_as_size("build_memory", merged["build_memory"]),
        build_pids=_as_positive("build_pids", merged["build_pids"]),
        ccache_volume=str(merged["ccache_volume"]),
        ccache_remote=_as_redis_url("ccache_remote", merged["ccache_remote"]),
        cluster=_as_scheduler("cluster", merged["cluster"]),
        cluster_wait=_as_positive("cluster_wait", merged["cluster_wait"]),
        wheelhouse_dir=Path(os.path.expanduser(str(merged["wheelhouse_dir"]))).resolve(),
        baselines_dir=_project_path(str(merged["baselines_dir"])),
        cache_max_size=_as_cache_size("cache_max_size", merged["cache_max_size"]),
        publish_metrics=_as_metrics("publish_metrics", merged["publish_metrics"]),
    )


def _renamed(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with each old setting name given (not empty) read as its new name, with a warning; both
    given (the new one not at its default) is refused."""
    for old, new in RENAMED_SETTINGS.items():
        value = raw.pop(old, "")
        if value in ("", None):
            continue
        if raw.get(new, DEFAULTS[new]) != DEFAULTS[new]:
            raise ConfigError(f"setting pystats.{old} is the old name of pystats.{new}: set {new} only")
        Reporter().warn(
            f"setting pystats.{old} (INVOKE_PYSTATS_{old.upper()}) is now pystats.{new} "
            f"(INVOKE_PYSTATS_{new.upper()}); the old name still works, for now"
        )
        raw[new] = value
    return raw
