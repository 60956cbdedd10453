"""A workload that makes cyclic garbage: each loop builds 2,000 small reference cycles and drops them, so
the cycle collector runs (a bisect of a gc.* metric: docs/bisect-history-scale-out.md)."""


class Node:
    def __init__(self) -> None:
        self.other = None


def run(loops: int) -> int:
    made = 0
    for _ in range(loops):
        for _ in range(2000):
            a, b = Node(), Node()
            a.other, b.other = b, a
            made += 1
    return made
