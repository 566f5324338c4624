"""One build of an expensive, read-only test artefact per pytest run, shared by its xdist workers.

Each pytest-xdist worker runs a session fixture itself: a store that takes 7-10 s to build was
built by both workers of a run on the machine's two cores (issue 47, item 5). Here the first worker
to ask builds it, in a folder of the run's common temporary folder (the workers' ``popen-gw*``
folders' parent), holding a lock the other waits on; the other then reads what was built. Without
workers (``-n 0``) it is built in the test process's own temporary folder, as before.

Only for artefacts no test writes into: a test that writes copies first (``shutil.copy`` of a
small store takes milliseconds), as the fixtures using this say.
"""
from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

#: Written into a build's folder when its build returned: a build that raised leaves none, and the
#: next worker to ask builds again (and fails as the first did, with the same error in its test).
DONE = ".built"


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name`` after ``build(folder)`` ran in it once for the whole run."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    folder = tmp_path_factory.getbasetemp().parent / f"shared-{name}"
    with open(folder.parent / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes
        if not (folder / DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)   # what a failed build left
            folder.mkdir()
            build(folder)
            (folder / DONE).touch()
    return folder
