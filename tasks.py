"""pystats-harness tasks. Each task is declared once, with its options and their help, next to the
function it calls in pystats_harness/cli/; pystats_harness/cli/collection.py lists them
(``python3 -m invoke --help TASK`` shows them, docs/index.md's option tables are generated from them).

Every setting lives under ``pystats`` (pystats_harness/config.py DEFAULTS); override it in invoke.yaml or
with INVOKE_PYSTATS_<KEY>.
"""

from __future__ import annotations

from pystats_harness.cli.collection import ns

__all__ = ["ns"]
