"""`invoke diff` without Docker: how it ends (40 over 39 over 38 over 0), what its report shows first and marks,
the comparison of two collect outputs on disk, and bad input refused before any build."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect import trust
from pystats_harness.collect.compare import Thresholds
from pystats_harness.collect.one import Outcome
from pystats_harness.collect.run import CollectRun
from pystats_harness.diff import report
from pystats_harness.diff.plan import check_min_change, check_out
from pystats_harness.diff.result import DiffPaths, DiffResult, Verdicts
from pystats_harness.diff.run import compared
from pystats_harness.diff.work import Rendered, reads_two_inputs
from pystats_harness.errors import ConfigError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.pyperformance.fallbacks import Used
from pystats_harness.stats.collection import Collection, save
from tests.support.invoke_runner import invoke_in as _invoke

V = trust.Verdict


def _counters(hit: int, executed: int = 1000) -> dict[str, float]:
    return {
        "opcode.LOAD_ATTR.execution_count": executed,
        "family.LOAD_ATTR.execution_count": executed,
        "family.LOAD_ATTR.specialization.hit": hit,
        "family.LOAD_ATTR.specialization.miss": executed - hit,
    }


def _output(out: Path, revision: str, collections: dict[str, dict[str, float]]) -> Path:
    """A collect output as compare reads it: report.json's metadata and benchmarks/<name>/collection.json."""
    meta = {"revision": revision, "sha": "ab" * 20, "python_version": revision.lstrip("v"), "loops": 2}
    (out / "benchmarks").mkdir(parents=True)
    (out / "report.json").write_text(json.dumps({"metadata": meta}))
    for name, counters in collections.items():
        (out / "benchmarks" / name).mkdir()
        save(Collection({**meta, "benchmark": name}, counters), out / "benchmarks" / name / "collection.json")
    return out


def _recipe(rev: str) -> Recipe:
    return Recipe(CommitInfo(rev, "cd" * 20, "2026-01-01", rev))


def _ran(v: V) -> bool:
    return v not in (V.SKIPPED, V.FAILED)


def _result(tmp_path: Path, verdicts: dict[str, tuple[V, V]], head_hit: int = 950, strict: bool = False) -> DiffResult:
    """A diff of two outputs on disk: nbody's LOAD_ATTR hit ratio moves from 80 % to ``head_hit`` per mille;
    a benchmark skipped or failed on a side has no counts there."""
    base = _output(tmp_path / "base", "v3.11.2", {n: _counters(800) for n, v in verdicts.items() if _ran(v[0])})
    head = _output(
        tmp_path / "head",
        "v3.13.5",
        {n: _counters(head_hit if n == "nbody" else 800) for n, v in verdicts.items() if _ran(v[1])},
    )
    outcomes = {
        side: [
            Outcome(n, f"bm_{n}", v[i], loops=4, reason="" if _ran(v[i]) else "skipped: needs tomli (install failed)")
            for n, v in verdicts.items()
        ]
        for i, side in enumerate(("base", "head"))
    }
    request = type("R", (), {"thresholds": Thresholds()})()
    return DiffResult(
        _recipe("v3.11.2"),
        _recipe("v3.13.5"),
        CollectRun(outcomes["base"], base, ()),
        CollectRun(outcomes["head"], head, ()),
        compared(request, base, head),  # type: ignore[arg-type]
        tuple(Verdicts(n, b, h) for n, b, h in zip(verdicts, outcomes["base"], outcomes["head"], strict=True)),
        Rendered("Tools/scripts/summarize_stats.py of v3.13.5 (cdcdcdcdcd)", "# Summary\n"),
        DiffPaths(tmp_path),
        {n: 4 for n in verdicts},
        "calibrated on the base",
        2,
        Thresholds(),
        strict,
    )


def test_a_flagged_change_exits_38_and_is_the_first_table(tmp_path: Path) -> None:
    result = _result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED), "float": (V.TRUSTED, V.APPROXIMATE)})
    error = result.exit_error()
    assert error is not None and error.exit_code == ExitCode.DIFF_FLAGGED == 38 and "nbody" in str(error)
    text = report.to_markdown(result)
    assert text.index("### Flagged changes (2)") < text.index("### Suite summary") < text.index("### Verdicts")
    rows = [line for line in text.splitlines() if line.startswith("| `nbody` | `LOAD_ATTR`")]
    assert rows == [
        "| `nbody` | `LOAD_ATTR` hit ratio | 80.0% | 95.0% | +15.0 pp |",
        "| `nbody` | `LOAD_ATTR` miss ratio | 20.0% | 5.0% | -15.0 pp |",
    ]
    assert "Not trusted" not in text and "⚠" not in text
    doc = report.to_json(result)
    assert doc["exit_code"] == 38 and doc["flagged"][0]["change"] == "+15.0 pp"
    assert doc["verdicts"]["float"] == {"base": "trusted", "head": "approximate", "trusted": True, "compared": True}


def test_an_untrusted_benchmark_wins_over_a_flagged_change_and_is_marked_everywhere(tmp_path: Path) -> None:
    result = _result(tmp_path, {"float": (V.TRUSTED, V.TRUSTED), "nbody": (V.TRUSTED, V.UNTRUSTED)})
    error = result.exit_error()
    assert error is not None and error.exit_code == ExitCode.DIFF_UNTRUSTED == 39
    assert "nbody (head: untrusted)" in str(error)
    text = report.to_markdown(result)
    assert "**Not trusted on a side: `nbody` (head: untrusted).**" in text
    flagged_rows = [line for line in text.splitlines() if "LOAD_ATTR` hit ratio" in line]
    assert flagged_rows and all("⚠ head: untrusted" in row for row in flagged_rows)
    verdict_rows = text[text.index("### Verdicts") :].splitlines()
    assert [r.split("|")[1].strip() for r in verdict_rows if r.startswith("| `")] == ["`nbody`", "`float`"]
    assert report.to_json(result)["flagged"][0]["not_trusted"] == "head: untrusted"


def test_a_partial_benchmark_is_marked_but_fails_only_with_strict(tmp_path: Path) -> None:
    verdicts = {"nbody": (V.PARTIAL, V.TRUSTED)}
    assert _result(tmp_path / "a", verdicts, head_hit=800).exit_code == 0
    assert "| `nbody` ⚠" not in report.to_markdown(_result(tmp_path / "b", verdicts, head_hit=800))  # no row to mark
    assert "`nbody` (base: partial)" in report.to_markdown(_result(tmp_path / "c", verdicts, head_hit=800))
    assert _result(tmp_path / "d", verdicts, head_hit=800, strict=True).exit_code == 39


def test_a_benchmark_that_ran_on_neither_or_one_side_is_not_compared_exit_40_first_line(tmp_path: Path) -> None:
    """tomli_loads skipped on both sides, json_loads on the head only: never "no interesting change"."""
    verdicts = {
        "nbody": (V.TRUSTED, V.TRUSTED),
        "tomli_loads": (V.SKIPPED, V.SKIPPED),
        "json_loads": (V.TRUSTED, V.SKIPPED),
    }
    result = _result(tmp_path, verdicts, head_hit=800)
    error = result.exit_error()
    assert error is not None and error.exit_code == ExitCode.DIFF_NOT_COMPARED == 40 == result.exit_code
    assert "2 of 3 benchmark(s) not compared" in str(error) and "tomli_loads (base: skipped (needs tomli" in str(error)
    text = report.to_markdown(result)
    first = text.splitlines()[0]
    assert first.startswith(
        "**Not compared (2 of 3): `tomli_loads` (base: skipped (needs tomli (install failed)); head:"
    )
    assert "`json_loads` (head: skipped (needs tomli (install failed)))" in first
    assert "No interesting change in the 1 benchmark(s) compared; 2 not compared." in text
    assert "\nNo interesting change.\n" not in text
    doc = report.to_json(result)
    assert doc["exit_code"] == 40 and set(doc["not_compared"]) == {"tomli_loads", "json_loads"}
    assert doc["verdicts"]["nbody"]["compared"] and not doc["verdicts"]["json_loads"]["compared"]
    assert report.flagged_part(result).splitlines()[0] == first  # what the task prints starts with it too
    from pystats_harness.diff.recording import recorded

    units = {u.name: u for u in recorded(result).units}
    assert units["tomli_loads"].verdict == "not compared" and "needs tomli" in units["tomli_loads"].reason
    assert units["nbody"].verdict == "unchanged"


def test_not_compared_wins_over_untrusted_and_flagged(tmp_path: Path) -> None:
    verdicts = {"nbody": (V.TRUSTED, V.UNTRUSTED), "float": (V.FAILED, V.TRUSTED)}
    result = _result(tmp_path, verdicts)
    assert result.exit_code == 40 and "float (base: failed (needs tomli" in str(result.exit_error())
    assert _result(tmp_path / "b", {"nbody": (V.TRUSTED, V.UNTRUSTED)}).exit_code == 39


def test_the_same_numbers_on_both_sides_flag_nothing_and_exit_0(tmp_path: Path) -> None:
    result = _result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED)}, head_hit=800)
    assert result.exit_error() is None and result.exit_code == 0
    text = report.to_markdown(result)
    assert "### Flagged changes (0)\n\nNo interesting change." in text
    assert "| `nbody` | 500 | 500 | +0.0% | 0 |" in text  # per loop: 1000 instructions over 2 loops


def test_no_benchmark_counted_on_both_sides_is_an_empty_comparison(tmp_path: Path) -> None:
    base = _output(tmp_path / "base", "v3.11.2", {"nbody": _counters(800)})
    head = _output(tmp_path / "head", "v3.13.5", {})
    request = type("R", (), {"thresholds": Thresholds()})()
    cmp = compared(request, base, head)  # type: ignore[arg-type]
    assert cmp.changes == () and cmp.only_base == ("nbody",) and cmp.head["revision"] == "v3.13.5"


def test_the_rendering_and_its_absence_are_said(tmp_path: Path) -> None:
    result = _result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED)})
    rendering = report.rendering_report(result)
    assert rendering is not None and rendering.markdown is not None
    assert (
        rendering.markdown.startswith("<!-- Tools/scripts/summarize_stats.py of v3.13.5")
        and "# Summary" in rendering.markdown
    )
    assert "`summarize_stats.md`: Tools/scripts/summarize_stats.py of v3.13.5" in report.to_markdown(result)
    assert reads_two_inputs('parser.add_argument(\n "inputs", nargs="*")\n parser.add_argument("--json-output")')
    assert not reads_two_inputs("DEFAULT_DIR = '/tmp/py_stats'\ndef main(): ...")  # 3.11's: no arguments


def test_bad_thresholds_and_outputs_are_refused(tmp_path: Path) -> None:
    assert check_min_change(None) == Thresholds() and check_min_change(0.05) == Thresholds(ratio=0.05, count=0.05)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ConfigError, match="--min-change"):
            check_min_change(bad)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not a diff output"):
        check_out(tmp_path / "other")
    (tmp_path / "earlier" / "base").mkdir(parents=True)
    (tmp_path / "earlier" / "report.md").write_text("")
    assert check_out(tmp_path / "earlier") == tmp_path / "earlier"  # an earlier diff: replaced


def test_a_bad_revision_on_either_side_is_exit_3_before_anything(tmp_path: Path, git_repo) -> None:
    bare, shas = git_repo([{"configure.ac": "enable-pystats\n"}])
    assert _invoke(tmp_path, "mirror", "--remote", str(bare)).returncode == 0
    for args in (("--base", "v0.0.0", "--head", shas[0]), ("--base", shas[0], "--head", "nosuch", "-b", "nosuch")):
        out = _invoke(tmp_path, "diff", *args, "--dry-run")
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 3 and len(lines) == 1 and "not found in the mirror" in lines[0], out.stderr
    missing = _invoke(tmp_path, "diff", "--base", shas[0])
    assert missing.returncode == 2 and "diff needs --head" in missing.stderr
    assert not (tmp_path / "cache" / "diffs").exists()


def test_a_head_script_that_cannot_compare_two_inputs_is_a_note_not_a_failure(tmp_path: Path) -> None:
    """3.11's summarize_stats.py reads /tmp/py_stats only; no script at all, or no export on a side: one line."""
    from types import SimpleNamespace

    from pystats_harness.diff.run import render
    from pystats_harness.diff.work import SCRIPT, SummarizeWork

    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("DEFAULT_DIR = '/tmp/py_stats'\ndef main(): ...\n")
    attempt = SimpleNamespace(
        build=SimpleNamespace(entry=SimpleNamespace(source_dir=tmp_path)), recipe=_recipe("v3.11.2")
    )
    rendered = SummarizeWork(b"{}", b"{}").run(None, attempt, lambda message: None)  # type: ignore[arg-type]
    assert rendered.markdown is None and "v3.11.2" in rendered.note and "takes no inputs" in rendered.note
    (tmp_path / SCRIPT).unlink()
    gone = SummarizeWork(b"{}", b"{}").run(None, attempt, lambda message: None)  # type: ignore[arg-type]
    assert gone.markdown is None and "keeps no Tools/scripts/summarize_stats.py" in gone.note
    base = _output(tmp_path / "base", "v3.11.2", {})
    request = SimpleNamespace(head=_recipe("v3.13.5"))
    head = _output(tmp_path / "head", "v3.13.5", {})
    none = render(None, request, base, head)  # type: ignore[arg-type]
    assert (
        none.markdown is None and none.note == "no summarize_stats export on the base and head sides: nothing counted"
    )


def test_a_diff_is_recorded_with_its_parents_verdicts_and_flagged_changes(tmp_path: Path) -> None:
    """The store's record of a diff: its base and head collects as parents, a unit per benchmark and the
    flagged rows publish shows; recorded twice, one run."""
    from dataclasses import replace

    from pystats_harness.diff.recording import recorded
    from pystats_harness.results import Store

    result = _result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED), "float": (V.TRUSTED, V.UNTRUSTED)})
    result = replace(result, base=replace(result.base, run_id="b" * 64), head=replace(result.head, run_id="h" * 64))
    run = recorded(result)
    assert run.parents == ("b" * 64, "h" * 64) and run.revision == "v3.11.2..v3.13.5"
    assert {u.name: (u.verdict, u.reason) for u in run.units} == {
        "nbody": ("changed", "2 flagged"),
        "float": ("not trusted", "head: untrusted"),
    }
    assert run.extra["base_revision"] == "v3.11.2"
    assert run.extra["flagged"][0] == {
        "benchmark": "nbody",
        "metric": "LOAD_ATTR.hit_ratio",
        "base": 0.8,
        "head": 0.95,
        "change": "+15.0 pp",
    }
    with Store.open(tmp_path / "results.sqlite") as store:
        assert store.record(run) == store.record(run) == run.run_id
        assert [r.task.value for r in store.runs()] == ["diff"]


def test_a_metric_over_the_store_leaves_a_diff_out(tmp_path: Path) -> None:
    """A diff's units hold no counters (its two collects do): a metric's series has the collects' values only."""
    from pystats_harness.diff.recording import recorded
    from pystats_harness.results import RunRecord, Store, Task, UnitRecord

    collect = RunRecord(
        Task.COLLECT,
        "v3.13.5",
        "cd" * 20,
        "2026-01-01",
        "default",
        (),
        (UnitRecord("nbody", "trusted", "", 4, {"x": 2.0}),),
    )
    with Store.open(tmp_path / "results.sqlite") as store:
        store.record(collect)
        store.record(recorded(_result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED)})))
        assert [(p.task.value, p.value) for p in store.series("x")] == [("collect", 2.0)]


def test_a_trusted_side_whose_site_took_a_fallback_says_so_in_the_verdicts(tmp_path: Path) -> None:
    result = _result(tmp_path, {"nbody": (V.TRUSTED, V.TRUSTED)}, head_hit=800)
    used = (Used("pydantic-core", "resolved with pydantic<2 (not pydantic-core)", "pure pydantic 1", "Rust"),)
    head = dataclasses.replace(result.verdicts[0].head, site_fallbacks=used)  # type: ignore[arg-type]
    result = dataclasses.replace(result, verdicts=(dataclasses.replace(result.verdicts[0], head=head),))
    row = next(line for line in report.to_markdown(result).splitlines() if line.startswith("| `nbody` | trusted"))
    assert "head: site (configs/sites.toml): pydantic-core resolved with pydantic<2 (not pydantic-core)" in row
    assert "base:" not in row
