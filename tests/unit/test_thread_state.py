"""A free-threaded build's collect puts every process in one thread state (gh-117783: starting a thread
immortalizes deferred-refcount objects, so object counters depend on it): the start-up module is first
on every path's PYTHONPATH there, nowhere else, and it does start (and join) a thread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from pystats_harness.pyperformance import runs
from pystats_harness.resources import SUITE_DIR


def _entry(configuration: str) -> SimpleNamespace:
    return SimpleNamespace(manifest=lambda: {"configuration": configuration})


def test_the_thread_state_start_up_is_first_on_the_path_of_a_free_threaded_build_only(tmp_path: Path) -> None:
    place = runs.Place(tmp_path, tmp_path, None)
    bench = SimpleNamespace(directory="bm_nbody")
    free = runs._env(_entry("freethreading"), place, bench)  # type: ignore[arg-type]
    default = runs._env(_entry("default"), place, bench)  # type: ignore[arg-type]
    assert free["PYTHONPATH"].split(":")[0] == runs.THREAD_STATE_PATH == "/suite/thread_state"
    assert runs.THREAD_STATE_PATH not in default["PYTHONPATH"]
    assert runs.same_thread_state(_entry("freethreading")) and not runs.same_thread_state(_entry("tier2"))  # type: ignore[arg-type]
    assert "gh-117783" in runs.THREAD_STATE_NOTE


def test_the_start_up_module_starts_and_joins_one_thread_before_the_program() -> None:
    start_up = SUITE_DIR / "thread_state"
    code = "import threading, sys; print(threading._counter() if hasattr(threading, '_counter') else 1, threading.active_count(), 'usercustomize' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(start_up)}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    started, active, imported = out.stdout.split()
    assert int(started) >= 1 and active == "1" and imported == "True"  # started, joined, by site's usercustomize
