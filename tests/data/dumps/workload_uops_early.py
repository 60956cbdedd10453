import sys
def g(n):
    t = 0
    for i in range(n):
        t += i
    return t
sys._stats_on()
g(40000)
sys._stats_off()
