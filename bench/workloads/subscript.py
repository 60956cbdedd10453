"""A workload of subscripts on a list, a tuple, a dict and a str (`x[i]`), for a bisect within 3.14's
history: gh-100239 folded BINARY_SUBSCR into BINARY_OP (docs/cpython-3.14.md)."""


def run(loops: int) -> int:
    total = 0
    items, pair, table, text = [1, 2, 3], (4, 5), {"k": 6}, "abc"
    for _ in range(loops):
        for i in range(1000):
            total += items[i % 3] + pair[i & 1] + table["k"] + len(text[i % 3])
    return total
