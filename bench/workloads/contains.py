"""A workload of `in` tests on a str, a tuple and a list (CONTAINS_OP), for a bisect of its
specialization (docs/bisect-history-scale-out.md)."""


def run(loops: int) -> int:
    found = 0
    text, pair, items = "abcdef", (1, 2, 3), [1, 2, 3]
    for _ in range(loops):
        for _ in range(1000):
            found += ("c" in text) + (2 in pair) + (3 in items)
    return found
