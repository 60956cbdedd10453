"""Canary comparison, the pure part: parse dumps, correct, compare, and the ``check`` command.

Nothing here needs a particular interpreter: the host uses these functions through
``pystats_harness.suite.canaries`` and the built interpreter through ``/suite/canaries.py check``
(stdlib only, nothing from ``pystats_harness``).  ``family_counts`` applies the corrections that the
module docstring of ``canary_rules`` explains, as recorded in the table ``expect_table`` writes
(``families``, ``implied``, ``groups``, ``attempt_double_counted``, ``miss_double_counted``, and
``undetermined``: what cannot be counted statically on this revision).
"""

import json
import os
import sys

_FIELDS = ("execution_count", "success", "failure", "miss")


def parse_dump(text):
    """Opcode counters of one dump text (or several concatenated; values are summed).

    Returns ``{opcode key: {"execution_count": n, "success": n, "failure": n, "miss": n}}`` where
    the key is the text between ``opcode[`` and ``]`` (a number in 3.11/3.12, a name in 3.13+).
    Other lines are ignored.
    """
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("opcode[") or ":" not in line:
            continue
        key, _, value = line.rpartition(":")
        key = key.strip()
        close = key.find("]")
        op = key[len("opcode[") : close]
        rest = key[close + 1 :]
        if rest == ".execution_count":
            field = "execution_count"
        elif rest.startswith(".specialization.") and rest[len(".specialization.") :] in _FIELDS:
            field = rest[len(".specialization.") :]
        else:
            continue
        entry = out.setdefault(op, dict.fromkeys(_FIELDS, 0))
        entry[field] += int(value)
    return out


def parse_dump_dir(path):
    """``parse_dump`` over every ``*.txt`` file in ``path``."""
    texts = []
    for fname in sorted(os.listdir(path)):
        if fname.endswith(".txt"):
            with open(os.path.join(path, fname)) as f:
                texts.append(f.read())
    return parse_dump("\n".join(texts))


def _name(key, table):
    key = str(key)
    return table["names"].get(key, key) if key.isdigit() else key


def _group_of(family, table):
    for group, members in table.get("groups", {}).items():
        if family in members:
            return group
    return family


def attempts_counted_twice(table, family):
    """Whether ``family``'s specialization attempts re-dispatch (counted twice): the table's global
    rule, except for the families that specialize in place (``attempt_in_place``, 3.15's RESUME)."""
    return table.get("attempt_double_counted", True) and family not in table.get("attempt_in_place", ())


def family_counts(dump, table):
    """Corrected execution count per family (or group) of one parsed dump.

    ``dump`` is ``parse_dump`` output, or a plain ``{name-or-number: execution_count}`` (then no
    double-count correction is possible and none is made).  Returns ``{family: count}``.
    """
    families = table.get("families", {})
    implied = table.get("implied", {})
    specializable = set(families.values())
    totals = {}

    def add(family, n):
        if n:
            g = _group_of(family, table)
            totals[g] = totals.get(g, 0) + n

    for key, entry in dump.items():
        name = _name(key, table)
        if isinstance(entry, int):
            entry = {"execution_count": entry}
        family = families.get(name, name)
        execs = entry.get("execution_count", 0)
        add(family, execs)
        for other, k in implied.get(name, {}).items():
            add(other, k * execs)
        if name == family:  # the base entry carries the family's specialization counters
            # Only families with specialized forms make attempts; 3.11 FOR_ITER (none) counts
            # every execution as a "failure" just to classify iterators (ceval.c:4336).
            if attempts_counted_twice(table, family) and family in specializable:
                add(family, -(entry.get("success", 0) + entry.get("failure", 0)))
            if table.get("miss_double_counted", False):
                add(family, -entry.get("miss", 0))
    return totals


def _family_events(dump, table):
    """``{family: (attempts, misses)}`` from the base entries' specialization counters."""
    families = table.get("families", {})
    out = {}
    for key, entry in dump.items():
        name = _name(key, table)
        if isinstance(entry, int) or families.get(name, name) != name:
            continue
        out[_group_of(name, table)] = (entry.get("success", 0) + entry.get("failure", 0), entry.get("miss", 0))
    return out


def expected_family_counts(per_iteration_counts, table):
    """``{family or group: n}`` from a ``{opname: n}`` per-iteration table."""
    out = {}
    families = table.get("families", {})
    for name, n in per_iteration_counts.items():
        g = _group_of(families.get(name, name), table)
        out[g] = out.get(g, 0) + n
    return out


def _executions(dump, table):
    out = {}
    for key, entry in dump.items():
        name = _name(key, table)
        out[name] = out.get(name, 0) + (entry if isinstance(entry, int) else entry.get("execution_count", 0))
    return out


def uncountable(dump_n, dump_2n, table):
    """``{family or group: why}``: what the table's undetermined rules leave uncountable here.

    A rule for an instruction matters only if that instruction ran a different number of times in
    the two runs; an undetermined double count (``"misses"``/``"attempts"``) only for the families
    with such events in the difference.
    """
    out = {}
    ex_low, ex_high = _executions(dump_n, table), _executions(dump_2n, table)
    ev_low, ev_high = _family_events(dump_n, table), _family_events(dump_2n, table)
    for rule in table.get("undetermined", []):
        if rule["families"] is None:
            k = 0 if rule["rule"] == "attempts" else 1
            hit = [f for f in set(ev_low) | set(ev_high) if ev_high.get(f, (0, 0))[k] != ev_low.get(f, (0, 0))[k]]
        elif ex_high.get(rule["rule"], 0) != ex_low.get(rule["rule"], 0):
            hit = [_group_of(f, table) for f in rule["families"]]
        else:
            hit = []
        for family in hit:
            out.setdefault(family, "%s: %s" % (rule["rule"], rule["why"]))
    return out


def compare(dump_n, dump_2n, n, expected, table):
    """Mismatches between ``family_counts(dump_2n) - family_counts(dump_n)`` and ``n * expected``.

    ``expected`` is a canary's ``per_iteration`` ``{opname: count}`` (or the
    ``per_iteration_by_number`` form; numbers are mapped with ``table["names"]``).  Returns a list
    of ``{"family", "expected", "observed", "difference", "attempts", "misses"}`` dicts sorted by
    family, empty when every family is exact; ``attempts``/``misses`` are the family's
    specialization attempts and misses in the 2N - N difference (a difference equal to one of them
    points at a double count the table does not describe).  A family that an undetermined rule
    leaves uncountable (``uncountable``) is listed whatever its counts, with ``"cannot_count":
    "cannot count F statically on this revision: why"``; it is no mismatch.  Families absent from
    both sides are not listed.
    """
    low = family_counts(dump_n, table)
    high = family_counts(dump_2n, table)
    want = expected_family_counts({_name(k, table): v for k, v in expected.items()}, table)
    ev_low = _family_events(dump_n, table)
    ev_high = _family_events(dump_2n, table)
    unknown = uncountable(dump_n, dump_2n, table)
    found = []
    for family in sorted(set(low) | set(high) | set(want) | set(unknown)):
        observed = high.get(family, 0) - low.get(family, 0)
        exp = n * want.get(family, 0)
        if observed != exp or family in unknown:
            a_low, m_low = ev_low.get(family, (0, 0))
            a_high, m_high = ev_high.get(family, (0, 0))
            entry = {
                "family": family,
                "expected": exp,
                "observed": observed,
                "difference": observed - exp,
                "attempts": a_high - a_low,
                "misses": m_high - m_low,
            }
            if family in unknown:
                entry["cannot_count"] = "cannot count %s statically on this revision: %s" % (family, unknown[family])
            found.append(entry)
    return found


def check(rest):
    """``canaries.py check TABLE.json NAME N DIR_N DIR_2N`` (``rest``: those five arguments, N already
    checked by ``isdigit``): JSON report on stdout; returns 0 if exact, 1 if not.  ``uncounted``
    lists what cannot be counted statically (a canary the walk refused, families of undetermined
    rules): that is no mismatch."""
    with open(rest[0]) as f:
        table = json.load(f)
    name, n = rest[1], int(rest[2])
    canary = table["canaries"][name]
    if "cannot_count" in canary:
        found = [{"family": "*", "cannot_count": canary["cannot_count"]}]
    else:
        found = compare(parse_dump_dir(rest[3]), parse_dump_dir(rest[4]), n, canary["per_iteration"], table)
    mismatches = [m for m in found if "cannot_count" not in m]
    report = {"canary": name, "n": n, "python": table.get("python"), "exact": not mismatches}
    report.update(mismatches=mismatches, uncounted=[m for m in found if "cannot_count" in m])
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0 if not mismatches else 1
