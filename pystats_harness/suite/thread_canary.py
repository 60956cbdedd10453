"""Threaded canaries: T threads each run a canary kernel K times, started and joined inside the bracket.

Why.  Up to 3.13 every pystats counter is a plain ``++`` of one global struct.  The GIL serializes
those increments; on a free-threaded build (``--disable-gil``) two threads that count at once lose
updates.  Builds that keep stats per thread and merge them (3.15's ``main``) can merge wrongly (a
counter assigned where it should be added).  A threaded canary catches both: its counts are known.

One process (``one KERNEL T K``)::

    (stats off)  T "done" locks; a hold lock
    _stats_on()
    start T threads (each waits at a gate until all are started, so that they run at once);
    thread i runs kernels.KERNEL(K), then
        even i: returns and its thread exits (joined: handle.join(), or the thread's sentinel lock)
        odd i:  releases its done lock and blocks on the hold lock: alive when the stats are dumped
    join the even threads; acquire the odd threads' done locks; sleep SETTLE seconds (the odd
    threads reach the hold lock, a call whose instructions must be counted)
    _stats_off()
    exit                                  # the interpreter dumps; the odd threads are still alive

Everything the main thread runs inside the bracket is the same sequence of calls whatever the
threads' timing (threads are started and joined with ``_thread``'s C functions, not ``threading``,
whose Python code waits in loops that depend on timing).  So for every opcode family F, with the
kernel's per-iteration table from ``dis`` (``canaries.per_iteration``)::

    counts(T, 2N) - counts(T, N)  ==  T * N * per_iteration[F]          (exact, under the GIL)

and ``counts(T, K) - counts(T, 0)`` is what T threads counted of their ``T * K * per_iteration``
executions (``counts(T, 0)``: what starting and joining T threads costs on its own; on a build whose
counters lose updates, their ratio is the share that survived).  Pair and call counters are linear
in T as well (checked on the host: ``D(T) == T * D(1)``); object, GC and specialization counters are
not (freelists, GC thresholds and adaptive counters are shared), and are not compared.

Without ``sys._stats_on`` (an unpatched 3.11) the dump covers the whole process: the differences
still cancel everything else.

Commands (run by the built interpreter; ``/suite`` may be read-only)::

    python3 -B /suite/thread_canary.py one KERNEL T K
    python3 -B /suite/thread_canary.py sweep KERNEL N REPEATS T1,T2,...
        runs ``one`` for every repeat r, T and K in (0, N, 2N) as a child process, one at a time,
        and renames each child's dump in /tmp/py_stats to ``threads-<KERNEL>-T<T>-K<K>-r<r>.txt``;
        prints one JSON line per child (its label and what it reported).
"""

import json
import os
import subprocess
import sys
import time

if __package__:
    from . import canaries
else:
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)
    import canaries

STATS_DIR = "/tmp/py_stats"
WARM_UP_CALLS = 64
WARM_UP_K = 64
SETTLE = 0.05
"""Seconds the main thread waits, after the alive threads released their done locks, before it turns
stats off: their last instructions (the call that blocks on the hold lock) take microseconds."""


def label(kernel, threads, k, repeat):
    return "threads-%s-T%d-K%d-r%d" % (kernel, threads, k, repeat)


def parse_label(name):
    """``threads-arith-T4-K2000-r1.txt`` -> ``("arith", 4, 2000, 1)``, or None for another file."""
    stem = name[:-4] if name.endswith(".txt") else name
    parts = stem.split("-")
    if len(parts) != 5 or parts[0] != "threads":
        return None
    try:
        return parts[1], int(parts[2][1:]), int(parts[3][1:]), int(parts[4][1:])
    except ValueError:
        return None


def _joiner():
    """(start, how): ``start(function) -> join`` with a join that returns once the thread's Python
    code has finished, in C (no timing-dependent Python code), or None where no such join exists."""
    import _thread

    if hasattr(_thread, "start_joinable_thread"):  # 3.13+

        def start(function):
            return _thread.start_joinable_thread(function).join

        return start, "start_joinable_thread"
    if hasattr(_thread, "_set_sentinel"):  # up to 3.12: a lock released when the thread state is gone

        def start(function):
            ready, box = _thread.allocate_lock(), []
            ready.acquire()
            _thread.start_new_thread(_sentinel_then, (function, box, ready))
            ready.acquire()
            return box[0].acquire

        return start, "_set_sentinel"
    return None, "no C-level join in _thread"


def _sentinel_then(function, box, ready):
    import _thread

    sentinel = _thread._set_sentinel()  # released when this thread's state is deleted ...
    sentinel.acquire()  # ... so the thread holds it (as threading does): the join waits for that
    box.append(sentinel)
    ready.release()
    function()


def _exiting(gate, kernel, k, finished):
    gate.acquire()  # every thread waits here until all are started, then they run at once
    gate.release()
    kernel(k)
    finished.append(1)  # what the main thread checks after its joins: each thread had finished


def _alive(gate, kernel, k, done, hold):
    gate.acquire()
    gate.release()
    kernel(k)
    done.release()
    hold.acquire()


def _warm_up(kernel, start):
    """Before the bracket: every function the threads run, run often enough (main thread and one
    started thread) that quickening and specialization are over, so that no thread's counts depend on
    when another specialized the code they share."""
    import _thread
    import functools

    gate = _thread.allocate_lock()
    for _ in range(WARM_UP_CALLS):
        done, hold = _thread.allocate_lock(), _thread.allocate_lock()
        done.acquire()
        _alive(gate, kernel, WARM_UP_K, done, hold)
        start(functools.partial(_exiting, gate, kernel, WARM_UP_K, []))()


def one(kernel_name, threads, k):
    """One bracket around ``threads`` threads of kernel ``kernel_name``(``k``); a dict of what ran."""
    import _thread
    import functools

    start, how = _joiner()
    if start is None:
        return {"cannot_run": "cannot join threads deterministically on this revision: " + how}
    kernel = canaries.KERNELS[kernel_name]
    on, off = getattr(sys, "_stats_on", None), getattr(sys, "_stats_off", None)
    if on is None or off is None:
        on = off = lambda: None
    gate, hold = _thread.allocate_lock(), _thread.allocate_lock()
    hold.acquire()
    done = [_thread.allocate_lock() for _ in range(threads - exited(threads))]
    for lock in done:
        lock.acquire()
    finished = []
    exiting = [functools.partial(_exiting, gate, kernel, k, finished) for _ in range(exited(threads))]
    alive = [(_alive, (gate, kernel, k, lock, hold)) for lock in done]
    sleep = time.sleep
    _warm_up(kernel, start)
    gate.acquire()
    on()
    joins = [start(f) for f in exiting]
    for f, args in alive:
        _thread.start_new_thread(f, args)
    gate.release()
    for join in joins:
        join()
    for lock in done:
        lock.acquire()
    joined = len(finished)
    sleep(SETTLE)
    off()
    if joined != len(exiting):  # a join returned before its thread finished: the bracket ended too early
        return {
            "cannot_run": "%d of %d joined threads were still running (%s)" % (len(exiting) - joined, len(exiting), how)
        }
    return {"threads": threads, "k": k, "exited": len(exiting), "alive": len(alive), "join": how}


def exited(threads):
    """How many of ``threads`` exit (and are joined) before the bracket ends: half, rounded up; the rest
    are still alive at the dump."""
    return (threads + 1) // 2


def sweep(kernel_name, n, repeats, thread_counts):
    """Every (repeat, T, K in 0/N/2N) as a child process; yields one JSON-able dict per child."""
    os.makedirs(STATS_DIR, exist_ok=True)
    for r in range(repeats):
        for t in thread_counts:
            for k in (0, n, 2 * n):
                before = set(os.listdir(STATS_DIR))
                cmd = [sys.executable, "-B", os.path.abspath(__file__), "one", kernel_name, str(t), str(k)]
                child = subprocess.run(cmd, capture_output=True, text=True)
                new = sorted(set(os.listdir(STATS_DIR)) - before)
                name = label(kernel_name, t, k, r)
                row = {"label": name, "exit": child.returncode, "dumps": len(new)}
                if child.returncode == 0 and child.stdout.strip():
                    row.update(json.loads(child.stdout.strip().splitlines()[-1]))
                else:
                    row["stderr"] = child.stderr[-600:]
                if len(new) == 1:
                    os.rename(os.path.join(STATS_DIR, new[0]), os.path.join(STATS_DIR, name + ".txt"))
                yield row


def main(argv=None):
    sys.dont_write_bytecode = True
    argv = sys.argv[1:] if argv is None else argv
    if (
        argv[:1] == ["one"]
        and len(argv) == 4
        and argv[1] in canaries.KERNELS
        and argv[2].isdigit()
        and argv[3].isdigit()
    ):
        print(json.dumps(one(argv[1], int(argv[2]), int(argv[3]))))
        return 0
    if argv[:1] == ["sweep"] and len(argv) == 5 and argv[1] in canaries.KERNELS and argv[2].isdigit():
        counts = [int(t) for t in argv[4].split(",") if t.isdigit() and int(t) > 0]
        if argv[3].isdigit() and counts:
            for row in sweep(argv[1], int(argv[2]), int(argv[3]), counts):
                print(json.dumps(row), flush=True)
            return 0
    print(__doc__.split("Commands")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
