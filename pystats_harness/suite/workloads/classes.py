"""Class-heavy object-oriented code: inheritance, super(), properties, __slots__, dunder
operators, classmethods, isinstance dispatch and polymorphic method calls."""

import math

from workloads import lcg

_R = lcg(4242, 9000)


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vec(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __eq__(self, other):
        return isinstance(other, Vec) and self.x == other.x and self.y == other.y

    def __hash__(self):
        return hash((self.x, self.y))

    def dot(self, other):
        return self.x * other.x + self.y * other.y

    @property
    def norm(self):
        return math.sqrt(self.dot(self))


class Shape:
    count = 0

    def __init__(self, origin):
        self.origin = origin

    def area(self):
        raise NotImplementedError

    def perimeter(self):
        raise NotImplementedError

    def describe(self):
        return "%s(area=%.3f, perimeter=%.3f)" % (type(self).__name__, self.area(), self.perimeter())

    def moved(self, delta):
        clone = self.copy()
        clone.origin = self.origin + delta
        return clone

    @classmethod
    def make(cls, origin, *args):
        return cls(origin, *args)


class Rect(Shape):
    def __init__(self, origin, w, h):
        super().__init__(origin)
        self.w = w
        self.h = h

    def area(self):
        return self.w * self.h

    def perimeter(self):
        return 2 * (self.w + self.h)

    def copy(self):
        return Rect(self.origin, self.w, self.h)


class Square(Rect):
    def __init__(self, origin, side):
        super().__init__(origin, side, side)

    def copy(self):
        return Square(self.origin, self.w)


class Circle(Shape):
    def __init__(self, origin, r):
        super().__init__(origin)
        self.r = r

    @property
    def diameter(self):
        return 2 * self.r

    def area(self):
        return math.pi * self.r * self.r

    def perimeter(self):
        return math.pi * self.diameter

    def copy(self):
        return Circle(self.origin, self.r)


class Polygon(Shape):
    def __init__(self, origin, points):
        super().__init__(origin)
        self.points = points

    def area(self):
        pts = self.points
        s = 0.0
        for i in range(len(pts)):
            a = pts[i]
            b = pts[(i + 1) % len(pts)]
            s += a.x * b.y - b.x * a.y
        return abs(s) / 2.0

    def perimeter(self):
        pts = self.points
        return sum((pts[i] - pts[i - 1]).norm for i in range(len(pts)))

    def copy(self):
        return Polygon(self.origin, list(self.points))


def build_shapes():
    shapes = []
    for i in range(3000):
        a, b, c = _R[3 * i], _R[3 * i + 1], _R[3 * i + 2]
        origin = Vec(a % 100, b % 100)
        kind = c % 4
        if kind == 0:
            shapes.append(Rect.make(origin, 1 + a % 7, 1 + b % 5))
        elif kind == 1:
            shapes.append(Square.make(origin, 1 + c % 9))
        elif kind == 2:
            shapes.append(Circle.make(origin, 0.5 + (a % 10) / 4))
        else:
            pts = [Vec((a >> k) % 10, (b >> k) % 10) for k in range(5)]
            shapes.append(Polygon.make(origin, pts))
    return shapes


def one_loop():
    shapes = build_shapes()
    total = 0.0
    by_kind = {}
    delta = Vec(1, -1)
    for s in shapes:
        total += s.area() + s.perimeter()
        m = s.moved(delta)
        if m.origin == s.origin + delta:
            total += 1
        by_kind[type(s).__name__] = by_kind.get(type(s).__name__, 0) + 1
        if isinstance(s, Rect) and not isinstance(s, Square):
            total += s.w
        elif isinstance(s, Circle):
            total += s.diameter
    text = "".join(s.describe() for s in shapes[:400])
    return round(total, 6), sorted(by_kind.items()), len(text)


def run(loops):
    result = None
    for _ in range(loops):
        result = one_loop()
    return result
