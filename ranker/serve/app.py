"""The Flask application of ``ranker serve``: one store, one model, pages rendered on the server.

Each request thread reads through its own SQLite connection (a connection must stay in its
thread); decisions are written in one short store transaction each, so two browsers annotating
at once never lose one (SQLite serialises the writers). ``read_only`` opens the store with
``mode=ro`` and refuses every POST.

A restart keeps what the team had: the served model is recorded in the store when a retrain
switches to it (:func:`.model.remember_served`) and served again at the next start unless
``--model`` names another; with accounts the secret that signs session cookies is kept in a file
beside the users file (``USERS.secret``, mode 0600, :func:`session_secret`), so nobody is signed
out. Without accounts the secret is new at every start (the anonymous sessions start again; a
name set on the page is kept in its own cookie).
"""
from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..settings import ServeSection
# LRU (serve/cache.py) and MAX_BODY (serve/forms.py) were written here first: still importable from here
from .cache import LRU  # noqa: F401
from .forms import MAX_BODY  # noqa: F401


class Served:
    """What every request shares: the store file, the model (swapped by retraining) and caches."""

    def __init__(self, store_path: Path, model_spec: str | None, read_only: bool, settings: ServeSection,
                 source: str | None = None, evidence: str | None = None):
        from ..pipeline.stages import stored_evaluation, stored_source
        from .choices import StoredChoices
        from .model import tuned_heidorn, tuned_heidorn_key
        from .writes import page_store

        self.store_path = Path(store_path)
        self.read_only = read_only
        self.settings = settings
        self._local = threading.local()
        self.lock = threading.Lock()
        # what the start writes (the served --model, fitted family tables) is a recorded run (.writes)
        with page_store(self.store_path, read_only) as st, \
                st.recording("serve", start_settings(self.store_path, model_spec, source, evidence)) as recorded:
            self.source = recorded["source"] = stored_source(st, source)   # --source, else the store's only one
            # the settings the store's counts were computed with (ranker counts recorded them)
            self.evaluation = stored_evaluation(st, self.source)
            self.model, self.model_origin = _first_model(st, model_spec, evidence, self.source, read_only)
            # the second source the model's evidence families read (its record's, or --evidence)
            self.evidence = self.model.evidence if self.model is not None else None
            self.heidorn = tuned_heidorn(st)
            self.heidorn_key = tuned_heidorn_key(st)
            self.sizes, self.qualities = forest_summary(st, self.source)
            self.corpora: dict[str, list] = {}
            for s in st.sentences(None):
                self.corpora.setdefault(s.corpus, []).append(s)
        self.previous = None           # the model before the last retraining
        # models served lately by key: a page stays ranked by the model it was opened with (views.PIN)
        self.recent: OrderedDict = OrderedDict() if self.model is None else OrderedDict([(self.model.key, self.model)])
        self.retrain = None            # the running or last RetrainJob
        # forests, spans and counts do not change while serving; scores only with the model
        self.forests = LRU(settings.cached_forests)
        self.scores = LRU(4 * settings.cached_forests)
        self.statuses = LRU(100_000)   # (sentence, an annotator's or the team's work) -> its status (listing.Statuses)
        self.choices = StoredChoices(self)   # the rankers' choices per model, kept in the store
        self._prefetcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ranker-prefetch")

    def prefetch(self, sentence_id: str | None):
        """Read and score a sentence in the background (the one after the page shown), so its page is warm."""
        if sentence_id is None or sentence_id in self.forests:
            return None

        def work():
            self.forest_data(sentence_id)
            with self.lock:
                model = self.model
            self.model_scores(model, sentence_id)

        return self._prefetcher.submit(work)

    def neighbours(self, sentence) -> tuple[str | None, str | None]:
        """The previous and next sentence with candidates in corpus order (the annotator's way through)."""
        ids = [s.id for s in self.corpora.get(sentence.corpus, ()) if self.sizes.get(s.id)]
        try:
            k = ids.index(sentence.id)
        except ValueError:
            return None, None
        return (ids[k - 1] if k > 0 else None), (ids[k + 1] if k + 1 < len(ids) else None)

    def forest_data(self, sentence_id: str):
        """The sentence's :class:`~.sentence.ForestData` (cached)."""
        from .sentence import forest_data

        return self.forests.get(sentence_id, lambda: forest_data(self.store(), sentence_id, self.source,
                                                                 self.evaluation, self.evidence))

    def model_matrix(self, model, sentence_id: str):
        """The sentence's candidates as ``model``'s feature rows, cached per model and sentence."""
        # the model itself is kept in the value, so its id cannot be reused while the entry lives
        return self.scores.get(("X", id(model), sentence_id),
                               lambda: (model, model.matrix(self.forest_data(sentence_id).forest)))[1]

    def model_scores(self, model, sentence_id: str):
        """Each candidate's score under ``model`` (None without a model), cached per model and sentence."""
        import numpy as np

        if model is None:
            return None
        if not self.forest_data(sentence_id).forest.candidates:
            return np.zeros(0)
        return self.scores.get((id(model), sentence_id), lambda: (model, np.asarray(
            model.saved.ranker.decision_function(self.model_matrix(model, sentence_id)), dtype=np.float64)))[1]

    def heidorn_choice(self, sentence_id: str) -> int | None:
        """The candidate Heidorn's ranker with the stored tuned K table picks, or None."""
        if self.heidorn is None:
            return None
        import numpy as np

        def pick():
            from ..pipeline.stages import rank, ranker_inputs

            cands = self.forest_data(sentence_id).forest.candidates
            groups = np.zeros(len(cands), dtype=np.int64)
            inputs = ranker_inputs(groups, trees=lambda: ([c.tree for c in cands], groups))
            return int(rank({"heidorn": self.heidorn}, inputs)["heidorn"][0]) if cands else None

        return self.scores.get(("heidorn", sentence_id), pick)

    def store(self):
        """This thread's open store (opened on first use, kept for the thread's life; :func:`.writes.page_store`)."""
        from .writes import page_store

        st = getattr(self._local, "store", None)
        if st is None:
            st = self._local.store = page_store(self.store_path, self.read_only)
        return st

    def close(self) -> None:
        """Stop the background reader and checkpoint the store (the server is shutting down).

        Werkzeug's request threads keep their connections open to the end, so SQLite's own
        checkpoint on the last close may never run: the decisions would be left in the ``-wal``
        file alone. A read-only server wrote nothing.
        """
        from .writes import page_store

        self._prefetcher.shutdown(wait=False, cancel_futures=True)
        if not self.read_only:
            with page_store(self.store_path, False) as st:
                st.checkpoint()

    def set_model(self, model, origin: str = "") -> None:
        """Rank with ``model`` from now on; the old one is kept to show how the ranking changed."""
        with self.lock:
            self.previous, self.model = self.model, model
            self.model_origin = origin or self.model_origin
            self.recent[model.key] = model
            self.recent.move_to_end(model.key)
            while len(self.recent) > 4:
                self.recent.popitem(last=False)


def start_settings(store_path: Path, model_spec: str | None, source: str | None, evidence: str | None) -> dict:
    """What the store's ``runs`` row of a start that wrote (run ``serve``: :mod:`.writes`) records."""
    return {"store": str(store_path), "model": model_spec, "source": source, "evidence": evidence,
            "started from": "ranker serve (its start)"}


def _first_model(store, spec: str | None, evidence: str | None, source: str, read_only: bool):
    """``(ServedModel or None, what the page says of where it came from)`` at start.

    ``--model`` first (a stored one is recorded as the served model); else the model served last
    for this source (a retrain's, kept across restarts); else the store's default.
    """
    import logging

    from ..errors import RankerError
    from .model import load_served_model, remember_served, remembered_served

    if spec is not None:
        model = load_served_model(store, spec, evidence, source)
        if not read_only and store.model_record(model.key) is not None:
            remember_served(store, source, model.key, "named with --model")
        return model, "named with --model"
    kept = remembered_served(store, source)
    if kept is not None and store.model_file(kept["model"]) is not None:
        try:
            model = load_served_model(store, kept["model"], evidence, source)
            return model, f"{kept.get('how', 'served')} at {kept.get('at', '?')}, kept across restarts"
        except RankerError as e:   # removed or unreadable since: the default, and say why
            logging.getLogger("ranker.serve").warning("the model served before the restart: %s", e)
    model = load_served_model(store, None, evidence, source)
    return model, ("the store's default (chosen on held-out)" if model is not None else "")


def session_secret(users: Path) -> bytes:
    """The secret signing session cookies, kept in ``USERS.secret`` beside the users file (mode 0600).

    Made on first use (written whole to a temporary file and linked into place, so two servers
    starting at once read one secret). Deleting the file signs everybody out at the next start.

    Raises
    ------
    RankerError
        For a secret file others may read, or one that holds no secret.
    """
    import tempfile

    from ..errors import RankerError

    path = Path(f"{users}.secret")
    if not path.exists():
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)   # mode 0600
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)
            except FileExistsError:   # another server made it meanwhile: theirs
                pass
        finally:
            os.unlink(tmp)
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise RankerError(f"{path}: the session secret is readable by others (mode {mode:04o}): "
                          f"chmod 600 {path}, or delete it (everybody signs in again)")
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if len(text) < 32 or any(c not in "0123456789abcdef" for c in text):
        raise RankerError(f"{path}: holds no session secret (64 hex digits): delete it and start again "
                          "(everybody signs in again)")
    return bytes.fromhex(text)


def forest_summary(store, source: str) -> tuple[dict[str, int], dict[str, str]]:
    """Each sentence's forest size and parse quality (full, fragment, timeout, no parse), no tree read.

    A parser's log holds both for each sentence it parsed (a few thousand rows); forests imported
    from files have no log, and their candidates' qualities are read instead (a scan of the
    candidate rows, which for a Link Grammar store of the WSJ sample would take many seconds).
    """
    log = store.parse_log(source)
    if log:
        sizes = {row[0]: int(row[4]) for row in log}
        quality = {row[0]: (row[2] if row[2] in ("full", "fragment", "timeout") else "no parse")
                   if row[4] or row[2] == "timeout" else "no parse" for row in log}
        return sizes, quality
    sizes, quality = {}, {}
    for sid, qs in store.forest_qualities(source).items():
        sizes[sid] = len(qs)
        kinds = set(qs)
        quality[sid] = "full" if kinds == {"full"} else "timeout" if "timeout" in kinds else "fragment"
    return sizes, quality


def session_cookie_name(store_path: Path, host: str) -> str:
    """The session cookie's name for the server of ``store_path`` reached at ``host`` (``name:port``).

    Browsers keep cookies per host name, not per port: two servers on one machine with one cookie
    name overwrite each other's session, signing each other's users out. The name carries a short
    digest of the store's resolved path and the host and port the browser reached, so each server
    (and each store) has its own; it is the same across restarts, so a restart signs nobody out.
    """
    import hashlib

    digest = hashlib.sha256(f"{Path(store_path).resolve()}\0{host}".encode("utf-8", "replace")).hexdigest()
    return f"ranker_session_{digest[:12]}"


def _session_interface():
    """Flask's signed-cookie sessions under :func:`session_cookie_name` (one name per server)."""
    from flask import request
    from flask.sessions import SecureCookieSessionInterface

    class PerServer(SecureCookieSessionInterface):
        def get_cookie_name(self, app) -> str:
            return session_cookie_name(app.extensions["ranker"].store_path, request.host)

    return PerServer()


def create_app(store_path, model: str | None = None, read_only: bool = False,
               settings: ServeSection | None = None, source: str | None = None,
               users: str | Path | None = None, public_read: bool = False, evidence: str | None = None):
    """The WSGI application serving ``store_path``.

    Parameters
    ----------
    store_path
        The store file (must exist).
    model
        ``--model``: a stored model's key (or unique prefix) or a model file; default the stored
        model chosen on held-out.
    read_only
        Browse only: the store is opened read-only and every POST is refused.
    settings
        :class:`~ranker.settings.ServeSection` (host and port are the caller's business).
    source
        ``--source``: the store's candidate source to show (default the store's only one; a
        store holding two needs it).
    users
        A users file (:mod:`.accounts`): every annotator signs in, decisions are the account's.
        None: no accounts (each browser session is its own anonymous annotator).
    public_read
        With accounts: pages may be read without signing in (every POST still needs it).
    evidence
        ``--evidence``: the second source a model's evidence families read (default: the one the
        model's record names).
    """
    from flask import Flask

    from datetime import timedelta

    from . import accounts, assign_page, team, views

    here = Path(__file__).parent
    app = Flask("ranker.serve", template_folder=str(here / "templates"), static_folder=str(here / "static"))
    # with accounts the cookies' secret outlives the server, so a restart signs nobody out
    app.secret_key = session_secret(Path(users)) if users is not None else secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_HTTPONLY=True,
                      # a long comment reaches the page that keeps it and says the limit (.team.verdict);
                      # only past MAX_BODY is a request refused unread (413, a page saying the limit)
                      MAX_CONTENT_LENGTH=MAX_BODY, MAX_FORM_MEMORY_SIZE=MAX_BODY,
                      PERMANENT_SESSION_LIFETIME=timedelta(days=30))
    app.session_interface = _session_interface()   # a cookie name per server: two never sign each other out
    app.extensions["ranker"] = Served(Path(store_path), model, read_only, settings or ServeSection(), source,
                                           evidence)
    if users is not None:
        app.extensions["ranker-accounts"] = accounts.Accounts(Path(users), public_read)
    app.register_blueprint(accounts.bp)   # first: its identity check runs before every page
    app.register_blueprint(views.bp)
    app.register_blueprint(team.bp)
    app.register_blueprint(assign_page.bp)
    return app
