from __future__ import annotations

from pathlib import Path

import pytest

from pystats_harness.builder.plan import flags_for_tree
from pystats_harness.config import DEFAULTS, load_settings
from pystats_harness.configure_flags import load_configure_flags, load_tree_flags
from pystats_harness.errors import ConfigError
from pystats_harness.resources import CONFIGS_DIR


def test_defaults_resolve() -> None:
    s = load_settings({})
    assert s.mirror_dir == s.cache_dir / "cpython.git"
    assert s.effective_make_jobs >= 1
    assert s.default_rev == "v3.13.5"


def test_override_and_types(tmp_path: Path) -> None:
    s = load_settings({"cache_dir": str(tmp_path), "make_jobs": "3", "keep_containers": "yes"})
    assert s.cache_dir == tmp_path and s.make_jobs == 3 and s.keep_containers is True


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ({"nope": 1}, "unknown setting pystats.nope"),
        ({"make_jobs": "x"}, "not an integer"),
        ({"make_jobs": -1}, "negative"),
        ({"keep_containers": "maybe"}, "not a boolean"),
        ({"run_memory": "2 GB"}, "run_memory='2 GB' is not a size; use digits and a unit, like 512m or 2g"),
        ({"run_memory": "1.5g"}, "is not a size"),
        ({"build_memory": "-1"}, "build_memory='-1' is not a size"),
        ({"run_memory": "4m"}, "run_memory='4m' is below the engine's minimum memory limit of 6m"),
        ({"run_memory": "0"}, "below the engine's minimum"),
        ({"run_pids": "many"}, "run_pids='many' is not an integer"),
        ({"run_pids": "0"}, "run_pids=0 must be at least 1"),
        ({"build_pids": -5}, "build_pids=-5 must be at least 1"),
    ],
    ids=[
        "unknown key",
        "non-integer jobs",
        "negative jobs",
        "bad boolean",
        "memory with a space",
        "fractional memory",
        "negative memory",
        "memory under the minimum",
        "no memory",
        "non-integer pids",
        "no pids",
        "negative pids",
    ],
)
def test_bad_settings_are_one_clear_line(raw: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(raw)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_limits_default_and_override() -> None:
    s = load_settings({})
    assert (s.run_memory, s.run_pids, s.build_memory, s.build_pids) == ("2g", 256, "8g", 4096)
    s = load_settings({"run_memory": " 256M ", "run_pids": "64", "build_memory": 12884901888, "build_pids": 100})
    assert (s.run_memory, s.run_pids, s.build_memory, s.build_pids) == ("256m", 64, "12884901888", 100)
    assert load_settings({"run_memory": "6m"}).run_memory == "6m" and load_settings({"run_pids": 1}).run_pids == 1


def test_every_default_is_declared_for_invoke() -> None:
    import tasks

    assert dict(tasks.ns.configuration()["pystats"]) == {**DEFAULTS, "jobs": ""}  # an old name, empty: not given


def test_configure_flags_file(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text('flags = ["--with-foo"]\n')
    assert load_configure_flags(f) == ("--with-foo",)
    f.write_text('flags = ["oops"]\n')
    with pytest.raises(ConfigError):
        load_configure_flags(f)
    with pytest.raises(ConfigError):
        load_configure_flags(tmp_path / "missing.toml")


def test_flags_a_tree_adds_are_read_with_their_reason_and_added_only_where_the_path_is(tmp_path: Path) -> None:
    shipped = load_tree_flags(CONFIGS_DIR / "configure.toml")
    assert [(t.path, t.flags) for t in shipped] == [
        ("Modules/_decimal/libmpdec/mpdecimal.h", ("--without-system-libmpdec",))
    ]
    bundled = {"Modules/_decimal/libmpdec/mpdecimal.h": "/* mpdecimal */"}.get  # 3.15 and earlier
    assert flags_for_tree(("--a",), shipped, bundled) == ("--a", "--without-system-libmpdec")
    assert flags_for_tree(("--a",), shipped, {}.get) == ("--a",)  # main (3.16): no bundled copy
    f = tmp_path / "c.toml"
    f.write_text('flags = ["--x"]\n[[when_tree_has]]\npath = "a"\nflags = ["oops"]\nwhy = "w"\n')
    with pytest.raises(ConfigError, match="when_tree_has"):
        load_tree_flags(f)
