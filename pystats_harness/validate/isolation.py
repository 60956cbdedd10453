"""Isolation's runs: which workloads run at once (at least two different ones: partners from the suite
are added when fewer were chosen), each of them alone, one at a time, and then all of them at once.

Both run after every other run of the validation has finished, so "alone" means alone: nothing else
of this validation runs beside a reference run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import PathRun, Shape, run_manual
from pystats_harness.measure.suiteconfig import SuiteConfig

#: at most this many workloads run at once (the first ones chosen)
AT_ONCE = 4

Outcome = PathRun | RunFailed


@dataclass(frozen=True)
class IsolationPlan:
    """The workloads that run at once (workload -> loops), in order; ``partners`` were added from the
    suite because fewer than two different workloads were chosen."""

    workloads: dict[str, int]
    partners: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``nbody + richards (partner)``"""
        return " + ".join(f"{w} (partner)" if w in self.partners else w for w in self.workloads)


def plan_isolation(chosen: Mapping[str, int], suite: SuiteConfig) -> IsolationPlan:
    """The first :data:`AT_ONCE` chosen workloads; when fewer than two, the next ones in
    configs/suite.toml order after the first chosen (wrapping around) as partners."""
    at_once = dict(list(chosen.items())[:AT_ONCE])
    order = list(suite.workloads)
    first = next(iter(at_once), None)
    start = order.index(first) + 1 if first in order else 0
    candidates = [w for w in order[start:] + order[:start] if w not in at_once]
    partners = tuple(candidates[: max(0, 2 - len(at_once))])
    if len(at_once) + len(partners) < 2:
        raise ConfigError(
            f"isolation needs two different workloads at once, but configs/suite.toml has only {', '.join(order)}; "
            "add a [workloads.<name>] table"
        )
    return IsolationPlan({**at_once, **{p: suite.workloads[p] for p in partners}}, partners)


def _manual(
    ctx: Context, entry: CacheEntry, suite: SuiteConfig, tick: Callable[[], None], item: tuple[str, int]
) -> Outcome:
    try:
        return run_manual(ctx, entry, item[0], Shape(item[1], suite.values, suite.warmups))
    except RunFailed as exc:
        return exc
    finally:
        tick()


def run_alone(
    ctx: Context, entry: CacheEntry, plan: IsolationPlan, suite: SuiteConfig, tick: Callable[[], None]
) -> dict[str, Outcome]:
    """Each workload of the plan by itself, one after the other: the references."""
    return {w: _manual(ctx, entry, suite, tick, (w, loops)) for w, loops in plan.workloads.items()}


def run_at_once(
    ctx: Context, entry: CacheEntry, plan: IsolationPlan, suite: SuiteConfig, tick: Callable[[], None]
) -> dict[str, Outcome]:
    """Every workload of the plan started together, each in its own container."""
    with ThreadPoolExecutor(max_workers=len(plan.workloads)) as pool:
        got = pool.map(partial(_manual, ctx, entry, suite, tick), plan.workloads.items())
        return dict(zip(plan.workloads, got, strict=True))
