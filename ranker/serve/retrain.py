"""Retraining from the page: a background thread runs the warm-started retrain stage, the page polls.

One job at a time per server. The job opens its own store connection (SQLite connections stay in
their thread), reports progress through the stage's callback, and on success swaps the served
model, keeping the old one so the page can show how each candidate's place changed, and records it
in the store as the served model (a restart ranks with it). The model is
always adapted from the served model's base with the team's work as training reads it (decisions,
verdicts, adjudications: :func:`ranker.pipeline.retrain.retrain`), so a click with nothing new
changes nothing, and says so. The store's log is checkpointed after each retrain. A retrain that
stores a model is recorded as a run (``serve retrain``), as every command that writes the store is,
so ``ranker store stats`` lists it and the new model's record names it.
"""
from __future__ import annotations

import threading
import time


class RetrainJob:
    """One retraining run: its state (``running``, ``done``, ``failed``), progress and message."""

    def __init__(self, by: str | None = None):
        self.by = by              # who started it (their page shows the new model at once)
        self.state = "running"
        self.progress = 0.0
        self.message = "starting"
        self.started = time.time()
        self.finished: float | None = None
        self._lock = threading.Lock()

    def update(self, progress: float, message: str = "") -> None:
        """Record progress (a fraction) and what is being done."""
        with self._lock:
            self.progress = max(0.0, min(1.0, float(progress)))
            if message:
                self.message = message

    def finish(self, state: str, message: str) -> None:
        """End the job as ``done`` or ``failed``."""
        with self._lock:
            self.state, self.message, self.finished = state, message, time.time()
            if state == "done":
                self.progress = 1.0

    def status(self) -> dict:
        """What the status endpoint answers (JSON)."""
        with self._lock:
            return {"state": self.state, "progress": round(self.progress, 3), "message": self.message,
                    "seconds": round((self.finished or time.time()) - self.started, 1)}


def start_retrain(served, by: str | None = None) -> RetrainJob:
    """Start retraining from the ``user`` decisions unless a job is running (``by``: who asks);
    returns the job."""
    with served.lock:
        job = served.retrain
        if job is not None and job.state == "running":
            return job
        job = served.retrain = RetrainJob(by)
    threading.Thread(target=_run, args=(served, job), name="ranker-retrain", daemon=True).start()
    return job


def retrain_settings(served, current, by: str | None) -> dict:
    """What the store's ``runs`` row of a retrain started from the page records (``ranker store
    stats`` lists it with the commands' runs): the server's store, source and model, and who asked."""
    return {"store": str(served.store_path), "source": served.source, "by": by,
            "model": None if current is None else current.key, "started from": "the page (ranker serve)"}


def _run(served, job: RetrainJob) -> None:
    from ..errors import RankerError
    from ..store.team import now_utc
    from .model import remember_served, retrained_model
    from .writes import page_store

    try:
        with served.lock:
            current = served.model
        with page_store(served.store_path, False) as st, \
                st.recording("serve retrain", retrain_settings(served, current, job.by)):
            model = retrained_model(st, current, job.update, source=served.source)
            if current is not None and model.key == current.key:
                # a retrain is a function of (base model, decisions): the same inputs, the same model
                st.checkpoint()
                job.finish("done", f"nothing to do: no new decision, verdict or adjudication since model "
                                   f"{model.key[:12]} was trained")
                return
            # the list's "rankers disagree" filter under the new model, computed here rather than
            # by the first list page after the switch
            listed = served.choices.listed(current)
            if listed:
                job.update(0.95, f"the rankers' choices of {len(listed)} listed sentences under the new model")
                served.choices.disagree(st, listed, model)
            remember_served(st, served.source, model.key, "retrained from the team's work")
            st.checkpoint()   # the new model and the decisions it learnt from: in the .sqlite file itself
        served.set_model(model, f"retrained from the team's work at {now_utc()}")
        job.finish("done", f"retrained on the team's work: now ranking with model {model.key[:12]}")
    except RankerError as e:
        job.finish("failed", str(e))
    except Exception as e:   # a bug: keep the server up, say what happened
        job.finish("failed", f"{type(e).__name__}: {e}")
