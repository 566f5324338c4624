"""What ``ranker serve`` writes to the store, and why some of it is a recorded run and some is not.

Every command that writes the store is a recorded run: a ``runs`` row with the command, its
settings, the code's version and how it ended (:meth:`ranker.store.Store.recording`, which
``ranker run`` and every other front open through :func:`ranker.cli.recorded.recorded_store`);
``ranker store stats`` lists them. The page writes two kinds of things.

What it derives, as a command would, is written in a recorded run:

- at start (run ``serve``): the model ``--model`` names, recorded as the served one
  (:func:`.model.remember_served`), and the tables of the model's learning families fitted and
  kept (:func:`ranker.pipeline.stages.model_families`);
- the rankers' choices of the sentences a list asks about (run ``serve choices``:
  :meth:`.choices.StoredChoices.disagree`);
- a retrain and what follows from it, the new model, the served model, its choices (run
  ``serve retrain``: :mod:`.retrain`).

The page opens its stores with :func:`page_store`, which sets the store's ``runs_only``: an
artifact or a model written outside a recording is refused (``StoreError``), so a new write that
escapes its run fails the page's tests (``tests/serve/test_recorded_writes.py``) instead of
leaving work in the store that no run accounts for.

The team's own work is not a run, and must not be: the decisions, verdicts and adjudications,
the assignments and the blind switch made on the page, and an anonymous annotator's new name.
Each is the data runs read, not a result of one: a retrain records which of it it learnt from
(:func:`ranker.pipeline.retrain.training_digest`), so the run that used it is found from the run,
and each row already says who made it (and a decision when). A run is a command's settings and
outcome; an answer has neither, and a ``runs`` row per click (thousands a day from a team) would
bury the commands' runs ``ranker store stats`` lists. They are written one short transaction each
(:mod:`.app`), and ``runs_only`` does not cover them: it guards artifacts and models only.
"""
from __future__ import annotations

from pathlib import Path


def page_store(path: Path, read_only: bool):
    """The store as the page opens it: read-only, or writable with artifacts and models in recorded runs only."""
    from ..store import Store

    st = Store.open(path, create=False, readonly=read_only)
    st.runs_only = True
    return st
