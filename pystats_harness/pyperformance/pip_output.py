"""What pip said when it failed: the one line a skipped site reports (pure)."""

from __future__ import annotations

import re

#: pip's own framing around a failed build: never the line that says why.
_PIP_NOISE = (
    "subprocess-exited-with-error",
    "note: ",
    "hint: ",
    "failed building wheel",
    "could not build wheels",
    "failed to build",
    "[end of output]",
    "error: metadata-generation-failed",
    "error: failed-wheel-build-for-install",
    "failed to build installable wheels",
)


#: A compiler's diagnostic: ``file.c:179:32: error: ...`` (the first one is the cause).
_COMPILER_ERROR = re.compile(r"^\S+:\d+:(\d+:)? (fatal )?error: ")


def failure_line(output: str) -> str:
    """Pure: the line of pip's output that says why it failed: the first compiler error if there is one,
    else the last error line of the build (not pip's framing around it), without box-drawing."""
    lines = [line.strip(" │╰─>×║").strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not line.startswith("WARNING")]
    requested = [line.removeprefix("The user requested ") for line in lines if line.startswith("The user requested ")]
    if requested:  # a resolver conflict (e.g. a build requirement against the development constraints)
        return "conflicting requirements: " + " vs ".join(dict.fromkeys(requested))
    compiler = [line for line in lines if _COMPILER_ERROR.match(line)]
    meaningful = [line for line in lines if not any(noise in line.lower() for noise in _PIP_NOISE)]
    errors = [line for line in meaningful if re.search(r"error|cannot|not found|no such|fatal", line, re.IGNORECASE)]
    chosen = compiler[0] if compiler else (errors or meaningful or lines or ["pip gave no output"])[-1]
    return chosen if len(chosen) <= 200 else chosen[:197] + "..."
