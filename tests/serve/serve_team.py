"""What the serve tests share beyond fixtures: the splits of the module store, a team's accounts.

Test files import these from here, not from ``conftest``: several ``conftest.py`` files (tests/,
tests/serve/, tests/trees/) share that module name, so ``from conftest import ...`` at run time got
whichever was imported last on the worker (tests/trees' under xdist's file-by-file spread).
"""
from pathlib import Path

RANGES = {"train": "wsj_0001-0002", "heldout": "wsj_0140", "test": "wsj_0170"}


def team_users(path) -> Path:
    """A users file of a team: annotators ann and bob, adjudicator boss (passwords NAME-secret-1)."""
    from ranker.serve.users import add_user

    for name in ("ann", "bob"):
        add_user(path, name, f"{name}-secret-1")
    add_user(path, "boss", "boss-secret-1", role="adjudicator")
    return Path(path)
