"""Opening the store for a command that changes it, so that the store records the command as a run.

Every subcommand that writes to the store opens it here: the store keeps one ``runs`` row per
command that wrote anything (:meth:`ranker.store.Store.recording`), with the command's resolved
options, what it read from the store (the evaluation settings of its counts, the model it
started from), the code version and how it ended; ``ranker store stats`` lists them.
"""
from __future__ import annotations

from contextlib import contextmanager


def command_settings(args) -> dict:
    """The parsed options of a command, as recorded (every option, defaults included)."""
    return {k: v for k, v in vars(args).items() if not callable(v) and k != "func"}


@contextmanager
def recorded_store(args, command: str, create: bool = False, path: str | None = None):
    """``(store, settings)``: the store of ``args.store`` (or ``path``) opened to write, recording ``command``.

    A new store of a command refused before it committed anything is removed again
    (:meth:`ranker.store.Store.writing`). ``settings`` starts as the command's options; add what
    the command resolves (e.g. ``settings["evaluation"]``) and the run records it.
    """
    from ..store import Store

    with Store.writing(path or args.store, create=create) as st, \
            st.recording(command, command_settings(args)) as settings:
        yield st, settings
