"""Who is annotating: a browser session's own identity, or a signed-in account.

Every decision is attributed to someone, and undo takes back only that someone's latest answer,
so two people on one sentence never undo each other's work.

* Without accounts (the server on loopback, one machine): each browser session gets its own
  anonymous identity (``anon-`` and 8 hex digits) at its first request, kept in the signed session
  cookie. A name set later takes over that session's anonymous decisions (it is the same person),
  and is remembered in a long-lived cookie, so it survives a browser restart and a server restart
  (the session cookie's key is new at every server start). Names are not checked: on loopback
  everyone at the machine is trusted anyway.
* With accounts (required beyond loopback: :func:`.users.needs_accounts`): a users file of salted password
  hashes (Werkzeug's ``generate_password_hash``, scrypt) managed by ``ranker serve users``; every
  page asks to sign in (reading may stay open with ``--public-read``), every decision is the
  signed-in account's, and the role ``adjudicator`` may resolve conflicts between annotators.
* Signing in is throttled (:class:`SignInThrottle`): after :data:`ACCOUNT_LIMIT` failures for one
  account name, or :data:`ADDRESS_LIMIT` from one client address, within :data:`WINDOW` seconds,
  sign-ins for that name (from that address) are refused with 429 for a growing time (1 minute,
  then 2, 4, ... at most :data:`MAX_LOCK`), the right password too; the page says when to try
  again. Every failed or refused sign-in is logged (logger ``ranker.serve``: the server's stderr).

The users file itself is :mod:`.users` (no Flask needed to manage it).
"""
from __future__ import annotations

import logging
import math
import secrets
import threading
import time
import unicodedata
from pathlib import Path

from flask import (Blueprint, after_this_request, current_app, redirect, render_template, request, session,
                   url_for)

from ..errors import RankerError
from . import forms
from .forms import FormError
from .users import ANON_PREFIX, User, read_users

#: The long-lived cookie remembering an annotator's chosen name (a preference, not a credential).
NAME_COOKIE = "ranker_who"
NAME_COOKIE_DAYS = 400          # browsers cap cookie lifetimes at about this

bp = Blueprint("accounts", __name__)
log = logging.getLogger("ranker.serve")

#: Failed sign-ins within :data:`WINDOW` seconds before an account name is locked.
ACCOUNT_LIMIT = 5
#: Failed sign-ins (any names) within :data:`WINDOW` seconds before a client address is locked
#: (higher: a team behind one address mistypes together).
ADDRESS_LIMIT = 20
WINDOW = 15 * 60
FIRST_LOCK = 60           # seconds of the first lock; each failure after it doubles the next
MAX_LOCK = 60 * 60


class Throttle:
    """Failed attempts per key (an account name, a client address) and the lock they earn.

    A key's failures are forgotten after :data:`WINDOW` quiet seconds (no failure, no lock). The
    ``limit``-th failure locks the key for :data:`FIRST_LOCK` seconds, each failure after that
    (once the lock is over) for twice as long as the one before, at most :data:`MAX_LOCK`.
    """

    def __init__(self, limit: int, clock=time.time):
        self.limit = limit
        self.clock = clock
        self._state: dict[str, list] = {}   # key -> [failures, last failure, locked until]
        self._lock = threading.Lock()

    def _get(self, key: str, now: float) -> list:
        st = self._state.get(key)
        if st is not None and now - max(st[1], st[2]) > WINDOW:
            del self._state[key]   # quiet long enough: a fresh start
            st = None
        return st or [0, 0.0, 0.0]

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        with self._lock:
            now = self.clock()
            return max(0.0, self._get(key, now)[2] - now)

    def failed(self, key: str) -> float:
        """Count a failure; the seconds of the lock it earns (0: none)."""
        with self._lock:
            now = self.clock()
            st = self._get(key, now)
            st[0], st[1] = st[0] + 1, now
            if st[0] >= self.limit:
                st[2] = now + min(FIRST_LOCK * 2 ** (st[0] - self.limit), MAX_LOCK)
            self._state[key] = st
            if len(self._state) > 100_000:   # an attack spraying names: keep what still counts
                self._state = {k: v for k, v in self._state.items() if now - max(v[1], v[2]) <= WINDOW}
            return max(0.0, st[2] - now)

    def forget(self, key: str) -> None:
        with self._lock:
            self._state.pop(key, None)


class SignInThrottle:
    """Sign-in failures counted per account name and per client address (:class:`Throttle`)."""

    def __init__(self, clock=time.time):
        self.accounts = Throttle(ACCOUNT_LIMIT, clock)
        self.addresses = Throttle(ADDRESS_LIMIT, clock)

    def wait(self, name: str, address: str) -> tuple[float, str]:
        """``(seconds, why)`` until this name from this address may try again (0 and '': now)."""
        by_name, by_address = self.accounts.wait(name), self.addresses.wait(address)
        if by_name >= by_address:
            return by_name, ("too many failed sign-ins for this account" if by_name else "")
        return by_address, "too many failed sign-ins from your address"

    def failed(self, name: str, address: str) -> tuple[float, str]:
        """Count a failure for both; ``(seconds, why)`` of the lock it earns (0 and '': none)."""
        by_name, by_address = self.accounts.failed(name), self.addresses.failed(address)
        if by_name >= by_address:
            return by_name, ("too many failed sign-ins for this account" if by_name else "")
        return by_address, "too many failed sign-ins from your address"

    def succeeded(self, name: str) -> None:
        """The account's failures are forgotten (the address's still count)."""
        self.accounts.forget(name)


def retry_message(why: str, seconds: float, clock=time.time) -> str:
    """'WHY: try again in N minutes (after HH:MM:SS UTC)'."""
    wait = math.ceil(seconds)
    at = time.strftime("%H:%M:%S", time.gmtime(clock() + wait))
    span = f"{wait} seconds" if wait < 120 else f"{math.ceil(wait / 60)} minutes"
    return f"{why}: try again in {span} (after {at} UTC)"


class Accounts:
    """The server's accounts: the users file, read again whenever it changes (``ranker serve users``)."""

    def __init__(self, path: Path, public_read: bool = False):
        self.path = Path(path)
        self.public_read = public_read
        self._users: dict[str, User] = {}
        self._stamp = None
        self._dummy: str | None = None
        self.throttle = SignInThrottle()
        if not self.users():
            raise RankerError(f"{self.path}: no accounts: add one with ranker serve users add NAME "
                              f"--users {self.path}")

    def users(self) -> dict[str, User]:
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._users, self._stamp = read_users(self.path), stamp
        return self._users

    def check(self, name: str, password: str) -> User | None:
        """The account if the password is its own, else None (an unknown name costs the same time)."""
        from werkzeug.security import check_password_hash, generate_password_hash

        user = self.users().get(name)
        if user is None:
            if self._dummy is None:
                self._dummy = generate_password_hash(secrets.token_urlsafe(16))
            check_password_hash(self._dummy, password)
            return None
        return user if check_password_hash(user.hash, password) else None


# ---------------------------------------------------------------------------------- identity
def accounts() -> Accounts | None:
    """This application's :class:`Accounts`, None when it runs without."""
    return current_app.extensions.get("ranker-accounts")


def signed_in() -> User | None:
    """The signed-in account (None without accounts or before signing in)."""
    acc = accounts()
    name = session.get("user")
    return None if acc is None or not name else acc.users().get(name)


def annotator() -> str:
    """Who the current request's decisions are attributed to (the account, the name, or the session's own id)."""
    user = signed_in()
    if user is not None:
        return user.name
    if accounts() is not None:
        raise FormError("sign in first", 401)
    return session.get("who") or session.get("anon") or _new_anon()


def current_annotator() -> str | None:
    """:func:`annotator`, or None for a reader who has not signed in (``--public-read``)."""
    if accounts() is not None and signed_in() is None:
        return None
    return annotator()


def may_adjudicate() -> bool:
    """Adjudicators' accounts may resolve conflicts; without accounts anyone may."""
    if accounts() is None:
        return True
    user = signed_in()
    return user is not None and user.adjudicator


def _new_anon() -> str:
    session["anon"] = ANON_PREFIX + secrets.token_hex(4)
    return session["anon"]


def set_name(store, name: str) -> None:
    """The session's annotator is ``name`` from now on; its anonymous decisions become ``name``'s."""
    if accounts() is not None:
        raise FormError(f"signed in as {session.get('user') or 'nobody'}: decisions are attributed to the "
                        "account, sign in as another to change it", 403)
    anon = session.get("anon")
    if anon and not session.get("who"):
        store.rename_annotator(anon, name)
    session["who"] = name

    @after_this_request
    def remember(resp):
        resp.set_cookie(NAME_COOKIE, name, max_age=NAME_COOKIE_DAYS * 86400, samesite="Strict", httponly=True)
        return resp


@bp.before_app_request
def _identify():
    """Give a new session its identity; with accounts, send the signed-out to the sign-in page."""
    session.permanent = True   # the session cookie outlives the browser (lifetime: create_app)
    acc = accounts()
    if acc is None:
        if not session.get("anon"):
            _new_anon()
        if not session.get("who"):
            remembered = request.cookies.get(NAME_COOKIE, "")
            if remembered and forms.WHO.fullmatch(remembered) and not remembered.startswith(ANON_PREFIX):
                session["who"] = remembered
        return None
    if session.get("user") and signed_in() is None:
        session.pop("user")   # the account was removed from the users file
    if request.endpoint in ("accounts.login", "static", "serve.favicon") or signed_in() is not None:
        return None
    if request.method == "GET" and acc.public_read:
        return None
    if request.method == "GET":
        return redirect(url_for("accounts.login", next=request.full_path))
    return render_template("error.html", message="sign in first", status=401), 401


@bp.app_context_processor
def _who():
    user = signed_in()
    return {"accounts_on": accounts() is not None, "user": user, "may_adjudicate": may_adjudicate(),
            "anon": session.get("anon", "")}


def _safe_next(value: str | None) -> str:
    """A local path to go back to after signing in (never another site)."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value and len(value) < 500:
        return value
    return url_for("serve.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with an account of the users file."""
    acc = accounts()
    if acc is None:
        return redirect(url_for("serve.index"))
    message, status, headers = "", 200, {}
    if request.method == "POST":
        forms.check_token(session, request.form, request.headers)
        name, password = request.form.get("name", ""), request.form.get("password", "")
        name = unicodedata.normalize("NFKC", name)   # account names are NFKC (serve.users.account_name)
        address = request.remote_addr or "-"
        throttle = acc.throttle
        wait, why = throttle.wait(name, address)
        if wait:   # locked: refused before the password is even checked (the right one too)
            log.warning("sign-in refused: account %r from %s: %s, %d s left", name[:40], address, why,
                        math.ceil(wait))
            message, status = retry_message(why, wait, throttle.accounts.clock), 429
            headers["Retry-After"] = str(math.ceil(wait))
        else:
            user = acc.check(name, password) if len(name) <= 40 and len(password) <= 1000 else None
            if user is not None:
                throttle.succeeded(name)
                session.clear()              # nothing of the signed-out session carries over, not its token
                session["user"] = user.name
                return redirect(_safe_next(request.form.get("next")))
            lock, why = throttle.failed(name, address)
            log.warning("sign-in failed: account %r from %s: wrong name or password%s", name[:40], address,
                        f"; {why}: locked for {math.ceil(lock)} s" if lock else "")
            message, status = "wrong name or password", 401
            if lock:
                message += "; " + retry_message(why, lock, throttle.accounts.clock)
                headers["Retry-After"] = str(math.ceil(lock))
    return (render_template("login.html", message=message, next=_safe_next(request.values.get("next"))),
            status, headers)


@bp.post("/logout")
def logout():
    """Sign out (the page's token is checked, so another site cannot sign you out)."""
    forms.check_token(session, request.form, request.headers)
    session.pop("user", None)
    return redirect(url_for("accounts.login") if accounts() is not None else url_for("serve.index"))
