"""JSON round trip: encode a fixed document, decode it, walk the result (json C accelerators +
the Python-level json driver code, dict/list traversal)."""

import json

from workloads import lcg

_R = lcg(20240607, 6000)


def _record(i):
    a, b, c = _R[3 * i], _R[3 * i + 1], _R[3 * i + 2]
    return {
        "id": i,
        "name": "item-%05d" % a,
        "price": (a % 100000) / 100.0,
        "tags": ["t%d" % (b % 17), "t%d" % (c % 23), "ascii \u00e9\u4e2d"],
        "active": bool(c & 1),
        "parent": None if i % 5 == 0 else i // 2,
        "dims": {"w": b % 1000, "h": c % 1000, "d": (a + b) % 10},
    }


DOC = {"version": 3, "items": [_record(i) for i in range(2000)], "meta": {"source": "suite"}}


def walk(obj):
    if isinstance(obj, dict):
        total = 0
        for key, value in obj.items():
            total += len(key) + walk(value)
        return total
    if isinstance(obj, list):
        total = 0
        for value in obj:
            total += walk(value)
        return total
    if isinstance(obj, str):
        return len(obj)
    return 1


def run(loops):
    result = 0
    for _ in range(loops):
        text = json.dumps(DOC, sort_keys=True)
        back = json.loads(text)
        # (No indent=: the pure-Python encoder json uses for it builds closures that form
        # reference cycles, i.e. garbage only the GC frees.)
        pretty = json.dumps(back["items"][:200], ensure_ascii=False, separators=(",", ":"))
        result = walk(back) + len(text) + len(pretty)
    return result
