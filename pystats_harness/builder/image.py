"""`invoke image`: the builder image, from a registry base or a debootstrapped one."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.builder.configurations import load_configurations, variant_image
from pystats_harness.errors import ConfigError, ImageError
from pystats_harness.infra import engine, proc
from pystats_harness.infra.context import Context
from pystats_harness.resources import DOCKER_DIR


@dataclass(frozen=True)
class ImageResult:
    tag: str
    image_id: str
    base: str
    bootstrapped: bool


def build_deps() -> list[str]:
    lines = (DOCKER_DIR / "build-deps.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def debian_mirror_from_apt(sources_dir: Path = Path("/etc/apt"), suite: str = "bookworm") -> str:
    """The machine's own Debian archive URI for ``suite`` (not its security archive)."""
    candidates: list[tuple[str, list[str]]] = []
    for f in sorted((sources_dir / "sources.list.d").glob("*.sources")):
        for stanza in f.read_text(errors="replace").split("\n\n"):
            fields = dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", stanza, re.M))
            if "deb" in fields.get("Types", "").split():
                for uri in fields.get("URIs", "").split():
                    candidates.append((uri, fields.get("Suites", "").split()))
    legacy = sources_dir / "sources.list"
    if legacy.exists():
        for line in legacy.read_text(errors="replace").splitlines():
            m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", line)
            if m:
                candidates.append((m.group(1), [m.group(2)]))
    for uri, suites in candidates:
        if suite in suites and "security" not in uri:
            return uri.rstrip("/")
    raise ConfigError(
        f"no Debian archive for suite {suite} in {sources_dir}/sources.list*; set pystats.debian_mirror to a Debian mirror URI"
    )


def bootstrap_base(ctx: Context, on_line: Callable[[str], None]) -> str:
    """debootstrap a minimal Debian with the build deps and ``docker import`` it; returns its tag."""
    settings = ctx.settings
    if shutil.which("debootstrap") is None:
        raise ImageError("debootstrap is not installed; run `apt-get install debootstrap` (or scripts/install-host.sh)")
    mirror = settings.debian_mirror or debian_mirror_from_apt(suite=settings.debian_suite)
    settings.paths.bootstrap_rootfs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rootfs-", dir=settings.paths.bootstrap_rootfs) as tmp:
        rootfs = Path(tmp) / "rootfs"
        cmd = [
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(build_deps())}",
            settings.debian_suite,
            str(rootfs),
            mirror,
        ]
        on_line("+ " + " ".join(cmd))
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as debootstrap:
            assert debootstrap.stdout is not None
            tail: list[str] = []
            for line in debootstrap.stdout:
                tail = [*tail, line.rstrip()][-20:]
                if line.startswith(("I: Retrieving Release", "I: Base system installed", "E:", "W:")):
                    on_line(line.rstrip())
        if debootstrap.returncode != 0:
            raise ImageError(f"debootstrap failed (exit {debootstrap.returncode}): {' | '.join(tail[-3:])}")
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for p in (rootfs / junk).glob("*"):
                if p.is_file():
                    p.unlink()
        tar_path = Path(tmp) / "rootfs.tar"
        on_line(f"+ tar -C {rootfs} -cf {tar_path} .")
        proc.run(
            ["tar", "-C", str(rootfs), "-cf", str(tar_path), "."],
            error=ImageError,
            what="packing the bootstrapped root file system",
        )
        on_line(f"+ docker import {tar_path} {settings.bootstrap_image}")
        engine.import_rootfs(ctx.docker, tar_path, settings.bootstrap_image, ["ENV LANG=C.UTF-8", 'CMD ["bash"]'])
    return settings.bootstrap_image


def build_builder_image(ctx: Context, *, bootstrap: bool, on_line: Callable[[str], None]) -> ImageResult:
    """Build docker/Dockerfile as ``settings.image``; with ``bootstrap`` make the base first."""
    settings, client = ctx.settings, ctx.docker
    base = settings.base_image
    if bootstrap:
        if engine.image_id(client, settings.bootstrap_image) is None:
            bootstrap_base(ctx, on_line)
        else:
            on_line(f"bootstrapped base {settings.bootstrap_image} already exists; reusing it")
        base = settings.bootstrap_image
    image = engine.build_image(client, DOCKER_DIR, settings.image, {"BASE": base}, on_line)
    return ImageResult(tag=settings.image, image_id=image, base=base, bootstrapped=bootstrap)


def build_llvm_variant(ctx: Context, version: int, on_line: Callable[[str], None]) -> ImageResult:
    """The builder image with Debian's LLVM ``version`` added (docker/llvm/Dockerfile on top of
    ``settings.image``), tagged as the jit configuration's plans look it up."""
    settings = ctx.settings
    llvm = load_configurations().llvm
    if version not in llvm.available:
        have = ", ".join(map(str, llvm.available))
        raise ConfigError(f"--llvm {version}: the builder's Debian has LLVM {have} (configs/configurations.toml)")
    engine.require_image(ctx.docker, settings.image)
    tag = variant_image(settings.image, version)
    args = {"BASE": settings.image, "PACKAGES": " ".join(llvm.packages_for(version))}
    image = engine.build_image(ctx.docker, DOCKER_DIR / "llvm", tag, args, on_line)
    return ImageResult(tag=tag, image_id=image, base=settings.image, bootstrapped=False)
