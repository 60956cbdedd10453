"""Imported at start-up (site's usercustomize) by every process of a collect on a free-threaded build:
one thread started and joined before anything else runs, so that every process -- pyperf's workers
(the automated path), the manual path, the null benchmark's -- is in the same state when its bracket
opens. On 3.13's free-threaded build, starting a thread immortalizes every object with deferred
reference counting (CPython gh-117783: functions, code, modules, types ...) and each one made after;
increfs and decrefs of an immortal object are not counted, so ``objects.*increfs`` / ``*decrefs``
depend on whether the process has ever started a thread (a loop counting 399,916 interpreter increfs
in a process that never did counts 199,915 in one that did). Nothing is counted here: collection is
off at start-up.
"""

import threading

_thread = threading.Thread(target=lambda: None, name="pystats-harness-thread-state")
_thread.start()
_thread.join()
del _thread
