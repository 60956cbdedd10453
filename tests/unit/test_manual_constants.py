"""The manual path's run script code has its constants made as ``python runscript`` makes them on a
free-threaded build (suite/pyperformance_manual.as_a_script_is): compile() interns every string
constant there on 3.13 (its immortalization of constants is off while it runs, gh-118527), a script's
code only those that look like identifiers; which constants are immortal decides which increfs count."""

from __future__ import annotations

import sys

from pystats_harness.suite import pyperformance_manual as manual

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
