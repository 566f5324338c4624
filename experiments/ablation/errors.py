"""Where the log-linear choice loses against the oracle under MPH, on held-out: by label and construction.

For every held-out sentence, the candidate a trained model chose (``run.py --choices``) and the
forest's MPH oracle are reduced to their maximal projections (Ringger et al.'s heads, as the
scorer does). Gold brackets the oracle finds and the choice misses are counted by the gold node's
label and by what they are: a phrase headed by a preposition (PP attachment), a coordination (a
child is CC or CONJP), a clause (S, SBAR, SINV, SQ), a noun phrase, a verb phrase. Brackets of the
choice that gold lacks are counted by the candidate's label. The test split is never read.

    NLTK_DATA=../shared/nltk_data python3 experiments/ablation/errors.py --store runs/wsj-lg.sqlite \\
        --choices runs/choices.json --row default [--out experiments/ablation/errors.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from ranker.evaluation.bounds import METRICS, oracle_choice
from ranker.evaluation.scoring import Scorer, ScoringSettings
from ranker.pipeline.config import load_config
from ranker.pipeline.candidate_scoring import load_forest_counts
from ranker.pipeline.splits import select_split
from ranker.store import Store
from ranker.trees.mph import maximal_projections
from ranker.trees.penn import parse_tree

SOURCE = "link-grammar"
CLAUSES = {"S", "SBAR", "SINV", "SQ", "SBARQ"}


CONJUNCTIONS = {"and", "or", "but", "nor", "&", "either", "neither", "both", "yet"}


def labelled_brackets(tree, rules) -> Counter:
    """MPH brackets of a tree as ``(start, end, label, construction)`` with their multiplicity."""
    m = maximal_projections(tree, rules)
    out: Counter = Counter()
    if m is None:
        return out
    for n in m.nodes():
        if n is not m.root:
            out[(n.start, n.end, n.label, construction(n, m.words))] += 1
    return out


def construction(n, words) -> str:
    """What a bracket is: coordination, PP, clause, NP, VP or other (the first that applies).

    MPH trees keep no tags, so a coordination is a bracket with a conjunction word among its
    direct word children.
    """
    if any(type(c) is int and words[c].lower() in CONJUNCTIONS for c in n.children):
        return "coordination"
    if n.label == "PP":
        return "PP"
    if n.label in CLAUSES:
        return "clause"
    if n.label in ("NP", "NX", "NML", "QP"):
        return "NP"
    if n.label in ("VP",):
        return "VP"
    return "other"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--store", default="runs/wsj-lg.sqlite")
    ap.add_argument("--choices", required=True)
    ap.add_argument("--row", default="default", help="which row of the choices file")
    ap.add_argument("--out", default="experiments/ablation/errors.json")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    ev = cfg.evaluation
    settings = ScoringSettings(ev.evalb_param, ev.head_rules, ev.flatten_rules)
    rules = Scorer(settings).mph_rules
    chosen = json.loads(Path(args.choices).read_text())[args.row]
    missed_label, missed_kind, spurious_label, spurious_kind = Counter(), Counter(), Counter(), Counter()
    gold_kind, lost_sentences = Counter(), 0
    with Store.open(args.store) as st:
        held = select_split(st, cfg.data.corpus, cfg.data.heldout, cfg.data.limit)
        fc = load_forest_counts(st, held, METRICS["mph"].counts_from, settings, SOURCE)
        oracle = oracle_choice(fc, METRICS["mph"].score)
        for i, s in enumerate(held.sentences):
            c, o = chosen.get(s.id, -1), int(oracle[i])
            if c < 0 or o < 0:
                continue
            gold = st.gold(s.id)
            texts = st.candidate_texts(s.id, SOURCE)
            g = labelled_brackets(gold, rules)
            gspans = Counter()
            for (a, b, _, kind), k in g.items():
                gspans[(a, b)] += k
                gold_kind[kind] += k
            if c == o:
                continue
            ch = labelled_brackets(parse_tree(texts[c], f"candidate:{s.id}"), rules)
            orc = labelled_brackets(parse_tree(texts[o], f"candidate:{s.id}"), rules)
            cspans, ospans = Counter(), Counter()
            for (a, b, _, _), k in ch.items():
                cspans[(a, b)] += k
            for (a, b, _, _), k in orc.items():
                ospans[(a, b)] += k
            lost = False
            for (a, b, lab, kind), k in g.items():
                if ospans[(a, b)] and not cspans[(a, b)]:
                    missed_label[lab] += 1
                    missed_kind[kind] += 1
                    lost = True
            for (a, b, lab, kind), k in ch.items():
                if not gspans[(a, b)]:
                    spurious_label[lab] += k
                    spurious_kind[kind] += k
            lost_sentences += lost
    total = sum(missed_kind.values())
    out = {"row": args.row, "sentences": len(held.sentences), "sentences_losing_brackets": lost_sentences,
           "missed_total": total,
           "missed_by_construction": {k: {"missed": v, "share": v / total, "gold": gold_kind[k],
                                          "missed_per_100_gold": 100 * v / max(1, gold_kind[k])}
                                      for k, v in missed_kind.most_common()},
           "missed_by_label": dict(missed_label.most_common(12)),
           "spurious_by_label": dict(spurious_label.most_common(12)),
           "spurious_by_construction": dict(spurious_kind.most_common())}
    Path(args.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
