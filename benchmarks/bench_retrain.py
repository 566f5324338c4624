"""Retraining a stored model from discriminant decisions: seconds, iterations and what it changes.

Setup (not timed): a simulated annotator decides the first ``--sentences`` forests of the held-out
split in the page's order, answering as each forest's best candidate (EVALB labelled) would, so
each is brought down to its best candidates; the decisions go into the store as a person's would.
Timed: :func:`ranker.pipeline.retrain.retrain` from the stored model ``--model`` (syncing the
``user`` annotation, checking the candidates, features from the store, the MAP-adapted fit). Then
the held-out forests *not* decided are scored by both models (mean sentence EVALB labelled F of
the chosen candidates), so a change comes from generalisation, not from the decided forests.

Measured 2026-11-23 (copy of the WSJ sample's Link Grammar store, model 6e6722, load 8 on 2 cores): 20
held-out forests decided by 134 decisions; retraining took 21.5 s, 13 CG iterations, 1.2 GB; the
other held-out forests' mean EVALB labelled F went from 66.58 to 66.83.

Works on a copy of a store where ``ranker run`` has run (it writes decisions and a model), from
the project folder (``configs/wsj-sample.toml`` fills ``runs/store.sqlite``; ``ranker models list``
gives the key)::

    cp runs/store.sqlite runs/lg-copy.sqlite
    python benchmarks/bench_retrain.py runs/lg-copy.sqlite --model KEY [--sentences 20]
"""
from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

from ranker.pipeline import stages
from ranker.pipeline.retrain import retrain, stored_model
from ranker.pipeline.splits import select_split
from ranker.registries import metric
from ranker.sources.annotations import LabelEquivalences
from ranker.sources.discriminants import Decision, candidate_spans, discriminants, remaining_mask
from ranker.store import Store


def decide(st, sid, source, best: np.ndarray, eq) -> int:
    """Answer the page's discriminants of ``sid`` as its first best candidate would; returns how many."""
    spans = [candidate_spans(t) for _, _, t in st.candidate_trees(sid, source)]
    truth = spans[int(np.flatnonzero(best)[0])]
    made: list[Decision] = []
    mask = np.ones(len(spans), dtype=bool)
    while not best[mask].all():
        ds = discriminants(spans, mask, None, eq)
        if not ds:
            break
        d = ds[0]
        yes = Decision(d.label, d.start, d.end, True, "bench", "2026-11-23T17:00:00Z")
        made.append(yes if remaining_mask([truth], [yes], eq)[0] else yes._replace(accept=False))
        st.add_decision(sid, made[-1])
        mask = remaining_mask(spans, made, eq)
    return len(made)


def heldout_f(st, model, sel, source, quality, offsets, skip) -> float:
    """Mean sentence F of the candidates ``model`` chooses on ``sel``'s sentences not in ``skip``."""
    from ranker.features import feature_set_from_dict

    m = stages.model_features(stages.StageContext(st, source, 1), feature_set_from_dict(model.feature_config), sel)
    picked = model.ranker.predict(m.restrict(model.feature_names), m.groups())
    row = {sid: j for j, sid in enumerate(m.sentence_ids)}
    out = [quality[offsets[i] + picked[row[s.id]]] for i, s in enumerate(sel.sentences)
           if s.id in row and s.id not in skip]
    return float(np.mean(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--model", required=True)
    ap.add_argument("--sentences", type=int, default=20)
    args = ap.parse_args()
    eq = LabelEquivalences.load()
    with Store.open(args.store) as st:
        source = stages.stored_source(st)
        ev = stages.stored_evaluation(st, source)   # the settings the store's counts were computed with
        sel = select_split(st, "treebank", "heldout", 0)
        fc = stages.load_counts(stages.StageContext(st, source), ev, sel, ["evalb_labeled"])["evalb_labeled"]
        quality = metric("evalb_labeled").score(fc.counts)
        decided, n_dec = set(), 0
        for i, s in enumerate(sel.sentences):
            q = quality[fc.offsets[i]:fc.offsets[i + 1]]
            if len(decided) == args.sentences:
                break
            if len(q) > 1 and not (q >= q.max() - 1e-9).all():
                n_dec += decide(st, s.id, source, q >= q.max() - 1e-9, eq)
                decided.add(s.id)
        _, base = stored_model(st, args.model)
        seen = []
        t0 = time.perf_counter()
        out = retrain(st, args.model, progress=lambda i, n: seen.append(i))
        seconds = time.perf_counter() - t0
        from ranker.models.persistence import SavedModel

        new = SavedModel(out.model, out.feature_names, base.feature_config)
        before = heldout_f(st, base, sel, source, quality, fc.offsets, decided)
        after = heldout_f(st, new, sel, source, quality, fc.offsets, decided)
    print(json.dumps({"decided_sentences": len(decided), "decisions": n_dec, "trained": out.trained,
                      "retrain_seconds": round(seconds, 2), "iterations": out.n_iter,
                      "progress_calls": len(seen), "model": out.key,
                      "heldout_rest_f_before": round(before, 2), "heldout_rest_f_after": round(after, 2),
                      "max_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}, indent=1))


if __name__ == "__main__":
    main()
