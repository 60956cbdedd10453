"""Regular expressions: precompiled patterns over a fixed text (search, findall, finditer,
sub with a literal and with a Python callback, split, fullmatch).

All patterns are compiled at import time and no replacement *template* (a string with a
backslash) is used, because ``re`` caches compiled templates: that cache would warm up in loop 1
only and make loop 1 differ from the others.
"""

import re

from workloads import lcg

_WORDS = (
    "alpha",
    "beta",
    "gamma",
    "delta",
    "user",
    "admin",
    "error",
    "warning",
    "info",
    "debug",
    "2024-06-07",
    "10.0.0.1",
    "x@example.org",
    "GET",
    "POST",
    "/index.html",
)
_R = lcg(777, 9000)
TEXT = "\n".join(" ".join(_WORDS[_R[i * 6 + j] % len(_WORDS)] for j in range(6)) + " %d" % _R[i] for i in range(1500))
LINES = TEXT.split("\n")

P_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
P_IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
P_MAIL = re.compile(r"[\w.]+@[\w.]+\.\w+")
P_LEVEL = re.compile(r"\b(error|warning|info|debug)\b", re.IGNORECASE)
P_WORD = re.compile(r"[a-z]+")
P_NUM = re.compile(r"\d+$")
P_SPLIT = re.compile(r"[\s/.]+")
P_LINE = re.compile(r"(?P<verb>GET|POST) (?P<path>\S+)")


def _upper(m):
    return m.group(0).upper()


def run(loops):
    result = 0
    for _ in range(loops):
        n = 0
        n += len(P_DATE.findall(TEXT))
        n += len(P_IP.findall(TEXT))
        n += sum(1 for _m in P_MAIL.finditer(TEXT))
        n += len(P_LEVEL.sub(_upper, TEXT))
        n += len(P_WORD.sub("w", TEXT))
        for line in LINES:
            m = P_NUM.search(line)
            if m is not None:
                n += len(m.group())
            m = P_LINE.search(line)
            if m:
                n += len(m.group("verb")) + len(m.group("path"))
            n += len(P_SPLIT.split(line))
            if P_WORD.fullmatch(line[:5]):
                n += 1
        result = n
    return result
