"""Name tables for a build: opcode number -> name, families, failure-kind and call-kind names.

3.11/3.12 dumps print opcode *numbers*; the mapping differs between revisions, so it must come from
the build's own interpreter (``CAPTURE_SCRIPT``) and sources (``source_defines``), captured at build
time and stored with the artifact as ``names.json``.  3.13+ dumps print names; the tables are still
used for families and failure-kind names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.suite.canary_expect import families_from_instructions

NAMES_SCHEMA = "pystats-harness/names/1"

# Run inside the freshly built interpreter: ``python3 -c CAPTURE_SCRIPT``; prints one JSON document.
# Written for 3.11+ (no newer syntax); every lookup is guarded; it ends with os._exit(0) so that a
# 3.11/3.12 stats build does not write its exit dump into /tmp/py_stats (or onto stderr).
CAPTURE_SCRIPT = r"""
import json, os, sys
out = {"schema": "pystats-harness/names-capture/1", "errors": [], "opname": None, "opnames": None,
       "opnames_source": None, "families": None, "specialized_instructions": None, "specialized_opmap": None,
       "python_version": "%d.%d.%d%s" % (sys.version_info[0], sys.version_info[1], sys.version_info[2],
           "" if sys.version_info[3] == "final" else sys.version_info[3][0] + str(sys.version_info[4])),
       "version": sys.version, "hexversion": sys.hexversion,
       "stats_functions": [n for n in ("_stats_on", "_stats_off", "_stats_clear", "_stats_dump", "getdxp")
                           if hasattr(sys, n)]}
def attempt(what, fn):
    try:
        return fn()
    except Exception as exc:
        out["errors"].append("%s: %s: %s" % (what, type(exc).__name__, exc))
        return None
def first(objs, attr):
    for obj in objs:
        if obj is not None and hasattr(obj, attr):
            return getattr(obj, attr)
    return None
def capture():
    opcode = attempt("import opcode", lambda: __import__("opcode"))
    dis = attempt("import dis", lambda: __import__("dis"))
    meta = attempt("import _opcode_metadata", lambda: __import__("_opcode_metadata")) if sys.version_info >= (3, 13) else None
    opname = out["opname"] = attempt("opname", lambda: [str(n) for n in opcode.opname])
    spec_map = first((opcode, meta, dis), "_specialized_opmap")
    spec_list = first((opcode, meta, dis), "_specialized_instructions")
    families = first((opcode, meta, dis), "_specializations")
    if spec_map is not None:
        spec_map = out["specialized_opmap"] = dict((str(k), int(v)) for k, v in spec_map.items())
        if spec_list is None:
            spec_list = list(spec_map)
    if spec_list is not None:
        spec_list = out["specialized_instructions"] = [str(n) for n in spec_list]
    if families is not None:
        out["families"] = dict((str(k), [str(n) for n in v]) for k, v in families.items())
    fill = None
    if opname is not None and spec_list is not None:
        fill = list(opname)
        empty = [i for i, n in enumerate(fill) if n.startswith("<") and i > 0]
        for slot, name in zip(empty, spec_list):
            fill[slot] = name
    all_opname = first((dis,), "_all_opname")
    all_opname = None if all_opname is None else [str(n) for n in all_opname]
    table, source = None, None
    if spec_map is not None and opname is not None:
        table, source = list(opname), "opcode._specialized_opmap"
        for name, num in spec_map.items():
            while len(table) <= num:
                table.append("<%d>" % len(table))
            table[num] = name
    elif all_opname is not None:
        table, source = all_opname, "dis._all_opname"
    elif fill is not None:
        table, source = fill, "opcode.opname filled with _specialized_instructions"
    elif opname is not None:
        table, source = list(opname), "opcode.opname (no specialized instructions found)"
    out["opnames"], out["opnames_source"] = table, source
    out["fill_agrees"] = None if fill is None or table is None else fill[:256] == table[:256]
    out["dis_all_opname_agrees"] = None if all_opname is None or table is None else all_opname[:256] == table[:256]
attempt("capture", capture)
sys.stdout.write(json.dumps(out, sort_keys=True))
sys.stdout.write("\n")
sys.stdout.flush()
os._exit(0)
"""

_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(SPEC_FAIL|EVAL_CALL)_([A-Za-z0-9_]+)[ \t]+([0-9]+)\b", re.M)

#: Paths (relative to the source root) whose texts the lead passes to :func:`source_defines`.
DEFINE_SOURCES: tuple[str, ...] = (
    "Python/specialize.c",
    "Include/pystats.h",
    "Include/cpython/pystats.h",
)


def source_defines(files: Mapping[str, str]) -> dict[str, list[list[Any]]]:
    """``#define SPEC_FAIL_*`` and ``#define EVAL_CALL_*`` from the given source texts, in file order.

    ``files`` maps a path (see ``DEFINE_SOURCES``; missing ones are fine) to its text.  Returns
    ``{"spec_fail": [[NAME, value], ...], "eval_call": [[NAME, value], ...]}``, names without prefix.
    """
    spec_fail: list[list[Any]] = []
    eval_call: list[list[Any]] = []
    for path in sorted(files, key=lambda p: (not p.endswith("specialize.c"), p)):
        for prefix, name, value in _DEFINE_RE.findall(files[path]):
            target = spec_fail if prefix == "SPEC_FAIL" else eval_call
            if [name, int(value)] not in target:
                target.append([name, int(value)])
    return {"spec_fail": spec_fail, "eval_call": eval_call}


def _fail_prefixes(family: str) -> tuple[str, ...]:
    """Define prefixes that name a family's own failure kinds (as summarize_stats.py 3.11-3.13)."""
    if family == "LOAD_SUPER_ATTR":
        mapped = "SUPER"
    elif family.endswith("ATTR"):
        mapped = "ATTR"
    elif family in ("FOR_ITER", "SEND"):
        mapped = "ITER"
    elif family.endswith("SUBSCR"):
        mapped = "SUBSCR"
    elif family.startswith("PRECALL"):
        mapped = "CALL"
    else:
        mapped = family
    return (mapped, family) if mapped != family else (family,)


def _derived_families(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """Families of an interpreter without ``opcode._specializations`` (main before Mar 2022),
    from its flat ``_specialized_instructions`` (as the canaries derive them in the container)."""
    specialized = doc.get("specialized_instructions") or []
    bases = [n for n in doc["opnames"] if not n.startswith("<") and n not in specialized]
    return families_from_instructions(specialized, bases)


@dataclass(frozen=True)
class NameTables:
    """Everything needed to name the counters of one build."""

    python_version: str
    opnames: tuple[str, ...] = ()
    families: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    spec_fail: tuple[tuple[str, int], ...] = ()
    eval_call: tuple[tuple[str, int], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    _deopt: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        deopt = {member: base for base, members in self.families.items() for member in members}
        object.__setattr__(self, "_deopt", deopt)

    @classmethod
    def from_capture(cls, capture: str | Mapping[str, Any], defines: Mapping[str, Any]) -> NameTables:
        """Build from ``CAPTURE_SCRIPT``'s stdout and :func:`source_defines`' result."""
        doc = json.loads(capture) if isinstance(capture, str) else dict(capture)
        if not doc.get("opnames"):
            raise ConfigError(
                f"names capture has no opcode table (errors: {doc.get('errors')}); "
                "run CAPTURE_SCRIPT with the build's own interpreter"
            )
        extra = {
            k: doc.get(k)
            for k in ("opnames_source", "fill_agrees", "dis_all_opname_agrees", "stats_functions", "version", "errors")
        }
        return cls.from_dict(
            {
                "schema": NAMES_SCHEMA,
                "python_version": doc.get("python_version", "?"),
                "opnames": doc["opnames"],
                "families": doc.get("families") or _derived_families(doc),
                "spec_fail": defines.get("spec_fail", []),
                "eval_call": defines.get("eval_call", []),
                "extra": extra,
            }
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NameTables:
        if data.get("schema") != NAMES_SCHEMA:
            raise ConfigError(f"not a names.json of schema {NAMES_SCHEMA!r} (got {data.get('schema')!r})")
        return cls(
            python_version=str(data["python_version"]),
            opnames=tuple(data["opnames"]),
            families={k: tuple(v) for k, v in data["families"].items()},
            spec_fail=tuple((str(n), int(v)) for n, v in data["spec_fail"]),
            eval_call=tuple((str(n), int(v)) for n, v in data["eval_call"]),
            extra=dict(data.get("extra") or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": NAMES_SCHEMA,
            "python_version": self.python_version,
            "opnames": list(self.opnames),
            "families": {k: list(v) for k, v in self.families.items()},
            "spec_fail": [list(d) for d in self.spec_fail],
            "eval_call": [list(d) for d in self.eval_call],
            "extra": dict(self.extra),
        }

    def opname(self, num: int | str) -> str:
        """Name of opcode ``num``; a name (3.13+ dumps) is returned unchanged; unknown -> ``<num>``."""
        if isinstance(num, str):
            if not num.isdigit():
                return num
            num = int(num)
        if 0 <= num < len(self.opnames) and not self.opnames[num].startswith("<"):
            return self.opnames[num]
        return f"<{num}>"

    def family(self, name: str) -> str:
        """The base instruction of ``name`` (itself if it is a base or unknown)."""
        return self._deopt.get(name, name)

    def generic_fail_max(self) -> int:
        """Largest generic failure kind: the leading 0,1,2,... run of SPEC_FAIL defines in file order."""
        top = -1
        for _, value in self.spec_fail:
            if value != top + 1:
                break
            top = value
        return top

    def fail_prefixes(self, name: str) -> tuple[str, ...]:
        """The ``SPEC_FAIL_`` define prefixes naming the failure kinds of ``name``'s family, in the order tried."""
        return _fail_prefixes(self.family(name))

    def failure_kind(self, kind: int | str, family: str) -> str:
        """Lower-case name of failure kind ``kind`` for ``family`` (``kind_<n>`` if no define fits)."""
        if isinstance(kind, str):
            if not kind.isdigit():
                return kind
            kind = int(kind)
        names = [name for name, value in self.spec_fail if value == kind]
        generic_max = self.generic_fail_max()
        generic = {n.lower() for n, v in self.spec_fail[: generic_max + 1]}
        if kind <= generic_max and names:
            return names[0].lower()
        for prefix in self.fail_prefixes(family):
            for name in names:
                if name.startswith(prefix + "_"):
                    text = name[len(prefix) + 1 :].lower()
                    return f"{text}_{kind}" if text in generic else text
        return f"kind_{kind}"

    def eval_call_kind(self, index: int | str) -> str:
        for name, value in self.eval_call:
            if value == int(index) and name != "KINDS":
                return name.lower()
        return f"kind_{index}"
