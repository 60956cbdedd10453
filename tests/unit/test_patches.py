from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.builder.patches import Action, parse_requested, plan_patches, to_rich
from pystats_harness.builder.series import DEFAULT_SERIES_PATH, Reader, Series, SourceProbe, load_series
from pystats_harness.errors import ConfigError, PatchError, RevisionUnsupported

TREES = Path(__file__).resolve().parents[1] / "data" / "trees"
APPLY, PRESENT, NA, SKIP = Action.APPLY, Action.PRESENT, Action.NOT_APPLICABLE, Action.SKIPPED
IDS = ("stats-api", "dump-when-off", "xstats-default-off", "pythonstats-env", "export-specialization-stats")
CORE = IDS[:3]


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory) -> Series:
    """The real series file, with stand-in patch files so that the tests do not depend on
    which patch files exist at the moment."""
    real = load_series()
    pdir = tmp_path_factory.mktemp("patches")
    for change in real.changes:
        for v in change.variants:
            dest = pdir / v.patch.relative_to(DEFAULT_SERIES_PATH.parent.parent / "patches")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(f"stand-in for {change.id} {v.id}\n")
    return load_series(DEFAULT_SERIES_PATH, pdir)


def without(read: Reader, missing: str) -> Reader:
    return lambda rel: None if rel == missing else read(rel)


def tree(name: str) -> Reader:
    root = TREES / name
    return lambda rel: (root / rel).read_text(errors="replace") if (root / rel).is_file() else None


EXPECTED: dict[str, dict[str, tuple[Action, str | None]]] = {
    "py311-pristine": {
        "stats-api": (APPLY, "3.11"),
        "dump-when-off": (APPLY, "3.11"),
        "xstats-default-off": (APPLY, "3.11"),
        "pythonstats-env": (NA, None),
        "export-specialization-stats": (PRESENT, None),
    },
    "py311-patched": {c: (PRESENT, None) for c in IDS},
    "py311a7-alpha": {
        "stats-api": (APPLY, "3.11-dev"),
        "dump-when-off": (APPLY, "3.11-dev"),
        "xstats-default-off": (APPLY, "3.11-dev"),
        "pythonstats-env": (NA, None),
        "export-specialization-stats": (APPLY, "3.11-dev"),
    },
    "py312-dev-pre-api": {
        "stats-api": (APPLY, "3.12-dev-early"),
        "dump-when-off": (APPLY, "3.11-dev"),
        "xstats-default-off": (APPLY, "3.11-dev"),
        "pythonstats-env": (NA, None),
        "export-specialization-stats": (PRESENT, None),
    },
    "py312-dev-prefix": {
        "stats-api": (PRESENT, None),
        "dump-when-off": (APPLY, "3.12-dev"),
        "xstats-default-off": (APPLY, "3.12-dev"),
        "pythonstats-env": (NA, None),
        "export-specialization-stats": (PRESENT, None),
    },
    "py312-postfix": {
        **{c: (PRESENT, None) for c in CORE},
        "pythonstats-env": (APPLY, "3.12"),
        "export-specialization-stats": (PRESENT, None),
    },
    "py313": {c: (PRESENT, None) for c in IDS},
    "py315-main": {c: (PRESENT, None) for c in IDS},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_auto_plan_per_layout(series: Series, name: str) -> None:
    plan = plan_patches(tree(name), series, "auto")
    got = {d.change: (d.action, d.variant) for d in plan.decisions}
    assert got == EXPECTED[name]
    assert [(p.change, p.variant) for p in plan.patches] == [
        (c, v) for c, (a, v) in EXPECTED[name].items() if a is APPLY
    ]
    assert all(d.reason for d in plan.decisions)


def test_reasons_name_the_matching_probe(series: Series) -> None:
    plan = plan_patches(tree("py312-dev-prefix"), series)
    assert "Python/sysmodule.c matches /_stats_on/" in plan.decision("stats-api").reason
    assert "on top of stats-api" in plan.decision("dump-when-off").reason
    na = plan_patches(without(tree("py311a7-alpha"), "Python/sysmodule.c"), series).decision("dump-when-off")
    assert "needs stats-api (not applicable)" in na.reason


def test_too_old_tree_is_unsupported(series: Series) -> None:
    for requested in ("auto", "none", ["stats-api"]):
        with pytest.raises(RevisionUnsupported, match="enable-pystats"):
            plan_patches(tree("py311a3-too-old"), series, requested)
        with pytest.raises(RevisionUnsupported, match=r"specialize.c matches .*_specialization_stats.*PyStats struct"):
            plan_patches(tree("py311a4-pre-struct"), series, requested)
    with pytest.raises(RevisionUnsupported, match=r"configure.ac missing"):
        plan_patches(lambda path: None, series)


def test_none_applies_nothing_but_reports_presence(series: Series) -> None:
    plan = plan_patches(tree("py311-pristine"), series, "none")
    assert {d.action for d in plan.decisions if d.change != "export-specialization-stats"} == {SKIP}
    assert plan.decision("export-specialization-stats").action is PRESENT  # 3.11.2 exports it
    assert plan.patches == () and plan.patch_paths == []
    assert plan.series_digest == hashlib.sha256(b"").hexdigest()
    assert plan_patches(tree("py313"), series, "none").decision("stats-api").action is PRESENT


def test_explicit_subset_and_order(series: Series) -> None:
    plan = plan_patches(tree("py311-pristine"), series, ["stats-api"])
    assert [(d.change, d.action) for d in plan.decisions] == [
        ("stats-api", APPLY),
        ("dump-when-off", SKIP),
        ("xstats-default-off", SKIP),
        ("pythonstats-env", SKIP),
        ("export-specialization-stats", PRESENT),
    ]
    shuffled = plan_patches(tree("py311-pristine"), series, ["xstats-default-off", "stats-api", "dump-when-off"])
    assert [p.change for p in shuffled.patches] == list(CORE)


def test_explicit_change_already_present_is_fine(series: Series) -> None:
    plan = plan_patches(tree("py313"), series, list(IDS))
    assert plan.patches == ()
    post = plan_patches(tree("py312-postfix"), series, ["pythonstats-env"])
    assert [(p.change, p.variant) for p in post.patches] == [("pythonstats-env", "3.12")]


def test_explicit_change_without_its_requirement_is_an_error(series: Series) -> None:
    with pytest.raises(PatchError, match=r"dump-when-off .*needs stats-api \(skipped\)"):
        plan_patches(tree("py311-pristine"), series, ["dump-when-off"])
    with pytest.raises(PatchError, match="xstats-default-off"):
        plan_patches(tree("py312-dev-prefix"), series, ["xstats-default-off"])


def test_explicit_not_applicable_is_an_error(series: Series) -> None:
    with pytest.raises(PatchError, match="stats-api cannot be applied"):
        plan_patches(without(tree("py311a7-alpha"), "Python/sysmodule.c"), series, ["stats-api"])


def test_unknown_change_names_the_known_ones(series: Series) -> None:
    with pytest.raises(
        ConfigError, match=r"bogus.*known: stats-api, dump-when-off, xstats-default-off, pythonstats-env"
    ):
        plan_patches(tree("py311-pristine"), series, ["stats-api", "bogus"])


def test_digest_and_patch_hashes(series: Series) -> None:
    a = plan_patches(tree("py311-pristine"), series)
    b = plan_patches(tree("py312-dev-prefix"), series)
    assert a.series_digest == plan_patches(tree("py311-pristine"), series).series_digest
    assert a.series_digest != b.series_digest
    for p in a.patches:
        assert p.sha256 == hashlib.sha256(p.path.read_bytes()).hexdigest()
    lines = "".join(f"{p.change}\t{p.variant}\t{p.sha256}\n" for p in a.patches)
    assert a.series_digest == hashlib.sha256(lines.encode()).hexdigest()


def test_missing_patch_file_for_a_fitting_variant(series: Series, tmp_path: Path) -> None:
    with pytest.raises(PatchError, match=r"3.12-dev.patch is missing"):
        plan_patches(tree("py312-dev-prefix"), load_series(DEFAULT_SERIES_PATH, tmp_path))


def test_real_series_has_the_3_11_patches() -> None:
    real = load_series()
    assert real.ids == IDS
    assert real.changes[0].upstream.startswith("6f8875eba3")
    assert {c.upstream for c in real.changes[1:3]} == {"1583c6e326a8454d3c806763620e1329bf6b7cbe"}
    assert real.changes[3].upstream.startswith("a0773b89df")
    for change in real.changes[:3]:
        v311 = next(v for v in change.variants if v.id == "3.11")
        assert v311.patch_sha256 is not None, v311.patch
        text = v311.patch.read_text()
        assert "diff --git a/" in text and "\n+++ b/" in text


def test_render_lists_every_change(series: Series) -> None:
    console = Console(record=True, width=200)
    console.print(to_rich(plan_patches(tree("py311-pristine"), series)))
    out = console.export_text()
    assert all(c in out for c in IDS) and "apply" in out and "series digest" in out


def test_source_probe_forms() -> None:
    read = tree("py311-pristine")
    assert SourceProbe("configure.ac", "enable-pystats").check(read)[0]
    assert SourceProbe("configure.ac", "with-pystats", must_match=False).check(read)[0]
    ok, note = SourceProbe("nope.c", "x", must_match=False).check(read)
    assert not ok and note == "nope.c missing"


def test_parse_requested() -> None:
    assert parse_requested("auto") == "auto" and parse_requested(" none ") == "none"
    assert parse_requested("stats-api, dump-when-off") == ["stats-api", "dump-when-off"]


def _write_series(tmp_path: Path, body: str) -> Path:
    (tmp_path / "configs").mkdir()
    path = tmp_path / "configs" / "s.toml"
    path.write_text('[supported]\nprobes = [{ file = "configure.ac", match = "enable-pystats" }]\n' + body)
    return path


@pytest.mark.parametrize(
    "body, message",
    [
        ('[[change]]\nid = "a"\norder = 1\n', "malformed"),
        (
            '[[change]]\nid = "a"\norder = 1\nupstream = "x"\n[[change.variant]]\nid = "v"\npatch = "p"\n'
            'probes = [{ file = "f", match = "(" }]\n',
            "bad regex",
        ),
        (
            '[[change]]\nid = "a"\norder = 1\nupstream = "x"\n[[change.variant]]\nid = "v"\npatch = "p"\n'
            'requires = ["b"]\nprobes = [{ file = "f", match = "x" }]\n',
            "not an earlier change",
        ),
        (
            '[[change]]\nid = "a"\norder = 1\nupstream = "x"\n[[change]]\nid = "a"\norder = 2\nupstream = "x"\n',
            "unique",
        ),
        (
            '[[change]]\nid = "a"\norder = 1\nupstream = "x"\n[[change.present]]\nlabel = "l"\n'
            'probes = [{ file = "f" }]\n',
            "exactly one of",
        ),
        ("[[change]\n", "cannot read"),
    ],
)
def test_bad_series_files(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_series(_write_series(tmp_path, body))


def test_patch_dir_defaults_beside_configs(tmp_path: Path) -> None:
    path = _write_series(
        tmp_path,
        '[[change]]\nid = "a"\norder = 1\nupstream = "x"\n[[change.variant]]\nid = "v"\n'
        'patch = "a/v.patch"\nprobes = [{ file = "configure.ac", match = "pystats" }]\n',
    )
    (tmp_path / "patches" / "a").mkdir(parents=True)
    shutil.copy(TREES / "py311-pristine" / "configure.ac", tmp_path / "patches" / "a" / "v.patch")
    s = load_series(path)
    assert s.changes[0].variants[0].patch == tmp_path / "patches" / "a" / "v.patch"
    assert plan_patches(tree("py311-pristine"), s).patch_paths == [tmp_path / "patches" / "a" / "v.patch"]
