"""What the serve tests share beyond fixtures: the splits of the module store, a team's accounts.

Test files import these from here, not from ``conftest``: several ``conftest.py`` files (tests/,
tests/serve/, tests/trees/) share that module name, so ``from conftest import ...`` at run time got
whichever was imported last on the worker (tests/trees' under xdist's file-by-file spread).
"""
from pathlib import Path

RANGES = {"train": "wsj_0001-0002", "heldout": "wsj_0140", "test": "wsj_0170"}

#: A real Werkzeug password hash, cheap to make and to check (about a millisecond, where the default,
#: scrypt, takes 0.1-0.15 s each time, and the job tests made and checked dozens). The server reads
#: the method from the hash string (``check_password_hash``), so accounts hashed this way sign in
#: exactly as ``ranker serve users add`` accounts do; tests/serve/test_users_command.py and
#: test_accounts.py keep the default hash through ``ranker serve users add`` and ``add_user``.
QUICK_HASH = "pbkdf2:sha256:1000"


def write_accounts(path, **roles: str) -> Path:
    """Add accounts ``name=role`` to the users file ``path``, each with the password ``NAME-secret-1``
    hashed with :data:`QUICK_HASH`, written as ``ranker serve users`` writes it (``write_users``)."""
    from werkzeug.security import generate_password_hash

    from ranker.serve.users import User, account_name, read_users, write_users

    users = read_users(path)
    for name, role in roles.items():
        users[name] = User(account_name(name), role, generate_password_hash(f"{name}-secret-1", method=QUICK_HASH))
    write_users(path, users)
    return Path(path)


def team_users(path) -> Path:
    """A users file of a team: annotators ann and bob, adjudicator boss (passwords NAME-secret-1)."""
    return write_accounts(path, ann="annotator", bob="annotator", boss="adjudicator")
