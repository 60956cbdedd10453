"""configs/sites.toml's fallbacks: read into typed data, taken by a plan only where a pin cannot be had on an
interpreter whose ABI is not its release's, by the site driver only when an sdist fails, and named in the
verdict's detail."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from pystats_harness.collect import report
from pystats_harness.collect.one import Outcome
from pystats_harness.collect.trust import Verdict
from pystats_harness.errors import ConfigError
from pystats_harness.pyperformance import fallbacks, sitedriver
from pystats_harness.pyperformance.fallbacks import Fallback, Kind, Used
from pystats_harness.pyperformance.interpreters import Installer
from pystats_harness.pyperformance.locks import AS_OF_PREFIX, FALLBACK_PREFIX, fallback_lock, lock_fallback
from pystats_harness.pyperformance.sites import driver_plan
from pystats_harness.pyperformance.wheelhouse import (
    Source,
    Unavailable,
    read_wheelhouse,
)
from tests.support.wheelhouse import make_wheelhouse

DECLARED = {
    "pydantic-core": Fallback("pydantic-core", Kind.CONSTRAINT, "pure pydantic 1", constraint="pydantic<2"),
    "mercurial": Fallback("mercurial", Kind.OMIT, "never imported by the timed code"),
    "pyyaml": Fallback("pyyaml", Kind.ENV, "optional C extension", env={"PYYAML_FORCE_LIBYAML": "0"}),
}


def test_the_projects_sites_toml_reads_and_every_kind_says_what_it_does() -> None:
    found = fallbacks.load()
    assert {"pydantic-core", "msgpack", "greenlet"} <= set(found)
    assert found["pydantic-core"].describe() == "resolved with pydantic<2 (not pydantic-core)"
    assert found["msgpack"].describe() == "built with MSGPACK_PUREPYTHON=1"
    assert found["greenlet"].describe() == "left out"
    assert all(f.why for f in found.values())


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"kind": "constraint", "why": "x"}, "needs a constraint"),
        ({"kind": "env", "why": "x"}, "needs env"),
        ({"kind": "replace", "why": "x"}, "kind must be one of"),
        ({"kind": "omit"}, "needs kind and why"),
        ({"kind": "omit", "why": "x", "constraint": "a<2"}, "kind omit takes"),
    ],
)
def test_a_wrong_fallback_table_is_one_line_naming_it(table: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        fallbacks.parse({"fallback": {"thing": table}})
    assert "[fallback.thing]" in str(caught.value) and "\n" not in str(caught.value)


def _with_fallback_lock(root: Path, bench: str, pins: list[str], header: str) -> None:
    lock = root / "benchmarks" / "locks" / "3.13" / f"{bench}.fallback.txt"
    lock.write_text(f"{FALLBACK_PREFIX}{header}\n" + "".join(f"{p}\n" for p in pins))
    index_file = root / "benchmarks" / "index.json"
    index = json.loads(index_file.read_text())
    index["versions"]["3.13"]["benchmarks"][bench]["fallback"] = {
        "lock": f"locks/3.13/{bench}.fallback.txt",
        "pins": pins,
    }
    index_file.write_text(json.dumps(index))


def test_a_pin_no_file_serves_takes_the_fallback_lock_only_where_the_abi_is_not_the_releases(tmp_path: Path) -> None:
    root = make_wheelhouse(tmp_path)
    _with_fallback_lock(root, "bm_fastapi", ["tomli==2.0.1"], "pydantic<2")
    wheelhouse = read_wheelhouse(root)
    development = wheelhouse.plan("3.13.0a1+", "bm_fastapi", declared=DECLARED)
    assert not isinstance(development, Unavailable)
    assert development.lock.pins == ("tomli==2.0.1",) and development.lock.describe() == "3.13 lock, with pydantic<2"
    assert [(u.package, u.done) for u in development.used] == [
        ("pydantic-core", "resolved with pydantic<2 (not pydantic-core)")
    ]
    assert "no sdist" in development.used[0].because
    # a release takes its own compiled wheel, never a fallback
    release = wheelhouse.plan("3.13.5", "bm_fastapi", declared=DECLARED)
    assert not isinstance(release, Unavailable) and release.used == () and release.lock.fallback is None
    # nothing declared: unavailable, as before
    assert isinstance(wheelhouse.plan("3.13.0a1+", "bm_fastapi", declared={}), Unavailable)
    assert development.digest() != wheelhouse.plan("3.13.0a1+", "bm_yaml", declared={}).digest()  # type: ignore[union-attr]
    # a fallback that serves only older interpreters is not taken on a newer one: the pin's own reason stays
    older_only = {"pydantic-core": replace(DECLARED["pydantic-core"], python_below="3.13")}
    refused = wheelhouse.plan("3.13.0a1+", "bm_fastapi", declared=older_only)
    assert isinstance(refused, Unavailable) and refused.package == "pydantic-core" and "no sdist" in refused.reason


def test_python_below_bounds_a_fallback_by_x_y_and_is_read_from_sites_toml() -> None:
    fastapi = fallbacks.load()["pydantic-core"]
    assert fastapi.python_below == "3.14"  # fastapi 0.121.0 imports pydantic 2's TypeAdapter on any 3.14
    assert fastapi.serves("3.13") and not fastapi.serves("3.14") and not fastapi.serves("3.16")
    assert set(fallbacks.serving(fallbacks.load(), "3.16")) == {"msgpack", "greenlet"}
    assert fallbacks.load()["msgpack"].serves("3.16")
    with pytest.raises(ConfigError, match=r"python_below is an X\.Y"):
        fallbacks.parse({"fallback": {"thing": {"kind": "omit", "why": "x", "python_below": "3.14.1"}}})


def test_an_sdist_with_an_env_or_omit_fallback_is_handed_to_the_driver_for_when_it_fails(tmp_path: Path) -> None:
    wheelhouse = read_wheelhouse(make_wheelhouse(tmp_path))
    plan = wheelhouse.plan("3.13.0a1+", "bm_yaml", declared=DECLARED)
    assert not isinstance(plan, Unavailable) and [c.source for c in plan.choices] == [Source.SDIST]
    assert plan.used == () and [f.package for f in plan.on_failure] == ["pyyaml"]
    driver = driver_plan(plan, wheelhouse.pip_wheel(Installer.OF_2023), ())
    assert driver["fallbacks"] == {
        "pyyaml": {"kind": "env", "env": {"PYYAML_FORCE_LIBYAML": "0"}, "why": "optional C extension"}
    }
    # without one declared the plan (and its site's cache key) is what it was
    plain = wheelhouse.plan("3.13.0a1+", "bm_yaml", declared={})
    assert not isinstance(plain, Unavailable) and plain.on_failure == () and plain.digest() != plan.digest()


class _Pip:
    """The driver's pip, answering per (sdist, env): the first build fails, the second (with env) works."""

    def __init__(self, built: Path) -> None:
        self.calls: list[tuple[str, dict[str, str]]] = []
        self.built = built

    def __call__(
        self, plan: dict, *args: str, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        sdist = args[-1]
        self.calls.append((sdist, dict(extra_env or {})))
        if extra_env:
            (self.built / f"{Path(sdist).name}-py3-none-any.whl").write_text("x")
            return subprocess.CompletedProcess(args, 0, "built", "")
        return subprocess.CompletedProcess(args, 1, "x.c:1:1: error: too few arguments to function 'PyCode_New'", "")


def test_the_driver_builds_again_with_env_leaves_out_an_omit_and_records_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = tmp_path / "built"
    built.mkdir()
    fake = _Pip(built)
    monkeypatch.setattr(sitedriver, "pip", fake)
    monkeypatch.setattr(sitedriver, "BUILT", str(built))
    plan = {
        "find_links": "/x",
        "sdists": [["msgpack", "/w/msgpack-1.1.0.tar.gz"], ["greenlet", "/w/greenlet-3.2.4.tar.gz"]],
        "fallbacks": {
            "msgpack": {"kind": "env", "env": {"MSGPACK_PUREPYTHON": "1"}, "why": "a"},
            "greenlet": {"kind": "omit", "env": {}, "why": "b"},
        },
    }
    used: list[dict[str, str]] = []
    wheels = sitedriver.build_sdists(plan, used)
    assert [Path(w).name for w in wheels] == ["msgpack-1.1.0.tar.gz-py3-none-any.whl"]
    assert fake.calls == [
        ("/w/msgpack-1.1.0.tar.gz", {}),
        ("/w/msgpack-1.1.0.tar.gz", {"MSGPACK_PUREPYTHON": "1"}),
        ("/w/greenlet-3.2.4.tar.gz", {}),
    ]
    assert [(u["package"], u["kind"]) for u in used] == [("msgpack", "env"), ("greenlet", "omit")]


def test_a_build_that_fails_without_a_fallback_still_fails_naming_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sitedriver, "pip", _Pip(tmp_path))
    monkeypatch.setattr(sitedriver, "BUILT", str(tmp_path))
    with pytest.raises(SystemExit):
        sitedriver.build_sdists({"find_links": "/x", "sdists": [["coverage", "/w/coverage.tar.gz"]]}, [])
    outcome = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (outcome["status"], outcome["package"], outcome["stage"]) == ("failed", "coverage", "build")


def test_a_fallback_lock_is_resolved_with_the_constraints_and_kept_while_it_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pystats_harness.pyperformance import locks

    asked: list[tuple[list[str], str | None]] = []

    def resolve(lines: list[str], version: str, arch: str, *, as_of: str | None = None) -> list[str]:
        asked.append((lines, as_of))
        return ["fastapi==0.121.0", "pydantic==1.10.24"]

    monkeypatch.setattr(locks, "resolve", resolve)
    lock = tmp_path / "locks" / "3.13-development" / "bm_fastapi.txt"
    lock.parent.mkdir(parents=True)
    lock.write_text(f"{AS_OF_PREFIX}2025-12-01\nfastapi==0.121.0\npydantic-core==2.41.5\n")
    wanted = [DECLARED["pydantic-core"]]
    made = fallback_lock(tmp_path, lock, ["fastapi==0.121.0"], "3.13", "x86_64", wanted)
    assert made is not None and made["lock"] == "locks/3.13-development/bm_fastapi.fallback.txt"
    assert made["pins"] == ["fastapi==0.121.0", "pydantic==1.10.24"] and made["as_of"] == "2025-12-01"
    assert asked == [(["fastapi==0.121.0", "pydantic<2"], "2025-12-01")]
    assert lock_fallback((tmp_path / made["lock"]).read_text()) == "pydantic<2"
    fallback_lock(tmp_path, lock, ["fastapi==0.121.0"], "3.13", "x86_64", wanted)
    assert len(asked) == 1  # kept: a second run asks the index nothing
    other = Fallback("pydantic-core", Kind.CONSTRAINT, "x", constraint="pydantic<1.10")
    fallback_lock(tmp_path, lock, ["fastapi==0.121.0"], "3.13", "x86_64", [other])
    assert len(asked) == 2  # another constraint: resolved again
    assert fallback_lock(tmp_path, lock, ["fastapi==0.121.0"], "3.13", "x86_64", []) is None


def test_the_verdicts_detail_names_what_the_site_installed_otherwise_first() -> None:
    used = (Used("msgpack", "built with MSGPACK_PUREPYTHON=1", "optional", "x.c: error"),)
    outcome = Outcome("dask", "bm_dask", Verdict.SKIPPED, reason="skipped: because", site_fallbacks=used)
    assert (
        report.detail(outcome) == "site (configs/sites.toml): msgpack built with MSGPACK_PUREPYTHON=1; skipped: because"
    )
    assert outcome.to_dict()["site_fallbacks"] == [used[0].to_dict()]
    assert report.detail(Outcome("nbody", "bm_nbody", Verdict.SKIPPED, reason="r")) == "r"
    assert "site_fallbacks" not in Outcome("nbody", "bm_nbody", Verdict.SKIPPED).to_dict()


def test_an_import_that_kills_its_process_is_named_with_its_signal(tmp_path: Path) -> None:
    """The import check dies with no output when an extension crashes; the driver finds which import does."""
    (tmp_path / "fine.py").write_text("")
    (tmp_path / "crashes.py").write_text("import ctypes\nctypes.string_at(0)\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "PYTHONFAULTHANDLER": ""}
    found = sitedriver.import_that_dies([("fine", "fine"), ("crasher", "crashes"), ("x", "fine")], env)
    assert found is not None and found[:2] == ("crasher", "crashes")
    assert found[2].startswith("the import was killed by SIGSEGV")
    assert sitedriver.import_that_dies([("fine", "fine")], env) is None
    assert sitedriver.exit_status(1) == "exited 1" and sitedriver.exit_status(-9) == "was killed by SIGKILL"
