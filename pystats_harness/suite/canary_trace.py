"""The trace of a canary's loop, where the build traces it (stdlib only; runs inside the container).

3.13's ``_opcode.get_executor(code, offset)`` returns the executor that replaced the loop's
``JUMP_BACKWARD`` with an ``ENTER_EXECUTOR``; it is indexable as ``(name, oparg, target, operand)``.
A loop trace ends in ``_JUMP_TO_TOP``, which jumps back past ``_START_EXECUTOR``: each iteration runs
the uops between them once, ``_JUMP_TO_TOP`` included (the exit stubs after it run only on an exit).
``report`` prints them on one line, ``TRACE {"offset": …, "uops": [...]}``, after the bracket, so
reading them is not counted; a build without executors (or a loop that was not traced) prints nothing.
"""

import dis
import json

PREFIX = "TRACE "


def loop_uops(func):
    """{"offset", "uops"} of the first loop trace of ``func``, or None."""
    try:
        import _opcode

        get = _opcode.get_executor
    except (ImportError, AttributeError):
        return None
    code = func.__code__
    for ins in dis.get_instructions(code):
        if ins.opname != "JUMP_BACKWARD":
            continue
        try:
            executor = get(code, ins.offset)
        except (ValueError, RuntimeError):  # no executor at that offset
            continue
        names = [executor[i][0] for i in range(len(executor))]
        if "_JUMP_TO_TOP" in names:
            start = 1 if names[0] == "_START_EXECUTOR" else 0
            return {"offset": ins.offset, "uops": names[start : names.index("_JUMP_TO_TOP") + 1]}
    return None


def report(func):
    found = loop_uops(func)
    if found is not None:
        print(PREFIX + json.dumps(found, sort_keys=True))


def parse(stdout):
    """The ``report`` line of a run's stdout (None: none)."""
    for line in stdout.splitlines():
        if line.startswith(PREFIX):
            return json.loads(line[len(PREFIX) :])
    return None
