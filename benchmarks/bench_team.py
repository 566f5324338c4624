"""What a team's work costs ``ranker serve`` and ``ranker store stats``: pages with other annotators' work,
the agreement page, and the agreement over a store.

Setup (not timed): a copy of ``--store`` (the original is never written) in which ``--annotators``
sessions each answer ``--answers`` discriminants of each of the first ``--sentences`` sentences
of the test split with at least 20 candidates, through the real application (Flask's test client):
each answer is the first discriminant of the annotator's own page, accepted or rejected by a
fixed pseudo-random choice per annotator, so their work overlaps, agrees and conflicts.

Timed: a warm sentence page of one annotator (median of the sentences), ``GET /adjudicate?show=all``
the first time (every shared sentence's forest read and its agreement computed) and warm, and
the agreement over the store as ``ranker store stats`` computes it (forests read from the file).
Prints one JSON line.

Run: ``NLTK_DATA=... python benchmarks/bench_team.py --store S [--annotators 3] [--sentences 10] [--answers 3]``
"""
from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def main() -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True, help="a store with forests of the test split (copied)")
    ap.add_argument("--annotators", type=int, default=3)
    ap.add_argument("--sentences", type=int, default=10)
    ap.add_argument("--answers", type=int, default=3)
    args = ap.parse_args()

    from ranker.serve.app import create_app
    from ranker.sources.adjudication import store_spans, store_team_work
    from ranker.store import Store

    with tempfile.TemporaryDirectory() as work:
        store = Path(work) / "team.sqlite"
        shutil.copy(args.store, store)
        with Store.open(store, readonly=True) as st:
            sids = [s.id for s in st.sentences("treebank", "test") if len(st.candidate_texts(s.id)) >= 20]
        sids = sids[:args.sentences]
        app = create_app(store)
        clients = [app.test_client() for _ in range(args.annotators)]

        def page(client, sid):
            return client.get("/sentence", query_string={"id": sid}).get_data(as_text=True)

        for k, client in enumerate(clients):
            choose = random.Random(k)
            for sid in sids:
                for _ in range(args.answers):
                    html = page(client, sid)
                    keys = re.findall(r'<tr data-key="([^"]+)">', html)
                    if not keys:
                        break
                    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
                    client.post("/decide", data={"id": sid, "key": keys[0], "token": token,
                                                 "accept": "1" if choose.random() < 0.5 else "0"})
        for sid in sids:
            page(clients[0], sid)   # warm: forests, scores and agreement cached
        times = []
        for sid in sids:
            t = time.perf_counter()
            page(clients[0], sid)
            times.append(time.perf_counter() - t)
        fresh = create_app(store).test_client()   # nothing cached
        t = time.perf_counter()
        html = fresh.get("/adjudicate?show=all").get_data(as_text=True)
        first = time.perf_counter() - t
        t = time.perf_counter()
        fresh.get("/adjudicate?show=all")
        warm = time.perf_counter() - t
        with Store.open(store, readonly=True) as st:
            t = time.perf_counter()
            agreement = store_team_work(st).agreement(store_spans(st))
            stats = time.perf_counter() - t
    out = {"annotators": args.annotators, "sentences": len(sids), "answers_each": args.answers,
           "shared_sentences": len(agreement.sentences), "shared_answers": agreement.answers,
           "kappa": agreement.kappa, "exact_match": agreement.exact_match, "conflicts": agreement.conflicts,
           "sentence_page_ms_median": round(1000 * statistics.median(times), 1),
           "adjudicate_first_ms": round(1000 * first, 1), "adjudicate_warm_ms": round(1000 * warm, 1),
           "stats_agreement_s": round(stats, 3), "page_has_rows": html.count("<tr class=")}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
