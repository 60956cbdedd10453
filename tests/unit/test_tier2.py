"""Tier-2 lines: the catalogue equals each generation's specialize.c, every line gets its dotted name,
and compare / summary show them sensibly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection, from_dump
from pystats_harness.stats.compare import compare
from pystats_harness.stats.dumps import parse_text
from pystats_harness.stats.names import NameTables
from pystats_harness.stats.tier2 import (
    GENERATIONS,
    HISTOGRAMS,
    Generation,
    lines_of,
    missing_for_313_script,
    scalar_keys,
)
from tests.support.history import HISTORY_MARKS, needs_real_history
from tests.support.tier2_dumps import Counts, c_lines, git_show, printed_formats, render, source_formats

DUMPS = Path(__file__).resolve().parents[1] / "data" / "dumps"
#: The committed real tier-2 dumps (tests/data/dumps/README.md) and the generation each revision is of.
REAL = {"main-c97d3af239-uops": "50369e6c34", "main-84b7e9e3fa-uops": "9eb2489266"}


def real_dump(name: str) -> str:
    return next((DUMPS / name / "run1").glob("*.txt")).read_text()


@pytest.mark.parametrize("name", sorted(REAL))
def test_catalogue_is_what_a_real_dump_prints(name: str) -> None:
    """A real build's dump against the catalogue: every line printed whatever ran (scalars, histograms)
    in order, and each per-name line it printed in its place; read from the dump by shape alone."""
    printed = printed_formats(real_dump(name))
    assert printed == [f for f in lines_of(REAL[name]) if f in printed or "[%s]" not in f]


def test_catalogue_is_what_3135_prints() -> None:
    """The release's own Python/specialize.c (in every mirror bootstrap made) against the catalogue."""
    assert source_formats("v3.13.5") == list(lines_of("v3.13.5"))


@needs_real_history
@pytest.mark.parametrize("generation", GENERATIONS, ids=lambda g: g.since)
def test_catalogue_is_what_each_generation_prints(generation: Generation) -> None:
    """Every line of the generation's specialize.c is in the catalogue, in order, and the one before it
    printed exactly the previous generation's lines (3.13.5's predecessor: main's last commit here)."""
    assert source_formats(generation.since) == list(lines_of(generation.since))
    index = GENERATIONS.index(generation)
    before = "c97d3af239" if generation.since == "v3.13.5" else f"{generation.since}~1"
    source = git_show(before, "Python/specialize.c")
    if index == 0:
        assert "print_optimization_stats" not in source
    else:
        assert c_lines(source) == list(lines_of(GENERATIONS[index - 1].since))


@needs_real_history
def test_313_prints_the_section_only_in_tier2_builds() -> None:
    tagged = git_show("v3.13.5", "Python/specialize.c")
    assert "#ifdef _Py_TIER2\n    print_optimization_stats(out, &stats->optimization_stats);\n#endif" in tagged
    main = git_show("c97d3af239", "Python/specialize.c")
    assert "    print_optimization_stats(out, &stats->optimization_stats);\n    print_rare" in main


#: Every scalar and histogram line of 3.13.5 and the counter it becomes.
SCALAR_NAMES = {
    "Optimization attempts": "optimizer.attempts",
    "Optimization traces created": "optimizer.traces_created",
    "Optimization traces executed": "optimizer.traces_executed",
    "Optimization uops executed": "optimizer.uops_executed",
    "Optimization trace stack overflow": "optimizer.trace_stack_overflow",
    "Optimization trace stack underflow": "optimizer.trace_stack_underflow",
    "Optimization trace too long": "optimizer.trace_too_long",
    "Optimization trace too short": "optimizer.trace_too_short",
    "Optimization inner loop": "optimizer.inner_loop",
    "Optimization recursive call": "optimizer.recursive_call",
    "Optimization low confidence": "optimizer.low_confidence",
    "Executors invalidated": "optimizer.executors_invalidated",
    "Optimization optimizer attempts": "optimizer.optimizer_attempts",
    "Optimization optimizer successes": "optimizer.optimizer_successes",
    "Optimization optimizer failure no memory": "optimizer.optimizer_failure_no_memory",
    "Optimizer remove globals builtins changed": "optimizer.remove_globals_builtins_changed",
    "Optimizer remove globals incorrect keys": "optimizer.remove_globals_incorrect_keys",
}
HISTOGRAM_NAMES = {
    "Trace length": "optimizer.histogram.trace_length",
    "Trace run length": "optimizer.histogram.trace_run_length",
    "Optimized trace length": "optimizer.histogram.optimized_trace_length",
}


def sample(since: str, keys: list[str]) -> Counts:
    """Distinct counts for the scalar ``keys`` and every other line; uop names as ``since`` prints them."""
    old = GENERATIONS.index(next(g for g in GENERATIONS if g.since == since)) < 5  # before 142502ea8d
    return Counts(
        scalars={key: 100 + i for i, key in enumerate(keys)},
        histograms={name: {1: 0, 16: 7 + i, 2**31: 1} for i, name in enumerate(HISTOGRAMS)},
        uops={("LOAD_FAST" if old else "_LOAD_FAST"): (40, 3), "_SET_IP": (50, 0)},
        unsupported={"WITH_EXCEPT_START": 2},
        pairs={("_LOAD_FAST", "_SET_IP"): 30},
        errors={"_BINARY_OP": 4},
    )


@pytest.mark.parametrize(
    "since", [pytest.param(g.since, marks=() if g.since == "v3.13.5" else HISTORY_MARKS) for g in GENERATIONS]
)
def test_every_line_of_every_generation_is_named(since: str) -> None:
    """A dump rendered from the generation's own specialize.c (not the catalogue) is named line by line."""
    formats = source_formats(since)
    keys = [f.split(":")[0] for f in formats if "[" not in f]
    c = from_dump(parse_text(render(formats, sample(since, keys))), None, {})
    assert c.unknown == ()
    expected = {SCALAR_NAMES[key]: 100 + i for i, key in enumerate(keys)}
    for i, name in enumerate(HISTOGRAMS):
        expected |= {f"{HISTOGRAM_NAMES[name]}.{1 << b}": 0 for b in range(32)}
        expected |= {f"{HISTOGRAM_NAMES[name]}.16": 7 + i, f"{HISTOGRAM_NAMES[name]}.2147483648": 1}
    expected |= {"uops._LOAD_FAST.execution_count": 40, "uops._SET_IP.execution_count": 50}
    expected |= {"optimizer.unsupported_opcode.WITH_EXCEPT_START": 2}
    if "uops[%s].specialization.miss : %u" in formats:
        expected["uops._LOAD_FAST.specialization.miss"] = 3
    if "uop[%s].pair_count[%s] : %u" in formats:
        expected["uop_pair._LOAD_FAST._SET_IP"] = 30
    if "error_in_opcode[%s].count : %u" in formats:
        expected["optimizer.error_in_opcode._BINARY_OP"] = 4
    assert c.counters == expected


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_tier2_line_of_a_real_dump_is_named(name: str) -> None:
    """Each scalar and histogram line of a real dump becomes its counter (the tables above), value kept."""
    text = real_dump(name)
    c = from_dump(parse_text(text), NameTables.from_dict(json.loads((DUMPS / name / "names.json").read_text())), {})
    assert c.unknown == ()
    scalars = re.findall(r"(?m)^((?:Optimization|Optimizer|Executors) [^:\[]*): (\d+)$", text)
    buckets = re.findall(r"(?m)^([A-Z][A-Za-z ]*)\[(\d+)\]: (\d+)$", text)
    assert len(scalars) == len(scalar_keys(REAL[name])) and len(buckets) == 3 * 32
    assert all(c.counters[SCALAR_NAMES[key]] == int(n) for key, n in scalars)
    assert all(c.counters[f"{HISTOGRAM_NAMES[key]}.{b}"] == int(n) for key, b, n in buckets)


def test_a_uop_without_a_name_is_reported_not_dropped() -> None:
    """_PyUOpName() of an id without a uop is NULL, which glibc prints as (null)."""
    c = from_dump(parse_text("uops[(null)].execution_count : 3\nuops[_NOP].execution_count : 1\n"), None, {})
    assert c.unknown == ("uops[(null)].execution_count",)
    assert c.counters == {"other.uops[(null)].execution_count": 3, "uops._NOP.execution_count": 1}


def test_keys_the_313_script_would_miss() -> None:
    assert missing_for_313_script(["opcode[NOP].execution_count : 1"]) == []  # no tier-2 section at all
    assert missing_for_313_script(scalar_keys("50369e6c34")) == []
    assert missing_for_313_script(scalar_keys("7cce857622")) == [
        "Executors invalidated",
        "Optimizer remove globals builtins changed",
        "Optimizer remove globals incorrect keys",
    ]
    assert missing_for_313_script(scalar_keys("e561e98058")) == [
        "Optimization trace too short",
        "Optimization low confidence",
        "Executors invalidated",
        "Optimization optimizer attempts",
        "Optimization optimizer successes",
        "Optimization optimizer failure no memory",
        "Optimizer remove globals builtins changed",
        "Optimizer remove globals incorrect keys",
    ]


BASE = Collection(
    {"revision": "v3.13.5", "nfiles": 1},
    {"opcode.LOAD_FAST.execution_count": 100, "family.LOAD_FAST.execution_count": 120, "pair.LOAD_FAST.NOP": 5},
)
HEAD = Collection(
    {"revision": "v3.13.5", "nfiles": 1},
    {
        "opcode.LOAD_FAST.execution_count": 10,
        "family.LOAD_FAST.execution_count": 12,
        "pair.LOAD_FAST.NOP": 5,
        "optimizer.attempts": 4,
        "optimizer.uops_executed": 900,
        "optimizer.histogram.trace_length.16": 2,
        "optimizer.unsupported_opcode.SEND": 1,
        "uops._LOAD_FAST.execution_count": 500,
        "uop_pair._LOAD_FAST._SET_IP": 400,
    },
)


def test_compare_family_view_shows_optimizer_totals_not_single_uops() -> None:
    """Single instructions of either tier are detail: --family keeps families and the optimizer's totals."""
    rows = {r.name: r for r in compare(BASE, HEAD, family_view=True).rows}
    assert set(rows) == {
        "family.LOAD_FAST.execution_count",
        "pair.LOAD_FAST.NOP",
        "optimizer.attempts",
        "optimizer.uops_executed",
        "optimizer.histogram.trace_length.16",
        "optimizer.unsupported_opcode.SEND",
    }
    assert rows["optimizer.uops_executed"].status == "new" and rows["optimizer.uops_executed"].head == 900
    every = {r.name for r in compare(BASE, HEAD).rows}
    assert {"uops._LOAD_FAST.execution_count", "uop_pair._LOAD_FAST._SET_IP"} <= every
    assert "family.LOAD_FAST.execution_count" not in every


def test_summary_says_what_tier_2_did() -> None:
    md = summary.to_markdown(HEAD)
    assert "Tier 2: 4 optimization attempts, 0 traces created, 0 traces executed, 900 uops executed" in md
    assert "Tier 2" not in summary.to_markdown(BASE)
    console = Console(record=True, width=200)
    console.print(summary.to_rich(HEAD))
    assert "Tier 2: 4 optimization attempts" in console.export_text()
