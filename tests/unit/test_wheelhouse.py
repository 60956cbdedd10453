"""The benchmark wheelhouse's pure parts: reading its index and locks, the choice of wheel or sdist for
final and development interpreters, the one-line errors, pip's failure line, the fetch's helpers."""

from __future__ import annotations

import datetime
import io
import json
import tarfile
from pathlib import Path

import pytest

from pystats_harness.pyperformance import package_index as fetch
from pystats_harness.pyperformance import sitedriver
from pystats_harness.pyperformance.errors import WheelMissing
from pystats_harness.pyperformance.interpreters import Installer, installer_for, is_development, short_version
from pystats_harness.pyperformance.locks import AS_OF_PREFIX, lock_as_of, lock_pins
from pystats_harness.pyperformance.pip_output import failure_line
from pystats_harness.pyperformance.sites import SiteSkipped, driver_plan
from pystats_harness.pyperformance.wheelhouse import (
    Choice,
    Kind,
    PackageFiles,
    Source,
    Unavailable,
    choose,
    read_wheelhouse,
)
from pystats_harness.pyperformance.wheelhouse_fetch import development_lock, month_starts
from tests.support.wheelhouse import PACKAGES, make_wheelhouse


@pytest.mark.parametrize(
    ("version", "development"),
    [("3.13.5", False), ("3.11.2", False), ("3.13.0rc1", False), ("3.12.0a3+", True), ("3.12.0b1", True),
     ("3.13.5+", True), ("3.14.0a1", True)],
)  # fmt: skip
def test_development_versions(version: str, development: bool) -> None:
    assert is_development(version) is development
    assert short_version(version) == version[:4]


def test_final_interpreter_takes_the_compiled_wheel_development_the_sdist() -> None:
    yaml = PackageFiles.from_dict(PACKAGES["pyyaml==6.0.1"])
    assert choose(yaml, development=False) == Choice("pyyaml", "6.0.1", str(yaml.wheel), Source.WHEEL)
    assert choose(yaml, development=True) == Choice("pyyaml", "6.0.1", str(yaml.sdist), Source.SDIST)


def test_a_compiled_packages_pure_wheel_serves_a_development_interpreter() -> None:
    data = {**PACKAGES["pyyaml==6.0.1"], "pure_wheel": "files/charset_normalizer-3.5.3-py3-none-any.whl"}
    found = choose(PackageFiles.from_dict(data), development=True)
    assert found == Choice("pyyaml", "6.0.1", "files/charset_normalizer-3.5.3-py3-none-any.whl", Source.WHEEL)
    assert choose(PackageFiles.from_dict(data), development=False).file == PACKAGES["pyyaml==6.0.1"]["wheel"]  # type: ignore[union-attr]


def test_pure_wheel_serves_every_interpreter() -> None:
    tomli = PackageFiles.from_dict(PACKAGES["tomli==2.0.1"])
    assert choose(tomli, development=False).source is Source.WHEEL  # type: ignore[union-attr]
    assert choose(tomli, development=True).source is Source.WHEEL  # type: ignore[union-attr]


def test_sdist_only_is_built_on_every_interpreter() -> None:
    hg = PackageFiles.from_dict(PACKAGES["mercurial==5.8"])
    assert choose(hg, development=False) == Choice("mercurial", "5.8", "files/mercurial-5.8.tar.gz", Source.SDIST)


def test_compiled_without_sdist_is_unavailable_on_a_development_interpreter_with_the_reason() -> None:
    core = PackageFiles.from_dict(PACKAGES["pydantic-core==2.50.5"])
    assert isinstance(choose(core, development=False), Choice)
    found = choose(core, development=True)
    assert isinstance(found, Unavailable)
    assert found.package == "pydantic-core"
    assert "C ABI" in found.reason and "Rust" in found.reason
    assert str(SiteSkipped(found.package, "x")) == "skipped: needs pydantic-core (x)"


def test_missing_build_requirements_make_the_sdist_unavailable() -> None:
    data = {**PACKAGES["mercurial==5.8"], "build_note": "build requirements ['setuptools'] not available: boom"}
    assert choose(PackageFiles.from_dict(data), development=False) == Unavailable("mercurial", data["build_note"])
    assert Kind("sdist") is Kind.SDIST


def test_plan_reads_the_lock_and_chooses_per_interpreter(tmp_path: Path) -> None:
    wheelhouse = read_wheelhouse(make_wheelhouse(tmp_path))
    final = wheelhouse.plan("3.13.5", "bm_yaml")
    development = wheelhouse.plan("3.13.0a1+", "bm_yaml")
    assert not isinstance(final, Unavailable) and not isinstance(development, Unavailable)
    assert final.lock.pins == ("pyyaml==6.0.1",) and len(final.lock.sha256) == 64
    assert [c.source for c in final.choices] == [Source.WHEEL]
    assert [c.source for c in development.choices] == [Source.SDIST]
    assert final.digest() != development.digest()
    # a free-threaded build of the release (ABI cp313t): no cp313 wheel serves it, the sdist is built
    free_threaded = wheelhouse.plan("3.13.5", "bm_yaml", free_threaded=True)
    assert not isinstance(free_threaded, Unavailable) and [c.source for c in free_threaded.choices] == [Source.SDIST]
    assert wheelhouse.plan("3.13.0a1+", "bm_fastapi") == Unavailable("pydantic-core", choose(
        PackageFiles.from_dict(PACKAGES["pydantic-core==2.50.5"]), development=True).reason)  # type: ignore[union-attr]  # fmt: skip
    assert wheelhouse.requirements("bm_yaml") == ("pyyaml==6.0.1",)
    assert wheelhouse.requirements("bm_nbody") is None
    assert wheelhouse.pip_wheel(Installer.CURRENT).name == "pip-26.3-py3-none-any.whl"
    assert wheelhouse.build_constraints(Installer.CURRENT) == ()
    old = installer_for("3.12.0a3+", has_imp_importer=True)
    plan = driver_plan(development, wheelhouse.pip_wheel(old), wheelhouse.build_constraints(old))
    assert plan["pip"] == "/wheels/benchmarks/tools/pip-23.0.1-py3-none-any.whl"
    assert plan["constraints"] == ["setuptools==65.6.3"]
    assert wheelhouse.pip_wheel(Installer.OF_2023).name == "pip-23.2.1-py3-none-any.whl"
    assert wheelhouse.build_constraints(Installer.OF_2023) == ("setuptools==80.9.0",)
    assert plan["sdists"] == [["pyyaml", "/wheels/benchmarks/files/PyYAML-6.0.1.tar.gz"]] and plan["wheels"] == []


@pytest.mark.parametrize(
    ("version", "has_imp_importer", "has_tomllib", "installer"),
    [
        ("3.13.5", False, True, Installer.CURRENT),  # a release: the current tools
        ("3.11.2", True, True, Installer.CURRENT),
        ("3.12.0rc1", False, True, Installer.CURRENT),
        ("3.11.0a6+", True, True, Installer.OF_2023),  # a 3.11 development: the tools of 2023 gate 3.12's on >= 3.12
        ("3.11.0a5+", True, False, Installer.OF_2022),  # before tomllib (2022-03-08): they import it on any 3.11
        ("3.12.0a7+", True, True, Installer.OF_2022),  # pkgutil.ImpImporter still there: a 3.12 older than they need
        ("3.12.0b1", False, True, Installer.OF_2023),  # removed on 2023-04-28 (e1f14643dc): the tools of 2022 import it
        ("3.13.0a0", False, True, Installer.OF_2023),  # pip 26.3 imports warnings.deprecated on any 3.13
        ("3.13.0b4+", False, True, Installer.OF_2023),
        ("3.14.0a1+", False, True, Installer.CURRENT),  # every 3.14 has warnings.deprecated
        ("3.16.0a0", False, True, Installer.CURRENT),  # pip 23.2.1 fails on main's importlib.metadata
    ],
)
def test_the_installer_follows_the_interpreters_stdlib_not_its_version(
    version: str, has_imp_importer: bool, has_tomllib: bool, installer: Installer
) -> None:
    assert installer_for(version, has_imp_importer, has_tomllib) is installer


def test_a_missing_file_is_one_line_naming_the_package_and_the_fetch_command(tmp_path: Path) -> None:
    wheelhouse = read_wheelhouse(make_wheelhouse(tmp_path, drop="PyYAML-6.0.1-cp313-cp313-manylinux_2_17_x86_64.whl"))
    with pytest.raises(WheelMissing) as caught:
        wheelhouse.plan("3.13.5", "bm_yaml")
    message = str(caught.value)
    assert caught.value.exit_code == 17 and caught.value.package == "pyyaml==6.0.1"
    assert "\n" not in message and "bm_yaml on Python 3.13" in message
    assert f"python3 scripts/make_benchmark_wheelhouse.py {tmp_path} --versions 3.13" in message
    assert isinstance(wheelhouse.plan("3.13.0a1+", "bm_yaml"), object)  # the sdist is there


def test_a_python_without_locks_and_no_wheelhouse_at_all_are_wheel_missing(tmp_path: Path) -> None:
    wheelhouse = read_wheelhouse(make_wheelhouse(tmp_path))
    with pytest.raises(WheelMissing, match=r"--versions 3\.14`$"):
        wheelhouse.plan("3.14.0", "bm_yaml")
    with pytest.raises(WheelMissing, match=r"make_benchmark_wheelhouse\.py") as caught:
        read_wheelhouse(tmp_path / "nowhere")
    assert "\n" not in str(caught.value)


PIP_BUILD_FAILURE = """\
Processing /wheels/benchmarks/files/greenlet-3.2.4.tar.gz
  error: subprocess-exited-with-error

  × Building wheel for greenlet (pyproject.toml) did not run successfully.
  │ exit code: 1
  ╰─> [12 lines of output]
      running build_ext
      src/greenlet/greenlet.cpp:18:10: fatal error: internal/pycore_frame.h: No such file or directory
      compilation terminated.
      error: command '/usr/bin/gcc' failed with exit code 1
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
  ERROR: Failed building wheel for greenlet
Failed to build greenlet
ERROR: Failed to build installable wheels for some pyproject.toml based projects (greenlet)
"""


def test_failure_line_is_the_first_compiler_error_else_the_last_error_not_pips_framing() -> None:
    assert failure_line(PIP_BUILD_FAILURE) == (
        "src/greenlet/greenlet.cpp:18:10: fatal error: internal/pycore_frame.h: No such file or directory"
    )
    without_compiler = PIP_BUILD_FAILURE.replace("src/greenlet/greenlet.cpp:18:10: ", "")
    assert failure_line(without_compiler) == "error: command '/usr/bin/gcc' failed with exit code 1"
    assert failure_line("") == "pip gave no output"
    assert failure_line("ModuleNotFoundError: No module named 'distutils'\n") == (
        "ModuleNotFoundError: No module named 'distutils'"
    )
    assert len(failure_line("error " + "x" * 500)) == 200
    conflict = """      ERROR: Cannot install setuptools>=77 because these package versions have conflicting dependencies.
      The conflict is caused by:
          The user requested setuptools>=77
          The user requested (constraint) setuptools==65.6.3
      ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/
"""
    assert failure_line(conflict) == "conflicting requirements: setuptools>=77 vs (constraint) setuptools==65.6.3"


def test_driver_finds_top_level_modules_from_top_level_txt_and_record(tmp_path: Path) -> None:
    (tmp_path / "PyYAML-6.0.1.dist-info").mkdir()
    (tmp_path / "PyYAML-6.0.1.dist-info" / "top_level.txt").write_text("_yaml\nyaml\n")
    (tmp_path / "tomli-2.0.1.dist-info").mkdir()
    (tmp_path / "tomli-2.0.1.dist-info" / "RECORD").write_text(
        "tomli/__init__.py,sha256=x,1\ntomli-2.0.1.dist-info/RECORD,,\nsix.py,sha256=y,2\n../../bin/x,,\n"
    )
    assert sitedriver.top_level_modules(str(tmp_path)) == [("PyYAML", "yaml"), ("tomli", "six"), ("tomli", "tomli")]


def test_fetch_reads_build_requirements_from_an_sdist(tmp_path: Path) -> None:
    for name, pyproject, expected in [
        ("a-1", b'[build-system]\nrequires = ["setuptools", "Cython<3.0"]\n', ["setuptools", "Cython<3.0", "wheel"]),
        ("b-1", None, ["setuptools>=40.8.0", "wheel", "wheel"]),
    ]:
        sdist = tmp_path / f"{name}.tar.gz"
        with tarfile.open(sdist, "w:gz") as archive:
            for member, data in [(f"{name}/setup.py", b""), (f"{name}/pyproject.toml", pyproject)]:
                if data is not None:
                    info = tarfile.TarInfo(member)
                    info.size = len(data)
                    archive.addfile(info, io.BytesIO(data))
        assert fetch.sdist_build_requires(sdist) == expected
    assert fetch.is_pure("six-1.16.0-py2.py3-none-any.whl") and not fetch.is_pure("x-1-cp313-cp313-linux.whl")
    assert "--abi" in fetch.wheel_args("3.13", "x86_64") and "cp313" in fetch.wheel_args("3.13", "x86_64")


def _add_development_lock(root: Path, bench: str, pins: list[str], as_of: str) -> None:
    lock = root / "benchmarks" / "locks" / "3.13-development" / f"{bench}.txt"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(f"{AS_OF_PREFIX}{as_of}\n" + "".join(f"{p}\n" for p in pins))
    index_file = root / "benchmarks" / "index.json"
    index = json.loads(index_file.read_text())
    entry = {"lock": f"locks/3.13-development/{bench}.txt", "pins": pins, "as_of": as_of}
    index["versions"]["3.13"]["benchmarks"][bench]["development"] = entry
    index["versions"]["3.13"]["benchmarks"]["bm_tomli_loads"]["development"] = {"lock": None, "note": "x"}
    index_file.write_text(json.dumps(index))


def test_a_development_interpreter_takes_the_development_lock_a_release_and_free_threaded_release_do_not(
    tmp_path: Path,
) -> None:
    root = make_wheelhouse(tmp_path)
    _add_development_lock(root, "bm_yaml", ["pyyaml==6.0.1", "tomli==2.0.1"], "2024-11-01")
    wheelhouse = read_wheelhouse(root)
    development = wheelhouse.plan("3.13.0a1+", "bm_yaml")
    release = wheelhouse.plan("3.13.5", "bm_yaml")
    free_threaded_release = wheelhouse.plan("3.13.5", "bm_yaml", free_threaded=True)
    assert not isinstance(development, Unavailable) and not isinstance(release, Unavailable)
    assert not isinstance(free_threaded_release, Unavailable)
    assert development.lock.pins == ("pyyaml==6.0.1", "tomli==2.0.1") and development.lock.as_of == "2024-11-01"
    assert development.lock.describe() == "3.13 development lock (index as of 2024-11-01)"
    assert [c.package for c in development.choices] == ["pyyaml", "tomli"]
    assert release.lock.pins == free_threaded_release.lock.pins == ("pyyaml==6.0.1",)
    assert release.lock.as_of is None and release.lock.describe() == "3.13 lock"
    assert development.digest() != release.digest()
    # a benchmark whose development lock could not be made: the release lock, said so by describe()
    fallback = wheelhouse.plan("3.13.0a1+", "bm_tomli_loads")
    assert not isinstance(fallback, Unavailable) and fallback.lock.describe() == "3.13 lock"


def test_a_locks_pins_skip_its_comment_line_and_only_a_development_lock_has_a_day() -> None:
    text = f"{AS_OF_PREFIX}2024-07-01\nsphinx==7.3.7\n\npackaging==24.1\n"
    assert lock_pins(text) == ["sphinx==7.3.7", "packaging==24.1"]
    assert lock_as_of(text) == "2024-07-01"
    assert lock_as_of("sphinx==7.3.7\n") is None and lock_as_of("") is None and lock_pins("") == []


def test_month_starts_run_from_the_first_month_to_the_one_after_today() -> None:
    months = month_starts(datetime.date(2024, 11, 17), datetime.date(2025, 2, 3))
    assert [m.isoformat() for m in months] == ["2024-11-01", "2024-12-01", "2025-01-01", "2025-02-01", "2025-03-01"]
    assert month_starts(datetime.date(2024, 12, 1), datetime.date(2024, 12, 1))[-1] == datetime.date(2025, 1, 1)


def test_a_development_lock_or_the_reason_for_none_once_written_is_read_back_without_the_index(tmp_path: Path) -> None:
    locks = tmp_path / "locks" / "3.13-development"
    locks.mkdir(parents=True)
    (locks / "bm_sphinx.txt").write_text(f"{AS_OF_PREFIX}2024-07-01\nsphinx==7.3.7\n")
    (locks / "bm_crypto_pyaes.none").write_text("resolving ['pyaes==1.6.1'] for 3.13 as of 2017-10-01 failed\n")
    today = datetime.date(2026, 12, 7)
    sphinx = development_lock(tmp_path, "3.13", "bm_sphinx", ["sphinx==7.3.7"], "x86_64", today)
    assert sphinx["lock"] == "locks/3.13-development/bm_sphinx.txt" and sphinx["as_of"] == "2024-07-01"
    assert sphinx["pins"] == ["sphinx==7.3.7"] and len(sphinx["sha256"]) == 64
    pyaes = development_lock(tmp_path, "3.13", "bm_crypto_pyaes", ["pyaes==1.6.1"], "x86_64", today)
    assert pyaes == {"lock": None, "note": "resolving ['pyaes==1.6.1'] for 3.13 as of 2017-10-01 failed"}
