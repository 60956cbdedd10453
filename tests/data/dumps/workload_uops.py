import sys
def f(n):
    t = 0
    for i in range(n):
        t += i * 2
        if i % 7 == 0:
            t -= 1
    return t
class P:
    def __init__(s, x): s.x = x
sys._stats_on()
for _ in range(30):
    f(2000)
    sum(P(i).x for i in range(300))
sys._stats_off()
