"""The manual path runs a benchmark's script in the state a pyperf worker runs it in. Its code has its constants made as ``python runscript`` makes them on a
free-threaded build (suite/pyperformance_manual.as_a_script_is): compile() interns every string
constant there on 3.13 (its immortalization of constants is off while it runs, gh-118527), a script's
code only those that look like identifiers; which constants are immortal decides which increfs count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pystats_harness.config import load_settings
from pystats_harness.suite import pyperformance_manual as manual

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """
FMT = ">Q"
def outer():
    def inner():
        return ("ab cd", frozenset({"x y", "z w"}), "identifier_like", 5000, 0.01)
    return inner, "0.0675"
"""


def _interned(s: str) -> bool:
    return sys.intern("".join(list(s))) is s  # an equal string made anew interns to s only if s is interned


def _strings(code, out):  # type: ignore[no-untyped-def]
    for c in code.co_consts:
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, (tuple, frozenset)):
            out.extend(x for x in c if isinstance(x, str))
        elif hasattr(c, "co_consts"):
            _strings(c, out)
    return out


def test_the_strings_are_made_anew_and_interned_by_the_build_s_own_rule() -> None:
    compiled = compile(SOURCE, "/bench/bm_x/run_benchmark.py", "exec")
    remade = manual.as_a_script_is(compiled)
    before, after = _strings(compiled, []), _strings(remade, [])
    assert sorted(before) == sorted(after)
    for s in ("ab cd", "x y", "z w", "0.0675", ">Q"):
        assert s in after and not _interned(next(a for a in after if a == s))
    assert _interned(next(a for a in after if a == "identifier_like"))  # the build's rule: a name-like string
    namespace: dict[str, object] = {}
    exec(remade, namespace)
    inner, tax = namespace["outer"]()  # type: ignore[operator]
    assert (inner(), tax, namespace["FMT"]) == (
        ("ab cd", frozenset({"x y", "z w"}), "identifier_like", 5000, 0.01),
        "0.0675",
        ">Q",
    )
    assert remade.co_filename == compiled.co_filename


def _pyperf_site() -> Path | None:
    """A site with pyperf: PYSTATS_SUITE_SITE, else the wheelhouse bootstrap made."""
    given = os.environ.get("PYSTATS_SUITE_SITE") or str(load_settings({}).wheelhouse_dir / "site")
    return Path(given) if (Path(given) / "pyperf").is_dir() else None


WORKER_PARSE = """
import sys
import pyperf
from pystats_harness.suite import pyperformance_manual as manual
DEFAULT = 0.25
def add_cmdline_args(cmd, args):
    cmd.extend(("--thickness", str(args.thickness)))
class Recorder(pyperf.Runner):
    parse_args = manual.parsing_as_a_worker(pyperf.Runner)
runner = Recorder(add_cmdline_args=add_cmdline_args)
runner.argparser.add_argument("--thickness", type=float, default=DEFAULT)
master = pyperf.Runner.parse_args(runner, [])
runner.args = None
parsed = runner.parse_args()
print(master.thickness is DEFAULT, parsed.thickness == DEFAULT, parsed.thickness is DEFAULT, runner.parse_args() is parsed)
"""


def test_the_manual_path_parses_the_options_a_pyperf_worker_parses() -> None:
    """chaos (v3.13.5 free-threaded, measured): its --thickness default is a code constant in the master,
    a float made from the string its add_cmdline_args wrote in the worker, whose decrefs count there only;
    the manual path parses what the worker parses."""
    site = _pyperf_site()
    if site is None:
        pytest.skip("no pyperf site: run scripts/bootstrap.sh (it makes the wheelhouse) or set PYSTATS_SUITE_SITE")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run(
        [sys.executable, "-c", WORKER_PARSE], capture_output=True, text=True, env=env, timeout=60, cwd="/"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "False", "True"]
    # bm_pickle: its options are written when the master starts a worker, after the script set --protocol;
    # at parse time they do not parse (--protocol None): the master's own parse stands, quietly
    pickle_like = WORKER_PARSE.replace("str(args.thickness)", '"None"').replace("type=float", "type=int")
    out = subprocess.run(
        [sys.executable, "-c", pickle_like], capture_output=True, text=True, env=env, timeout=60, cwd="/"
    )
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert out.stdout.split() == ["True", "True", "True", "True"]
