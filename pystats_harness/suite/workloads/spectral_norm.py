"""Spectral norm of an infinite matrix (nested loops, float division, function calls, zip)."""

N = 64
ITERATIONS = 5


def eval_a(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)


def eval_times_u(func, u):
    return [func((i, u)) for i in range(len(u))]


def part_a_times_u(i_u):
    i, u = i_u
    partial_sum = 0.0
    for j, u_j in enumerate(u):
        partial_sum += eval_a(i, j) * u_j
    return partial_sum


def part_at_times_u(i_u):
    i, u = i_u
    partial_sum = 0.0
    for j, u_j in enumerate(u):
        partial_sum += eval_a(j, i) * u_j
    return partial_sum


def eval_ata_times_u(u):
    return eval_times_u(part_at_times_u, eval_times_u(part_a_times_u, u))


def spectral_norm(n):
    u = [1.0] * n
    v = u
    for _ in range(ITERATIONS):
        v = eval_ata_times_u(u)
        u = eval_ata_times_u(v)
    vbv = vv = 0.0
    for ue, ve in zip(u, v):
        vbv += ue * ve
        vv += ve * ve
    return (vbv / vv) ** 0.5


def run(loops):
    result = 0.0
    for _ in range(loops):
        result = spectral_norm(N)
    return round(result, 12)
