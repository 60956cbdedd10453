"""Asking the package index, for the benchmark wheelhouse (:mod:`.wheelhouse_fetch`): exact pins for an
X.Y (``uv pip compile``), downloads (``pip download --no-deps``), which wheels fit an X.Y on this arch
(manylinux of the builder image's glibc, abi3, pure), what an sdist needs to build, and the line that
says why pip failed."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

#: The builder image is Debian bookworm (glibc 2.36): every manylinux tag up to that glibc, listed one by one
#: (pip download does not expand a --platform to older ones).
MANYLINUX = "manylinux_2_36"
GLIBC_MINORS = range(5, 37)
LEGACY_MANYLINUX = ("manylinux2014", "manylinux2010", "manylinux1")
#: What building an sdist needs when it declares nothing (pip's legacy default) and always (bdist_wheel).
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0", "wheel")


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


#: pip's framing around a failed build, never the line that says why.
PIP_NOISE = ("subprocess-exited-with-error", "note:", "hint:", "encountered error", "[end of output]", "failed to build",
             "metadata-generation-failed", "exit code:", "did not run successfully")  # fmt: skip


def last_error(output: str) -> str:
    """The line that says why pip failed (a Rust toolchain a package needs is named as such)."""
    if any(word in output for word in ("maturin", "cargo", "rustc")):
        return "needs a Rust toolchain (maturin/cargo), which the builder image does not have"
    lines = [line.strip(" │╰─>×").strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not line.startswith("WARNING")]
    meaningful = [line for line in lines if not any(noise in line.lower() for noise in PIP_NOISE)]
    errors = [line for line in meaningful if "error" in line.lower()]
    return (errors or meaningful or lines or ["(no output)"])[-1][:300]


def download(dest: Path, *args: str) -> list[str]:
    """pip download into a fresh temp dir beside ``dest``; move the files over; their names (or raise)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".download-") as tmp:
        result = pip("download", "--dest", tmp, *args)
        if result.returncode != 0:
            raise RuntimeError(last_error(result.stdout + result.stderr))
        names = sorted(os.listdir(tmp))
        for name in names:
            os.replace(Path(tmp) / name, dest / name)
            (dest / name).chmod(0o644)
    return names


def wheel_args(version: str, arch: str) -> list[str]:
    abi = "cp" + version.replace(".", "")
    platforms = [
        *(f"manylinux_2_{minor}_{arch}" for minor in GLIBC_MINORS),
        *(f"{tag}_{arch}" for tag in LEGACY_MANYLINUX),
    ]
    return [
        "--only-binary=:all:", "--python-version", version, "--implementation", "cp",
        "--abi", abi, "--abi", "abi3", "--abi", "none",
        *(arg for platform in [*platforms, "any"] for arg in ("--platform", platform)),
    ]  # fmt: skip


def pure_args(version: str) -> list[str]:
    return ["--only-binary=:all:", "--python-version", version, "--implementation", "py", "--abi", "none",
            "--platform", "any"]  # fmt: skip


def is_pure(wheel: str) -> bool:
    return wheel.endswith("-none-any.whl")


def resolve(
    requirements: list[str], version: str, arch: str, *, as_of: str | None = None, no_deps: bool = False
) -> list[str]:
    """Exact pins for ``version`` (uv pip compile; markers evaluated for that X.Y on Linux ``arch``);
    ``as_of`` (``YYYY-MM-DD``): only files uploaded before that day; ``no_deps``: the requirements alone."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as req:
        req.write("\n".join(requirements) + "\n")
        req.flush()
        command = [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate",
                   "--no-python-downloads", "--python-version", version, "--python-platform", f"{arch}-{MANYLINUX}",
                   *(["--exclude-newer", as_of] if as_of else []), *(["--no-deps"] if no_deps else []), req.name]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        when = f" as of {as_of}" if as_of else ""
        raise RuntimeError(f"resolving {requirements} for {version}{when} failed: {last_error(result.stderr)}")
    return [line.strip() for line in result.stdout.splitlines() if "==" in line]


def published_before(requirements: list[str], version: str, arch: str, day: str) -> bool:
    """Whether every one of ``requirements`` (exact pins) was on the index before ``day``."""
    try:
        resolve(requirements, version, arch, as_of=day, no_deps=True)
    except RuntimeError:
        return False
    return True


def sdist_build_requires(sdist: Path) -> list[str]:
    """[build-system].requires of an sdist's pyproject.toml, or pip's legacy default."""
    text = None
    if sdist.name.endswith(".zip"):
        with zipfile.ZipFile(sdist) as archive:
            names = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith("/pyproject.toml")]
            text = archive.read(names[0]).decode() if names else None
    else:
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/pyproject.toml")]
            handle = archive.extractfile(members[0]) if members else None
            text = handle.read().decode() if handle else None
    requires = tomllib.loads(text).get("build-system", {}).get("requires") if text else None
    return [*(requires if requires is not None else DEFAULT_BUILD_REQUIRES), "wheel"]
