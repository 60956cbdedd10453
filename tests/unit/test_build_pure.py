"""The pure parts of a build: the plan's text, the container script, reading its log, the container
spec and the manifest, all without an engine."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from pystats_harness.builder import patches, probes
from pystats_harness.builder.execute import Workspace, container_spec
from pystats_harness.builder.lanes import Lane
from pystats_harness.builder.plan import PlanInputs, build_group, plan_build, to_text
from pystats_harness.builder.record import manifest, patched_files
from pystats_harness.builder.script import TRIM_INSTALL, BuildLog, EventKind, build_script, ccache_delta
from pystats_harness.builder.series import load_series
from pystats_harness.config import load_settings
from pystats_harness.configure_flags import load_configure_flags
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import PREFIX_IN_CONTAINER, SOURCE_IN_CONTAINER
from pystats_harness.resources import CONFIGS_DIR
from tests.support.build_plan import SHA, plan


def test_plan_text_says_what_will_happen() -> None:
    text = to_text(plan(), cached=False)
    assert f"revision   v3.13.5 -> {SHA}" in text
    assert f"--prefix={PREFIX_IN_CONTAINER} --enable-pystats --with-lto=no" in text
    assert "make -j3" in text and "miss: will build" in text and "none applied (--patches none)" in text
    assert "hit: nothing to build" in to_text(plan(), cached=True)


def test_planning_reads_nothing_but_its_inputs() -> None:
    """The plan is a function of its inputs: the tree is read only through the reader passed in, and
    the same inputs give the same key; another image id gives another key."""
    read: list[str] = []

    root = Path(__file__).resolve().parents[1] / "data" / "trees" / "py313"

    def tree(path: str) -> str | None:
        read.append(path)
        return (root / path).read_text() if (root / path).is_file() else None

    commit = CommitInfo("v3.13.5", SHA, "2025-06-11T00:00:00+00:00", "Python 3.13.5")
    inputs = PlanInputs(commit, tree, load_series(), "none", ("--with-lto=no",), "builder:tag", "sha256:" + "b" * 64, 2)
    first, again = plan_build(inputs), plan_build(inputs)
    assert first == again and first.key == again.key and not first.verify_strict
    other = plan_build(dataclasses.replace(inputs, image_id="sha256:" + "c" * 64))
    assert other.key != first.key and read and all(not Path(p).is_absolute() for p in read)


def test_fresh_build_script_configures_in_a_clean_directory() -> None:
    script = build_script(plan(jobs=5), reuse=False)
    assert script.startswith("set -eu\n")
    assert "find /build -mindepth 1 -delete" in script
    assert "../src/configure --cache-file=config.cache --prefix=/opt/pystats --enable-pystats --with-lto=no" in script
    assert "retrying without them" in script  # stale cached configure results are not fatal
    assert "make -j5\n" in script and "make install\n" in script
    assert 'export CC="ccache gcc"' in script and "CCACHE_DEPEND=1" in script
    phases = [line.split()[-1].strip('"') for line in script.splitlines() if line.startswith('echo "@@phase')]
    assert phases == ["configure", "make", "install", "done"]


def test_reused_build_directory_is_not_wiped_or_reconfigured() -> None:
    script = build_script(plan(), reuse=True)
    assert "find /build -mindepth 1 -delete" not in script and "../src/configure" not in script
    assert "make -j3" in script


@pytest.mark.parametrize("reuse", [False, True], ids=["fresh", "reused"])
def test_install_is_trimmed_right_after_make_install(reuse: bool) -> None:
    lines = build_script(plan(), reuse=reuse).splitlines()
    assert lines[lines.index("make install") + 1] == TRIM_INSTALL  # what it removes: the next test


def test_trim_removes_only_the_optimized_pycs(tmp_path: Path) -> None:
    """Runs the trim step on a miniature install: level-0 .pyc (what runs import), headers,
    python3-config and the sysconfig data (what building C extensions needs) stay."""
    lib = tmp_path / "lib" / "python3.13"
    keep = [
        lib / "__pycache__" / "os.cpython-313.pyc",
        lib / "json" / "__pycache__" / "decoder.cpython-313.pyc",
        lib / "_sysconfigdata__linux_x86_64-linux-gnu.py",
        lib / "config-3.13-x86_64-linux-gnu" / "Makefile",
        tmp_path / "include" / "python3.13" / "Python.h",
        tmp_path / "bin" / "python3.13-config",
    ]
    gone = [
        lib / "__pycache__" / "os.cpython-313.opt-1.pyc",
        lib / "json" / "__pycache__" / "decoder.cpython-313.opt-2.pyc",
    ]
    for f in keep + gone:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x")
    command = TRIM_INSTALL.replace(PREFIX_IN_CONTAINER, str(tmp_path), 1)
    subprocess.run(["sh", "-c", command], check=True)
    assert all(f.exists() for f in keep) and not any(f.exists() for f in gone)


def test_shipped_configure_flags_build_no_static_libpython() -> None:
    """The static library (two 71 MB copies in a 3.13 install) is not built at all."""
    assert "--without-static-libpython" in load_configure_flags(CONFIGS_DIR / "configure.toml")


def test_configure_arguments_are_shell_quoted() -> None:
    script = build_script(plan(flags=("--with-x=a b",)), reuse=False)
    assert "'--with-x=a b'" in script


def test_ccache_delta() -> None:
    before = "direct_cache_hit=10 preprocessed_cache_hit=2 cache_miss=5 stats_updated=Mon"
    after = "direct_cache_hit=110 preprocessed_cache_hit=3 cache_miss=25"
    assert ccache_delta(before, after) == {"hits": 101, "misses": 20}
    assert ccache_delta("", "") == {"hits": 0, "misses": 0}


def test_build_log_times_phases_and_keeps_the_tail() -> None:
    log = BuildLog()
    events = []
    lines = [
        "@@compiler gcc (Debian 12.2.0-14) 12.2.0",
        "@@ccache-before direct_cache_hit=1 cache_miss=1",
        "@@phase configure",
        "checking for gcc... yes",
        "@@note configure failed with cached results",
        "@@phase make",
        *[f"gcc -c file{i}.c" for i in range(40)],
        "@@phase install",
        "@@ccache-after direct_cache_hit=31 cache_miss=11",
        "@@phase done",
    ]
    for now, line in enumerate(lines):
        events += log.feed(line, float(now))
    kinds = [(e.kind, e.text) for e in events if e.kind is not EventKind.OUTPUT]
    assert kinds == [
        (EventKind.PHASE_STARTED, "configure"),
        (EventKind.NOTE, "configure failed with cached results"),
        (EventKind.PHASE_FINISHED, "configure"),
        (EventKind.PHASE_STARTED, "make"),
        (EventKind.PHASE_FINISHED, "make"),
        (EventKind.PHASE_STARTED, "install"),
        (EventKind.PHASE_FINISHED, "install"),
    ]
    facts = log.facts()
    assert facts["compiler"].startswith("gcc (Debian")
    assert facts["seconds"] == {"configure": 3.0, "make": 41.0, "install": 2.0}
    assert facts["ccache"] == {"hits": 30, "misses": 10}
    assert len(log.tail) == 30 and log.tail[-1].startswith("@@ccache-after") and log.phase == "done"


def test_a_failed_build_knows_its_phase() -> None:
    log = BuildLog()
    for line in ("@@phase configure", "@@phase make", "ceval.c:1:1: error: boom"):
        log.feed(line, 0.0)
    assert log.phase == "make" and list(log.tail)[-1] == "ceval.c:1:1: error: boom"


def test_build_group_is_per_image_flags_and_version() -> None:
    ac = "AC_INIT(...)\nm4_define([PYTHON_VERSION], [3.13])\nAC_SUBST(PYTHON_VERSION, 3.13)\n"
    group = build_group(plan(), ac)
    assert group.startswith("3.13-") and group == build_group(plan(jobs=9), ac)
    assert group != build_group(plan(flags=()), ac)
    assert build_group(plan(), "no version here").startswith("unknown-")
    assert build_group(plan(), "m4_define([PYTHON_VERSION], [3.13])\n").startswith("3.13-")  # 3.12+
    assert build_group(plan(), "m4_define(PYTHON_VERSION, 3.11)\n").startswith("3.11-")


def test_build_container_mounts_the_source_read_only_and_has_no_network(tmp_path: Path) -> None:
    ctx = Context(load_settings({"cache_dir": str(tmp_path / "cache")}))
    lane = Lane(tmp_path / "lane", reuse=True, reason="test", state_path=None)
    ws = Workspace(tmp_path / "wt", tmp_path / "staged", lane, tmp_path / "confcache")
    spec = container_spec(ctx, plan(), ws)
    mounts = {m.target: m for m in spec.mounts}
    assert mounts[SOURCE_IN_CONTAINER].read_only and mounts[SOURCE_IN_CONTAINER].source == str(tmp_path / "wt")
    assert not mounts["/build"].read_only and mounts["/build"].source == str(tmp_path / "lane")
    assert mounts[PREFIX_IN_CONTAINER].source == str(tmp_path / "staged" / "install")
    assert mounts["/ccache"].volume and mounts["/ccache"].source == ctx.settings.ccache_volume
    assert spec.network is False and spec.image == plan().image_id
    assert "find /build -mindepth 1 -delete" not in spec.command[-1]  # the lane is reused


def test_the_build_container_is_confined_but_stays_root(tmp_path: Path) -> None:
    settings = {"cache_dir": str(tmp_path / "cache"), "build_memory": "6G", "build_pids": "2000"}
    ctx = Context(load_settings(settings))
    lane = Lane(tmp_path / "lane", reuse=False, reason="test", state_path=None)
    spec = container_spec(ctx, plan(), Workspace(tmp_path / "wt", tmp_path / "staged", lane, tmp_path / "confcache"))
    assert spec.cap_drop == ("ALL",) and spec.no_new_privileges
    assert spec.read_only_root and spec.tmpfs == ("/tmp",)  # writes go to the mounts and /tmp only
    assert spec.memory == "6g" and spec.pids == 2000
    assert spec.user is None  # root (without capabilities) writes the root-owned bind mounts


def test_manifest_records_the_plan_and_the_facts() -> None:
    report = probes.ProbeReport(python={"version": "3.13.5"}, verdicts=())
    facts = {"seconds": {"make": 1.0}, "compiler": "gcc", "ccache": {"hits": 1}, "built_at": "2026-01-01T00:00:00Z"}
    m = manifest(plan(), facts, report, strict=True)
    assert m["sha"] == SHA and m["key"] == "k" * 24 and m["patches"] == [] and m["python"]["version"] == "3.13.5"
    assert m["verification"] == {"ok": True, "mismatches": [], "strict": True, "configuration": "default", "exempt": {}}
    assert m["configuration"] == "default" and m["runtime"] == {"args": [], "env": {}}
    assert m["configure_flags"][:2] == [f"--prefix={PREFIX_IN_CONTAINER}", "--enable-pystats"]
    assert m["image"] == {"tag": "builder:tag", "id": plan().image_id} and m["built_at"] == facts["built_at"]


def test_patched_files_lists_what_the_patches_touch(tmp_path: Path) -> None:
    patch = tmp_path / "a.patch"
    patch.write_text("--- a/Python/ceval.c\n+++ b/Python/ceval.c\n@@ -1 +1 @@\n--- a/x\n+++ b/Include/pystats.h\t\n")
    assert patched_files([patch]) == ["Python/ceval.c", "Include/pystats.h"]


@pytest.mark.parametrize("requested", ["auto", "none"])
def test_patch_plan_summary_names_the_request(requested: str) -> None:
    assert patches.PatchPlan((), (), requested).summary() == f"none applied (--patches {requested})"
