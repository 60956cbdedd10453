"""Named build configurations: declared once, chosen per revision by probing its tree (as patches are),
refused while planning with the reason, and the default configuration's cache keys unchanged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pystats_harness.builder import configurations
from pystats_harness.builder.cache import CacheEntry, cache_key
from pystats_harness.builder.configurations import Chosen, load_configurations
from pystats_harness.builder.plan import PlanInputs, plan_build, to_text
from pystats_harness.builder.series import load_series
from pystats_harness.errors import ConfigError, ConfigurationUnsupported, ImageError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.runner import RunRequest, container_spec

TREES = Path(__file__).resolve().parents[1] / "data" / "trees"
SHA = "a" * 40
IMAGE = "sha256:" + "b" * 64


def reader(tree: str, under: str = "py313"):  # type: ignore[no-untyped-def]
    """The tree's files; a file it lacks from ``under`` when it is a plan's (the patch probes read it)."""
    roots = (TREES / tree, TREES / under)

    def read(path: str) -> str | None:
        found = [root / path for root in roots if (root / path).is_file()]
        return found[0].read_text() if found else None

    return read


def choose(tree: str, name: str) -> Chosen:
    known = load_configurations()
    return configurations.choose(known.get(name), reader(tree, under=tree), known.llvm, tree)


def test_the_shipped_configurations() -> None:
    known = load_configurations()
    assert list(known.by_name) == ["default", "tier2", "jit", "freethreading"]
    assert 16 in known.llvm.available and 18 not in known.llvm.available
    assert known.llvm.packages_for(16) == ("clang-16", "llvm-16", "python3")


@pytest.mark.parametrize(
    ("tree", "name", "form", "flags", "args", "env", "llvm"),
    [
        ("py313", "default", "plain", (), (), (), None),
        ("py313", "tier2", "configure", ("--enable-experimental-jit=interpreter",), (), (), None),
        ("py313", "freethreading", "disable-gil", ("--disable-gil",), (), (), None),
        ("py313-dev-jit", "tier2", "x-uops", (), ("-X", "uops"), (("PYTHON_UOPS", "1"),), None),
        ("py313-dev-jit", "jit", "llvm", ("--enable-experimental-jit",), (), (), 16),
        ("py313-dev-jit", "freethreading", "disable-gil", ("--disable-gil",), (), (), None),
        ("py313-dev-jit-nostats", "tier2", "x-uops", (), ("-X", "uops"), (("PYTHON_UOPS", "1"),), None),
        ("py313-dev-uops-early", "tier2", "x-uops-early", (), ("-X", "uops"), (("PYTHONUOPS", "1"),), None),
        ("py311-pristine", "default", "plain", (), (), (), None),
    ],
    ids=lambda v: str(v) if isinstance(v, str) else None,
)
def test_a_configuration_is_chosen_by_probing_the_tree(
    tree: str, name: str, form: str, flags: tuple[str, ...], args: tuple[str, ...], env: tuple[object, ...], llvm: int
) -> None:
    chosen = choose(tree, name)
    assert (chosen.name, chosen.form, chosen.flags, chosen.runtime_args, chosen.runtime_env, chosen.llvm) == (
        name,
        form,
        flags,
        args,
        env,
        llvm,
    )


@pytest.mark.parametrize(
    ("tree", "name", "because"),
    [
        ("py311-pristine", "tier2", "configure.ac has no --enable-experimental-jit=interpreter; Python/pylifecycle.c"),
        ("py311-pristine", "jit", "configure.ac has no --enable-experimental-jit"),
        ("py311-pristine", "freethreading", "configure.ac has no --disable-gil"),
        ("py312-postfix", "tier2", "has no -X uops switch"),
        ("py312-postfix", "freethreading", "configure.ac has no --disable-gil"),
        ("py313", "jit", "Tools/jit/_llvm.py requires LLVM 18, which the builder's Debian does not have"),
        ("py315-jit", "jit", "Tools/jit/_llvm.py requires LLVM 21, which the builder's Debian does not have"),
        ("py313-dev-jit-nostats", "jit", "the JIT's code counts no tier-2 pystats"),
    ],
)
def test_a_revision_that_cannot_build_it_is_refused_with_the_reason(tree: str, name: str, because: str) -> None:
    with pytest.raises(ConfigurationUnsupported) as refused:
        choose(tree, name)
    message = str(refused.value)
    assert because in message and "\n" not in message and refused.value.exit_code == ExitCode.CONFIGURATION_UNSUPPORTED
    assert message.startswith(f"{tree} cannot build configuration {name} with pystats: ") and "; try " in message


def test_an_unknown_name_is_a_config_error_naming_the_known_ones() -> None:
    with pytest.raises(
        ConfigError, match="unknown configuration 'nonsense'; known configurations: default, tier2, jit"
    ):
        load_configurations().get("nonsense")


def inputs(tree: str, name: str, **changes: object) -> PlanInputs:
    commit = CommitInfo("v3.13.5", SHA, "2025-06-11T00:00:00+00:00", "Python 3.13.5")
    known = load_configurations()
    base = PlanInputs(
        commit, reader(tree), load_series(), "none", ("--with-lto=no",), "builder:tag", IMAGE, 2,
        known.get(name), known.llvm,
    )  # fmt: skip
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_the_default_configuration_keeps_the_keys_of_builds_made_before_configurations() -> None:
    """The key of main before configurations (computed there) for these inputs; default adds nothing."""
    assert cache_key(SHA, ["d1", "d2"], ["--with-lto=no"], IMAGE) == "f4c6ca8e34ed25f7dc24f1a8"
    default, unnamed = (
        plan_build(inputs("py313", "default")),
        plan_build(inputs("py313", "default", configuration=None)),
    )
    assert default.key == unnamed.key == cache_key(SHA, [], ["--with-lto=no"], IMAGE)
    assert default.configuration == Chosen()


def test_another_configuration_is_another_build() -> None:
    default, tier2 = plan_build(inputs("py313", "default")), plan_build(inputs("py313", "tier2"))
    assert tier2.key != default.key and tier2.configuration.name == "tier2"
    assert tier2.all_configure_args[-1] == "--enable-experimental-jit=interpreter"
    text = to_text(tier2, cached=False)
    assert "config     tier2 (configure)" in text and "--enable-experimental-jit=interpreter" in text
    with pytest.raises(ConfigurationUnsupported):
        plan_build(inputs("py311-pristine", "tier2"))


def test_a_jit_build_runs_in_the_builder_image_variant_with_its_llvm() -> None:
    with pytest.raises(ImageError, match=r"builder:tag-llvm16 is missing; make it with `invoke image --llvm 16`"):
        plan_build(inputs("py313-dev-jit", "jit"))
    variant = "sha256:" + "c" * 64
    plan = plan_build(inputs("py313-dev-jit", "jit", variant_images={"builder:tag-llvm16": variant}))
    assert (plan.image_tag, plan.image_id, plan.configuration.llvm) == ("builder:tag-llvm16", variant, 16)
    assert "LLVM 16" in to_text(plan, cached=False)


def test_every_run_of_a_build_carries_its_runtime_switch(tmp_path: Path) -> None:
    entry = CacheEntry(tmp_path)
    spec = container_spec(entry, RunRequest(("-c", "pass")), tmp_path / "run", "img", memory="2g", pids=64)
    assert spec.command[1:] == ["-c", "pass"] and "PYTHON_UOPS" not in spec.env
    entry.runtime_path.write_text('{"args": ["-X", "uops"], "env": {"PYTHON_UOPS": "1"}}')
    request = RunRequest(("-E", "-c", "pass"), env={"PYTHONSTATS": "1"})
    spec = container_spec(entry, request, tmp_path / "run", "img", memory="2g", pids=64)
    assert spec.command[1:] == ["-X", "uops", "-E", "-c", "pass"]
    assert spec.env["PYTHON_UOPS"] == "1" and spec.env["PYTHONSTATS"] == "1"


def test_a_malformed_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "configurations.toml"
    bad.write_text('[configuration.default]\n[[configuration.default.form]]\nid = "plain"\nflags = ["x"]\n')
    with pytest.raises(ConfigError, match="'flags' must be options"):
        load_configurations(bad)
    bad.write_text('[configuration.tier2]\n[[configuration.tier2.form]]\nid = "a"\n')
    with pytest.raises(ConfigError, match="configuration 'default' must exist"):
        load_configurations(bad)


def test_every_unit_carries_the_configuration_in_its_recipe(tmp_path: Path) -> None:
    from pystats_harness.builder.configurations import ConfigName, config_name
    from pystats_harness.builder.recipe import Recipe
    from pystats_harness.collect import driver
    from pystats_harness.collect.run import units_for
    from pystats_harness.paths import run_folder
    from pystats_harness.pyperformance.benchmarks import Benchmark, Timing

    commit = CommitInfo("v3.13.5", SHA, "2025-06-11T00:00:00+00:00", "Python 3.13.5")
    bench = Benchmark("nbody", "bm_nbody", "run_benchmark.py", (), (), False, Timing.TIME_FUNC)
    request = driver.Request((bench,), 2, 2, {}, tmp_path / "out")
    tier2 = Recipe(commit, "auto", config_name("tier2"))
    assert [u.recipe.config for u in units_for(tier2, "1.14.0", request, 3)] == ["tier2"]
    assert Recipe(commit).config == "default" and Recipe(commit).describe() == "v3.13.5 (--patches auto)"
    assert tier2.describe() == "v3.13.5 (--patches auto, --config tier2)"
    with pytest.raises(ConfigError, match="unknown configuration 'tier3'"):
        config_name("tier3")
    assert run_folder(tmp_path, "v3.13.5", ConfigName("tier2")).name.endswith("-v3.13.5-tier2")
    assert run_folder(tmp_path, "main/x").name.endswith("-main_x")


def test_names_that_depend_on_the_configuration() -> None:
    from pystats_harness.validate import baseline

    assert baseline.path_for("3.13.5", "nbody", Path("b")) == Path("b/3.13.5/nbody.json")
    assert baseline.path_for("3.13.5", "nbody", Path("b"), "tier2") == Path("b/3.13.5-tier2/nbody.json")


def test_a_probe_a_configuration_exempts_is_said_never_passed() -> None:
    from pystats_harness.builder import fingerprint
    from pystats_harness.builder.probes import ProbeReport, exempt_line

    probe = fingerprint.PROBES[0]
    failed = fingerprint.ProbeVerdict(probe, False, "exit 0; 1 file(s), 1 non-zero", ("1 file(s) with non-zero stats",))
    plain = ProbeReport({}, (failed,))
    assert not plain.ok and plain.failed_probes == (probe.id,)
    exempt = ProbeReport({}, (failed,), "tier2", {probe.id: "the optimizer counts at startup"})
    assert exempt.ok and exempt.failed_probes == () and exempt.mismatches == []
    assert exempt.fingerprint[probe.id]["exempt"] == "the optimizer counts at startup"
    assert exempt.fingerprint[probe.id]["ok"] is False  # recorded as it was observed
    assert (
        exempt_line(exempt)
        == f"not checked for configuration tier2 (exempt): {probe.id}: the optimizer counts at startup"
    )
