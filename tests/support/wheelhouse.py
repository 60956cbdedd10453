"""A small benchmark wheelhouse on disk (index, locks, placeholder files) for the unit tests of sites."""

from __future__ import annotations

import json
from pathlib import Path

from pystats_harness.pyperformance.wheelhouse import SCHEMA

PACKAGES = {
    "pyyaml==6.0.1": {
        "name": "pyyaml",
        "version": "6.0.1",
        "kind": "compiled",
        "wheel": "files/PyYAML-6.0.1-cp313-cp313-manylinux_2_17_x86_64.whl",
        "sdist": "files/PyYAML-6.0.1.tar.gz",
    },
    "tomli==2.0.1": {
        "name": "tomli",
        "version": "2.0.1",
        "kind": "pure",
        "wheel": "files/tomli-2.0.1-py3-none-any.whl",
    },
    "pydantic-core==2.50.5": {
        "name": "pydantic-core",
        "version": "2.50.5",
        "kind": "compiled",
        "wheel": "files/pydantic_core-2.50.5-cp313-cp313-manylinux_2_17_x86_64.whl",
        "sdist": None,
        "sdist_note": "no sdist could be fetched: needs a Rust toolchain",
    },
    "mercurial==5.8": {
        "name": "mercurial",
        "version": "5.8",
        "kind": "sdist",
        "wheel": None,
        "sdist": "files/mercurial-5.8.tar.gz",
    },
}


def make_wheelhouse(tmp_path: Path, *, drop: str | None = None) -> Path:
    root = tmp_path / "benchmarks"
    locks = {"bm_yaml": ["pyyaml==6.0.1"], "bm_tomli_loads": ["tomli==2.0.1"], "bm_fastapi": ["pydantic-core==2.50.5"]}
    locks["bm_hg_startup"] = ["mercurial==5.8"]
    benchmarks = {}
    for bench, pins in locks.items():
        lock = root / "locks" / "3.13" / f"{bench}.txt"
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("".join(f"{p}\n" for p in pins))
        benchmarks[bench] = {"lock": f"locks/3.13/{bench}.txt", "pins": pins}
    files = [f for p in PACKAGES.values() for f in (p.get("wheel"), p.get("sdist")) if f]
    tools = [
        "tools/pip-26.3-py3-none-any.whl",
        "tools/pip-23.0.1-py3-none-any.whl",
        "tools/pip-23.2.1-py3-none-any.whl",
    ]
    for f in [*files, *tools, "tools/pyperformance-1.14.0-py3-none-any.whl"]:
        if f.rsplit("/", 1)[-1] != drop:
            (root / f).parent.mkdir(parents=True, exist_ok=True)
            (root / f).write_bytes(b"x")
    index = {
        "schema": SCHEMA,
        "pyperformance": {"version": "1.14.0", "wheel": "tools/pyperformance-1.14.0-py3-none-any.whl"},
        "pip": "tools/pip-26.3-py3-none-any.whl",
        "development": {"pip": "tools/pip-23.0.1-py3-none-any.whl", "constraints": ["setuptools==65.6.3"]},
        "development_2023": {"pip": "tools/pip-23.2.1-py3-none-any.whl", "constraints": ["setuptools==80.9.0"]},
        "requirements": {bench: pins for bench, pins in locks.items()},
        "versions": {"3.13": {"benchmarks": benchmarks, "packages": PACKAGES}},
    }
    (root / "index.json").write_text(json.dumps(index))
    return tmp_path
