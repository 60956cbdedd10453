"""Small workload for golden pystats dumps: attributes, calls, generators, subscripts, compares."""
import sys


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Box:
    def __init__(self, w):
        self.w = w

    @property
    def area(self):
        return self.w * self.w

    def grow(self, by=1):
        self.w += by
        return self


class Sub(Box):
    def grow(self, by=1):
        return super().grow(by)


def add(a, b=2):
    return a + b


def gen(n):
    for i in range(n):
        yield i


def work(n):
    total = 0
    d = {"a": 1, "b": 2.5}
    lst = [1, 2, 3]
    for i in range(n):
        p = Point(i, i + 1)
        b = Sub(i)
        total += p.x + p.y + b.grow().area + add(i) + d["a"] + lst[1] + len(lst)
        total += sum(gen(3)) + int(d["b"] * 2.0)
        s = str(i)
        if s == "5" or i < 3:
            total -= 1
        a, c = (i, s)
        lst[0] = i
        total += isinstance(b, Box) + (s in d) + abs(-i)
    return total


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if hasattr(sys, "_stats_on"):
        sys._stats_on()
        work(n)
        if "--dump" in sys.argv:
            sys._stats_dump()
            work(n)
        sys._stats_off()
    else:
        work(n)
