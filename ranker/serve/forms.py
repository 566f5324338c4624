"""Every value a browser sends, checked before it reaches the store; and the per-session POST token.

Nothing from the client is used as a path or as SQL: a sentence id must name a stored sentence, a
discriminant must be a labelled span inside the sentence, numbers must be in range, choices from
a fixed list. A failed check is a :class:`FormError` whose message says which parameter and why;
the page shows it with status 400 (404 for an id the store does not hold).
"""
from __future__ import annotations

import hmac
import re
import secrets
import unicodedata

from ..errors import RankerError

#: The largest request body read (bytes): a form with a comment far over its limit still arrives.
MAX_BODY = 1024 * 1024
#: Form field (and header, for scripts) carrying the session's token on every POST.
TOKEN_FIELD = "token"
TOKEN_HEADER = "X-Ranker-Token"
_WHO = re.compile(r"[\w .@'\u2019-]{1,40}")
#: An annotator's name or account name (letters, digits, space, ``.@-`` and an apostrophe, as in
#: ``o'neil``; at most 40). Every page escapes it, as it escapes comments.
WHO = _WHO
#: :data:`WHO` in words, for the refusals.
WHO_RULE = "1-40 letters, digits, spaces, apostrophes or .@-"


class FormError(RankerError):
    """A request parameter that is missing or wrong; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def session_token(session) -> str:
    """The session's POST token, made on first use (a signed cookie keeps it)."""
    tok = session.get(TOKEN_FIELD)
    if not isinstance(tok, str) or len(tok) != 43:
        tok = session[TOKEN_FIELD] = secrets.token_urlsafe(32)
    return tok


def check_token(session, form, headers) -> None:
    """Refuse a POST whose token is not this session's (a cross-site request cannot read it)."""
    expected = session.get(TOKEN_FIELD)
    given = form.get(TOKEN_FIELD) or headers.get(TOKEN_HEADER) or ""
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(), given.encode()):
        raise FormError("missing or wrong token: reload the page and try again", 403)


def sentence_id(store, value: str | None) -> str:
    """A stored sentence id."""
    from ..store.errors import StoreError

    if not value:
        raise FormError("parameter id: a sentence id is required")
    if len(value) > 300:
        raise FormError("parameter id: too long for a sentence id")
    try:
        store.sentence(value)
    except StoreError:
        raise FormError(f"parameter id: no sentence {value!r} in the store", 404) from None
    return value


def discriminant(value: str | None, n_tokens: int):
    """A ``LABEL:start-end`` key naming a span inside the sentence, as ``(label, start, end)``."""
    from ..sources.discriminants import parse_key

    if not value or len(value) > 200:
        raise FormError("parameter key: a discriminant like NP:3-7 is required")
    try:
        parsed = parse_key(value)
    except RankerError as e:
        raise FormError(f"parameter key: {e}") from None
    label, start, end = parsed[0], parsed[1], parsed[2]
    if not 0 <= start < end <= n_tokens:
        raise FormError(f"parameter key: span {start}-{end} is outside the sentence's {n_tokens} words")
    return label, start, end


def boolean(value: str | None, name: str) -> bool:
    """``"1"``/``"0"`` (also ``true``/``false``, ``yes``/``no``)."""
    v = (value or "").lower()
    if v in ("1", "true", "yes"):
        return True
    if v in ("0", "false", "no"):
        return False
    raise FormError(f"parameter {name}: must be 1 or 0, not {value!r}")


def integer(value: str | None, name: str, low: int, high: int, default: int | None = None) -> int | None:
    """An integer in ``[low, high]``; an empty value gives ``default``."""
    if value is None or value == "":
        return default
    if not re.fullmatch(r"-?\d{1,9}", value):
        raise FormError(f"parameter {name}: not a whole number: {value[:20]!r}")
    n = int(value)
    if not low <= n <= high:
        raise FormError(f"parameter {name}: {n} is outside {low}..{high}")
    return n


def choice(value: str | None, name: str, allowed, default: str | None = None) -> str | None:
    """One of ``allowed``; an empty value gives ``default``."""
    if value is None or value == "":
        return default
    if value not in allowed:
        raise FormError(f"parameter {name}: {value[:40]!r} is not one of {', '.join(allowed)}")
    return value


def who(value: str | None) -> str:
    """The annotator's name kept with each decision (:data:`WHO`)."""
    if not value or not _WHO.fullmatch(value.strip()):
        raise FormError(f"parameter who: {WHO_RULE}")
    name = unicodedata.normalize("NFKC", value.strip())
    if name.casefold().startswith("anon-"):   # serve.users.ANON_PREFIX: the anonymous sessions' names
        raise FormError("parameter who: names starting 'anon-' are the anonymous sessions'")
    return name
