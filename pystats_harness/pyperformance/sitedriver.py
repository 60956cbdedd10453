"""Runs INSIDE a container with the built interpreter (stdlib only): make one benchmark's site.

``python3 sitedriver.py PLAN_JSON``: builds each sdist into a wheel against this interpreter (one pip
call per sdist, so a failure names its package), installs every wheel with ``--no-deps`` into the
target, then imports each installed distribution's top-level modules in a fresh process. pip runs
from its wheel, offline (``--no-index``; build requirements from ``--find-links``). The last stdout
line is the outcome as JSON: ``{"status": "ready", "fallbacks": [...]}`` (an sdist that failed and took
its fallback: ``env``, built again with it; ``omit``, left out) or ``{"status": "failed", "package", "stage",
"output"}``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any, NoReturn

BUILT = "/tmp/built-wheels"

SMOKE = r"""
import importlib, json, sys
failures = []
for dist, module in json.loads(sys.argv[1]):
    try:
        importlib.import_module(module)
    except BaseException as exc:
        failures.append([dist, module, f"{type(exc).__name__}: {exc}"])
        break
print(json.dumps(failures))
"""


CONSTRAINTS = "/tmp/build-constraints.txt"


def pip(plan: dict[str, Any], *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """pip from its wheel; build constraints reach the isolated build environments through PIP_CONSTRAINT."""
    env = dict(os.environ, **(extra_env or {}))
    if plan.get("constraints"):
        with open(CONSTRAINTS, "w") as fh:
            fh.write("".join(line + "\n" for line in plan["constraints"]))
        env["PIP_CONSTRAINT"] = CONSTRAINTS
    command = [sys.executable, plan["pip"] + "/pip", "--disable-pip-version-check", "--no-input", *args]
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def finish(outcome: dict[str, Any]) -> NoReturn:
    print(json.dumps(outcome))
    sys.exit(0)


def build_sdists(plan: dict[str, Any], used: list[dict[str, str]]) -> list[str]:
    """Each sdist built into a wheel; one that fails takes its fallback where the plan names one (``env``:
    built again with those variables; ``omit``: left out), appended to ``used`` with the first failure."""
    wheels: list[str] = []
    fallbacks = plan.get("fallbacks", {})
    for package, sdist in plan["sdists"]:
        before = set(os.listdir(BUILT)) if os.path.isdir(BUILT) else set()
        command = ("wheel", "--no-deps", "--no-index", "--find-links", plan["find_links"], "-w", BUILT, sdist)
        result = pip(plan, *command)
        fallback = fallbacks.get(package)
        if result.returncode != 0 and fallback is not None:
            used.append({"package": package, "kind": fallback["kind"], "output": result.stdout[-6000:]})
            if fallback["kind"] == "omit":
                continue
            result = pip(plan, *command, extra_env=fallback["env"])
        if result.returncode != 0:
            finish({"status": "failed", "package": package, "stage": "build", "output": result.stdout[-6000:]})
        wheels += [os.path.join(BUILT, name) for name in sorted(set(os.listdir(BUILT)) - before)]
    return wheels


def exit_status(code: int) -> str:
    """``exited 1``, or ``was killed by SIGSEGV`` for a process a signal ended."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited {code}"


def import_that_dies(modules: list[tuple[str, str]], env: dict[str, str]) -> tuple[str, str, str] | None:
    """The first (distribution, module, what happened) whose import, alone in a process, does not exit 0."""
    for dist, module in modules:
        one = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env=env)
        if one.returncode != 0:
            last = (one.stderr.strip().splitlines() or [""])[-1].strip()
            return dist, module, f"the import {exit_status(one.returncode)}" + (f": {last}" if last else "")
    return None


def top_level_modules(target: str) -> list[tuple[str, str]]:
    """(distribution, module) for every importable top-level name each installed distribution adds."""
    found = []
    for entry in sorted(os.listdir(target)):
        if not entry.endswith(".dist-info"):
            continue
        dist = entry[: -len(".dist-info")].rsplit("-", 1)[0]
        info = os.path.join(target, entry)
        names: set[str] = set()
        if os.path.isfile(os.path.join(info, "top_level.txt")):
            with open(os.path.join(info, "top_level.txt")) as fh:
                names = {line.strip().split("/")[0] for line in fh if line.strip()}
        else:
            with open(os.path.join(info, "RECORD")) as fh:
                for line in fh:
                    first = line.split(",")[0].split("/")[0]
                    if first.endswith(".py"):
                        names.add(first[:-3])
                    elif "/" in line.split(",")[0] and not first.endswith((".dist-info", ".data")):
                        names.add(first)
        for name in sorted(names):
            if name.isidentifier() and not name.startswith("_") and name not in ("bin", "tests", "test"):
                found.append((dist, name))
    return found


#: pyperformance's venvs have setuptools and wheel (its ``ensure_installer``), and their site-packages'
#: .pth files run: setuptools' distutils-precedence.pth provides ``distutils`` on 3.12+ (Django 3.2
#: imports it). A PYTHONPATH entry runs no .pth file, so the site's sitecustomize adds it as a site dir.
INSTALLER = ("setuptools", "wheel")
SITECUSTOMIZE = "import os, site\n\nsite.addsitedir(os.path.dirname(os.path.abspath(__file__)))\n"


def install_installer(plan: dict[str, Any]) -> None:
    result = pip(plan, "install", "--no-deps", "--no-index", "--find-links", plan["find_links"],
                 "--target", plan["target"], *INSTALLER)  # fmt: skip
    if result.returncode != 0:
        finish({"status": "failed", "package": "setuptools", "stage": "install", "output": result.stdout[-6000:]})
    with open(os.path.join(plan["target"], "sitecustomize.py"), "w") as fh:
        fh.write(SITECUSTOMIZE)


def main() -> None:
    plan = json.loads(sys.argv[1])
    used: list[dict[str, str]] = []
    built = build_sdists(plan, used)
    wheels = plan["wheels"] + built
    if wheels:
        result = pip(plan, "install", "--no-deps", "--no-index", "--target", plan["target"], *wheels)
        if result.returncode != 0:
            finish({"status": "failed", "package": "", "stage": "install", "output": result.stdout[-6000:]})
    install_installer(plan)
    modules = [(dist, module) for dist, module in top_level_modules(plan["target"]) if dist not in INSTALLER]
    modules += [("setuptools", "distutils")] if sys.version_info >= (3, 12) else []
    env = dict(os.environ, PYTHONPATH=plan["target"])
    smoke = subprocess.run([sys.executable, "-c", SMOKE, json.dumps(modules)], capture_output=True, text=True, env=env)
    lines = smoke.stdout.strip().splitlines()
    failures = json.loads(lines[-1]) if smoke.returncode == 0 and lines else None
    if failures is None:  # the check itself died (a crash in an extension): which import kills a process
        found = import_that_dies(modules, env)
        if found is not None:
            dist, module, error = found
            finish({"status": "failed", "package": dist, "stage": "import", "output": f"import {module}: {error}"})
        output = (smoke.stdout + smoke.stderr)[-6000:] or f"the import check {exit_status(smoke.returncode)}"
        finish({"status": "failed", "package": "", "stage": "import", "output": output})
    if failures:
        dist, module, error = failures[0]
        finish({"status": "failed", "package": dist, "stage": "import", "output": f"import {module}: {error}"})
    names = [os.path.basename(path) for path in built]  # a py3-none-any among them: its C speedups were skipped
    finish({"status": "ready", "built": names, "modules": [module for _, module in modules], "fallbacks": used})


if __name__ == "__main__":
    main()
