from __future__ import annotations

from pathlib import Path

import pytest

from pystats_harness.config import DEFAULTS, load_configure_flags, load_settings
from pystats_harness.errors import ConfigError


def test_defaults_resolve() -> None:
    s = load_settings({})
    assert s.mirror_dir == s.cache_dir / "cpython.git"
    assert s.make_jobs >= 1
    assert s.default_rev == "v3.13.5"


def test_override_and_types(tmp_path: Path) -> None:
    s = load_settings({"cache_dir": str(tmp_path), "jobs": "3", "keep_containers": "yes"})
    assert s.cache_dir == tmp_path and s.jobs == 3 and s.keep_containers is True


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ({"nope": 1}, "unknown setting pystats.nope"),
        ({"jobs": "x"}, "not an integer"),
        ({"jobs": -1}, "negative"),
        ({"keep_containers": "maybe"}, "not a boolean"),
    ],
    ids=["unknown key", "non-integer jobs", "negative jobs", "bad boolean"],
)
def test_bad_settings_are_one_clear_line(raw: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(raw)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_every_default_is_declared_for_invoke() -> None:
    import tasks

    assert dict(tasks.ns.configuration()["pystats"]) == DEFAULTS


def test_configure_flags_file(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text('flags = ["--with-foo"]\n')
    assert load_configure_flags(f) == ("--with-foo",)
    f.write_text('flags = ["oops"]\n')
    with pytest.raises(ConfigError):
        load_configure_flags(f)
    with pytest.raises(ConfigError):
        load_configure_flags(tmp_path / "missing.toml")
