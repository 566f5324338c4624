"""The accounts file of ``ranker serve``: names, roles and salted password hashes, one account a line.

A tab-separated text file (``name``, ``role``, ``hash``) readable by its owner only, written whole
(:func:`ranker.atomicfile.atomic_write`) under a lock (``FILE.lock`` beside it, so that commands
at once lose no account), managed by ``ranker serve users`` and read by the server
(:mod:`.accounts`), which asks every annotator to sign in with it. Hashes are Werkzeug's
``generate_password_hash`` (scrypt, salted): Werkzeug comes with Flask, the ``serve`` extra.
"""
from __future__ import annotations

import os
import unicodedata
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, NamedTuple

from ..errors import RankerError
from .forms import WHO, WHO_RULE

ROLES = ("annotator", "adjudicator")
ANON_PREFIX = "anon-"             # the anonymous sessions' names (no account may take one)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MIN_PASSWORD = 8


class User(NamedTuple):
    """One account of the users file."""

    name: str
    role: str          # one of ROLES
    hash: str          # werkzeug.security password hash (method$salt$hash)

    @property
    def adjudicator(self) -> bool:
        return self.role == "adjudicator"


def default_users_file(store: str | Path) -> Path:
    """Where a store's users file lives unless ``--users`` says: beside it, ``STORE.users``."""
    from ..atomicfile import USERS_SUFFIX   # no output may overwrite it (check_not_store)

    return Path(f"{store}{USERS_SUFFIX}")


def read_users(path: str | Path) -> dict[str, User]:
    """The accounts of a users file (a missing file has none).

    Raises
    ------
    RankerError
        Naming the file and line of a malformed row, an unknown role or a repeated name.
    """
    path = Path(path)
    if not users_file_exists(path):
        return {}
    if path.is_dir():
        raise RankerError(f"{path}: is a folder, not a users file")
    users: dict[str, User] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RankerError(f"{path}: cannot read the users file: {e}") from None
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise RankerError(f"{path}:{no}: expected 3 tab-separated columns (name, role, hash), "
                              f"found {len(cols)}")
        name, role, hashed = cols
        if not WHO.fullmatch(name) or name.startswith(ANON_PREFIX):
            raise RankerError(f"{path}:{no}: bad account name {name[:40]!r}")
        if role not in ROLES:
            raise RankerError(f"{path}:{no}: role {role[:20]!r} is not one of {', '.join(ROLES)}")
        if "$" not in hashed:
            raise RankerError(f"{path}:{no}: the third column is not a password hash")
        if name in users:
            raise RankerError(f"{path}:{no}: account {name!r} is listed twice")
        users[name] = User(name, role, hashed)
    return users


def users_file_exists(path: Path) -> bool:
    """Whether the users file is there: a missing one (or a link to none) holds no account, one that
    cannot be reached (a symbolic-link loop, a folder without permission) is an error."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as e:
        raise RankerError(f"{path}: cannot read the users file ({e.strerror or e})") from None
    return True


def write_users(path: str | Path, users: dict[str, User]) -> None:
    """Write the users file (readable by its owner only), replacing it once complete."""
    from ..atomicfile import atomic_write

    path = Path(path)
    try:
        if not users_file_exists(path):
            try:   # made private before anything is in it (atomic_write keeps an existing file's mode)
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass
        os.chmod(path, 0o600)
    except OSError as e:
        raise RankerError(f"{path}: cannot write the users file ({e.strerror or e})") from None
    with atomic_write(path) as out:
        out.write("# ranker serve accounts: name<TAB>role<TAB>salted password hash "
                  "(manage with ranker serve users)\n")
        for u in sorted(users.values()):
            out.write(f"{u.name}\t{u.role}\t{u.hash}\n")


def account_name(name: str) -> str:
    """A valid account name (the rule for annotator names; ``anon-`` is the anonymous sessions').

    A name must be in Unicode's NFKC form: fullwidth ``ａｌｉｃｅ`` is refused, naming ``alice``,
    so that no account looks like another (see :func:`look_alike`).
    """
    if not isinstance(name, str) or not WHO.fullmatch(name) or name != name.strip():
        raise RankerError(f"account name {str(name)[:40]!r}: {WHO_RULE} "
                          "(no leading or trailing space)")
    if unicodedata.normalize("NFKC", name) != name:
        raise RankerError(f"account name {name!r}: looks like {unicodedata.normalize('NFKC', name)!r}; "
                          "write it so (Unicode NFKC form)")
    if skeleton(name).startswith(ANON_PREFIX):
        raise RankerError(f"account name {name!r}: names starting {ANON_PREFIX!r} are the anonymous sessions'")
    return name


def skeleton(name: str) -> str:
    """What a name looks like: its NFKC form, case folded (``ａｌｉｃｅ``, ``Alice`` and ``alice`` alike)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def look_alike(name: str, users: dict[str, User]) -> str | None:
    """Another account whose name looks like ``name`` (same :func:`skeleton`, different spelling), or None."""
    return next((u for u in users if u != name and skeleton(u) == skeleton(name)), None)


def add_user(path: str | Path, name: str, password: str, role: str = "annotator") -> User:
    """Add an account (or set a new password and role for an existing one)."""
    from werkzeug.security import generate_password_hash

    account_name(name)
    if role not in ROLES:
        raise RankerError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD:
        raise RankerError(f"the password must have at least {MIN_PASSWORD} characters")
    user = User(name, role, generate_password_hash(password))   # slow (scrypt): before the lock
    with _locked(path):
        users = read_users(path)
        other = look_alike(name, users)
        if other is not None:
            raise RankerError(f"{path}: account name {name!r} looks like the account {other!r}; "
                              "choose a name that does not")
        users[name] = user
        write_users(path, users)
    return user


def remove_user(path: str | Path, name: str) -> None:
    """Remove an account (its decisions stay in the store, attributed to the name)."""
    absent = RankerError(f"{path}: no account {name!r}")
    if not users_file_exists(Path(path)):   # no file: nothing to lock (no lock file is made for nothing)
        raise absent
    with _locked(path):
        users = read_users(path)
        if name not in users:
            raise absent
        del users[name]
        write_users(path, users)


@contextmanager
def _locked(path: str | Path) -> Iterator[None]:
    """Hold the users file's lock: an exclusive ``flock`` of ``PATH.lock`` beside it (made once, kept).

    Adding or removing an account reads the file, changes it and writes it whole; without the lock
    two commands at once would each write what they read, and one account would be lost. The file
    itself cannot carry the lock: each write replaces it by a new file.
    """
    import fcntl

    lock = Path(f"{path}.lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise RankerError(f"{path}: cannot lock the users file ({lock}: {e.strerror or e})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # releases the lock


def needs_accounts(host: str) -> bool:
    """Whether a server bound to ``host`` reaches beyond this machine (so everyone must sign in)."""
    return host not in LOOPBACK
