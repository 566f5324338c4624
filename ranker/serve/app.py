"""The Flask application of ``ranker serve``: one store, one model, pages rendered on the server.

Each request thread reads through its own SQLite connection (a connection must stay in its
thread); decisions are written in one short store transaction each, so two browsers annotating
at once never lose one (SQLite serialises the writers). ``read_only`` opens the store with
``mode=ro`` and refuses every POST. The secret that signs session cookies is new at every start,
so a token from an earlier server is worthless.
"""
from __future__ import annotations

import secrets
import threading
from pathlib import Path

from ..pipeline.config import ServeSection


class Served:
    """What every request shares: the store file, the model (swapped by retraining) and caches."""

    def __init__(self, store_path: Path, model_spec: str | None, read_only: bool, settings: ServeSection):
        from ..pipeline.stages import stored_source
        from ..store import Store
        from .model import load_served_model, tuned_heidorn

        self.store_path = Path(store_path)
        self.read_only = read_only
        self.settings = settings
        self._local = threading.local()
        self.lock = threading.Lock()
        with Store.open(self.store_path, create=False, readonly=read_only) as st:
            self.source = stored_source(st)
            self.model = load_served_model(st, model_spec)
            self.heidorn = tuned_heidorn(st)
            forests = st.forest_qualities(self.source)   # sizes and qualities without reading a tree
            self.sizes = {sid: len(q) for sid, q in forests.items()}
            self.qualities = {sid: _forest_quality(q) for sid, q in forests.items()}
            self.corpora: dict[str, list] = {}
            for s in st.sentences(None):
                self.corpora.setdefault(s.corpus, []).append(s)
        self.previous = None           # the model before the last retraining
        self.choice_cache: dict = {}   # (model key, sentence id) -> {ranker: index}
        self.retrain = None            # the running or last RetrainJob

    def store(self):
        """This thread's open store (opened on first use, kept for the thread's life)."""
        from ..store import Store

        st = getattr(self._local, "store", None)
        if st is None:
            st = self._local.store = Store.open(self.store_path, create=False, readonly=self.read_only)
        return st

    def set_model(self, model) -> None:
        """Rank with ``model`` from now on; the old one is kept to show how the ranking changed."""
        with self.lock:
            self.previous, self.model = self.model, model
            self.choice_cache.clear()


def _forest_quality(qualities) -> str:
    qs = set(qualities)
    if qs == {"full"}:
        return "full"
    return "timeout" if "timeout" in qs else "fragment"


def create_app(store_path, model: str | None = None, read_only: bool = False,
               settings: ServeSection | None = None):
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
        :class:`~ranker.pipeline.config.ServeSection` (host and port are the caller's business).
    """
    from flask import Flask

    from . import views

    here = Path(__file__).parent
    app = Flask("ranker.serve", template_folder=str(here / "templates"), static_folder=str(here / "static"))
    app.secret_key = secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_HTTPONLY=True,
                      MAX_CONTENT_LENGTH=64 * 1024)
    app.extensions["ranker"] = Served(Path(store_path), model, read_only, settings or ServeSection())
    app.register_blueprint(views.bp)
    return app
