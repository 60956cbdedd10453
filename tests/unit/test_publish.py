"""invoke publish (pystats_harness/publish): pages planned from hand-made records (a diff's flagged changes
first, parents linked only when stored, recorded text shown as text), a metric without values gets no page,
file names safe, no outside address in any page, and the site put in place whole or not at all."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from pystats_harness.errors import ConfigError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.publish import check_request, publish_site, site
from pystats_harness.publish.metric_page import metric_page
from pystats_harness.publish.names import headline, label, slugs
from pystats_harness.publish.pages import run_page
from pystats_harness.publish.plot import unit_lines
from pystats_harness.reports.as_html import render
from pystats_harness.results import Point, Task, UnitRecord, queried
from pystats_harness.results.errors import NotAStore, UnknownMetric
from tests.support.invoke_runner import invoke_env, run_invoke
from tests.support.site_store import collect_run, demo_store, diff_run

CONFIGURED = ("opcode.*.execution_count", "family.<family>.specialization.hit_ratio", "uops.*.execution_count")


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    db = tmp_path / "cache" / "results" / "results.sqlite"
    return db, demo_store(db)


def test_headline_metrics_expand_each_family_and_keep_the_asked_ones() -> None:
    names = ["family.CALL.specialization.hit", "family.LOAD_ATTR.specialization.miss", "gc.0.collections"]
    assert headline(CONFIGURED, ["gc.0.collections", "opcode.*.execution_count"], names) == [
        "opcode.*.execution_count",
        "family.CALL.specialization.hit_ratio",
        "family.LOAD_ATTR.specialization.hit_ratio",
        "uops.*.execution_count",
        "gc.0.collections",
    ]
    assert label("family.CALL.specialization.deferred_share") == "CALL deferred share"
    assert label("opcode.*.execution_count") == "instructions per loop"


def test_slugs_are_safe_file_names_unique_even_ignoring_case() -> None:
    metrics = ["opcode.*.execution_count", "other.Some raw key/..", "a.B", "a.b", "family.X.hit_ratio"]
    found = slugs(metrics)
    assert found["family.X.hit_ratio"] == "family.X.hit_ratio"
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", s) and not s.startswith(".") for s in found.values())
    assert len({s.lower() for s in found.values()}) == len(metrics)


def test_a_diffs_flagged_changes_come_first_and_its_parents_link_only_when_stored() -> None:
    base, head = collect_run(0), collect_run(1)
    diff = diff_run(base.run_id, head.run_id)
    page = run_page(diff, {base.run_id, diff.run_id}, ["gc.*.collections"], {}).markdown or ""
    assert page.index("## Flagged changes") < page.index("## Units")
    html = (render(run_page(diff, set(), [], {})) or b"").decode()
    cells = re.findall(r"<td>(.*?)</td>", html.split("Flagged changes")[1].split("Units")[0])
    assert cells == [  # as report.md shows them: a ratio in percent, its change in points; a count per loop
        *("richards", "LOAD_ATTR.hit_ratio", "68.5%", "57.9%", "-10.6 pp"),
        *("nbody", "executed", "23,901,718.0", "28,081,503.0", "+17.5%"),
    ]
    assert f"[{base.run_id[:12]}]({base.run_id[:12]}.html)" in page
    assert f"`{head.run_id[:12]}` (not in this store)" in page  # no link to a page that is not there
    for extra in ({}, {"flagged": "nonsense"}, {"flagged": [1, None]}):
        assert "None flagged." in (run_page(replace(diff, extra=extra), set(), [], {}).markdown or "")


def test_recorded_text_is_shown_as_text() -> None:
    hostile = "a | b <script>alert(1)</script> [x](http://evil.example) **bold** <http://evil.example>"
    run = replace(collect_run(0), revision=hostile, units=(UnitRecord("go", "failed", hostile),))
    page = (render(run_page(run, set(), [], {})) or b"").decode()
    assert "<script" not in page
    assert 'href="http' not in page and "<strong>" not in page and "&lt;script&gt;" in page
    assert page.count("<td>go</td>") == 1  # the | did not split the row


def test_a_metric_without_values_gets_no_page() -> None:
    point = Point("a" * 64, Task.COLLECT, "v", "s" * 40, "2025-01-01T00:00:00+00:00", "default", "go", "failed", None)
    assert metric_page("gc.*.collections", "gc", [point]) is None
    assert metric_page("gc.*.collections", "gc", []) is None


def test_the_site_has_every_page_no_outside_address_and_names_metrics_without_values(
    store: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    db, ids = store
    out = tmp_path / "site"
    published = publish_site(db, out, CONFIGURED, ["gc.0.collections"])
    assert published.runs == 4 and "uops.*.execution_count" in published.without_values
    assert "gc.0.collections" in published.metric_pages and "opcode.*.execution_count" in published.metric_pages
    pages = sorted(out.rglob("*.html"))
    assert {p.stem for p in (out / "runs").iterdir()} == {i[:12] for i in ids.values()}
    assert all("http" not in p.read_text() for p in pages)
    assert len(list((out / "metrics").glob("*.png"))) == len(published.metric_pages)
    index = published.index.read_text()
    assert "No stored value, so no page: <code>uops.*.execution_count</code>" in index
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name or ".old-" in p.name] == []


def test_a_failed_publish_leaves_the_previous_site_and_no_half_one(
    store: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _ = store
    out = tmp_path / "site"
    publish_site(db, out, CONFIGURED, [])
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    calls = []

    def failing(report: object, folder: Path) -> None:
        calls.append(report)
        if len(calls) > 3:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(site, "write_report", failing)
    with pytest.raises(OSError):
        publish_site(db, out, CONFIGURED, [])
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "site"]
    with pytest.raises(UnknownMetric):
        publish_site(db, tmp_path / "new", CONFIGURED, ["opcode.NOPE.execution_count"])
    assert not (tmp_path / "new").exists()


def test_the_request_is_checked_before_any_work(store: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, _ = store
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="something other than a published site"):
        check_request(tmp_path / "home", [], db)
    with pytest.raises(ConfigError, match="not a metric name"):
        check_request(tmp_path / "new", ["a b"], db)
    check_request(tmp_path / "new", [], tmp_path / "none.sqlite")  # no store yet: an empty site, no error
    (tmp_path / "other.sqlite").write_text("not a database")
    with pytest.raises(NotAStore):
        check_request(tmp_path / "new", [], tmp_path / "other.sqlite")
    (tmp_path / "empty").mkdir()
    check_request(tmp_path / "empty", ["gc.*.collections"], db)
    assert (tmp_path / "home" / "notes.txt").read_text() == "mine" and not (tmp_path / "new").exists()


def test_invoke_publish_prints_the_site_and_its_url(store: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, _ = store
    queried.remember(db, "family.CALL.specialization.miss_ratio")
    env = invoke_env(db.parent.parent)
    done = run_invoke("publish", env=env)
    assert done.returncode == 0, done.stderr
    site_dir = db.parent.parent / "site"
    assert f"open {(site_dir / 'index.html').as_uri()}" in done.stdout
    assert (site_dir / "metrics" / "family.CALL.specialization.miss_ratio.html").is_file()  # queried: a page
    again = run_invoke("publish", "--metric", "gc.9.nope", env=env)
    assert again.returncode == ExitCode.UNKNOWN_METRIC and again.stderr.count("\n") == 1
    other = tmp_path / "other-cache"
    none = run_invoke("publish", env=invoke_env(other))  # no run recorded yet: a site that says so, as results does
    assert none.returncode == 0 and "no run is recorded yet" in none.stdout, none.stderr
    assert (other / "site" / "index.html").is_file() and not (other / "results").exists()
    (other / "results").mkdir()
    (other / "results" / "results.sqlite").write_text("not a database")
    damaged = run_invoke("publish", env=invoke_env(other))
    assert damaged.returncode == ExitCode.NOT_A_STORE and damaged.stderr.count("\n") == 1


def test_each_units_line_runs_in_commit_order_through_the_mean_of_a_date() -> None:
    points = [(3.0, 0.5, "richards"), (1.0, 0.9, "richards"), (3.0, 0.7, "richards"), (2.0, 1.0, "float")]
    assert unit_lines(points) == {"float": [(2.0, 1.0)], "richards": [(1.0, 0.9), (3.0, 0.6)]}
