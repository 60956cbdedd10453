"""Generators and comprehensions: generator pipelines, ``yield from``, generator expressions,
list/dict/set comprehensions (of ints), ``zip``/``enumerate``/``sum``/``sorted`` with keys."""

from workloads import lcg

DATA = lcg(99, 40000, 10000)


def numbers(seq):
    for x in seq:
        yield x


def evens(it):
    for x in it:
        if x % 2 == 0:
            yield x


def scaled(it, k):
    for x in it:
        yield x * k


def chunks(seq, size):
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def flatten(chunked):
    for chunk in chunked:
        yield from chunk


def windows(it, n):
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) == n:
            yield tuple(buf)
            del buf[0]


def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def one_loop():
    total = sum(scaled(evens(numbers(DATA)), 3))
    total += sum(1 for _ in flatten(chunks(DATA, 7)))
    squares = [x * x for x in DATA if x % 3]
    index = {x: i for i, x in enumerate(DATA[:1000])}
    uniq = {x % 97 for x in DATA}
    total += len(squares) + len(index) + sum(uniq)
    total += sum(a * b for a, b in zip(DATA, reversed(DATA)))
    total += max(w[0] - w[2] for w in windows(iter(DATA[:2000]), 3))
    f = fib()
    total += sum(next(f) % 1000 for _ in range(200))
    total += sorted(DATA[:500], key=lambda v: (v % 10, -v))[0]
    pairs = [(i, j) for i in range(30) for j in range(i)]
    total += len(pairs) + sum(i - j for i, j in pairs)
    return total


def run(loops):
    result = 0
    for _ in range(loops):
        result = one_loop()
    return result
