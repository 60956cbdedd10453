"""Fannkuch-redux: permutations by index rotation and prefix reversal (list slicing, while loops)."""

N = 7
REPEAT = 3


def fannkuch(n):
    count = list(range(1, n + 1))
    max_flips = 0
    checksum = 0
    sign = 1
    perm1 = list(range(n))
    m = n - 1
    r = n
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        perm = perm1[:]
        flips = 0
        k = perm[0]
        while k:
            perm[: k + 1] = perm[k::-1]
            flips += 1
            k = perm[0]
        if flips > max_flips:
            max_flips = flips
        checksum += sign * flips
        sign = -sign
        while True:
            if r == n:
                return checksum, max_flips
            perm0 = perm1[0]
            perm1[:r] = perm1[1 : r + 1]
            perm1[r] = perm0
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1


def run(loops):
    result = None
    for _ in range(loops):
        for _ in range(REPEAT):
            result = fannkuch(N)
    return result
