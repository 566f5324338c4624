"""The tagger a model carries for untagged text, measured: accuracy on held-out and test, by training passes.

    NLTK_DATA=../shared/nltk_data python experiments/gum/tagger.py [--iterations 1 3 5 8 12]

trains :class:`ranker.sources.tagger.PosTagger` on the training split's gold tags, as ``ranker run``
and ``ranker train`` do, of GUM (``configs/gum.toml``'s splits) and of the WSJ sample (NLTK's
treebank, wsj_0001-0139), and prints its token accuracy on each corpus's held-out and test splits,
and on the other corpus's test split (a tagger carried to another treebank), with the training time.
Held-out chose the passes; test is reported, never tuned on.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def gum_splits() -> dict[str, list]:
    """GUM's sentences by split (train, heldout = dev, test), in corpus order."""
    from ranker.pipeline.config import load_config
    from ranker.pipeline.stages import corpus_reader
    from ranker.pipeline.splits import split_documents

    cfg = load_config(str(HERE.parents[1] / "configs" / "gum.toml"))
    reader = corpus_reader(cfg.data)
    docs = reader.documents()
    by_doc: dict[str, list] = {}
    for item in reader.items():
        by_doc.setdefault(item.sentence.document, []).append(item.sentence)
    return {part: [s for d in split_documents(getattr(cfg.data, part), docs, reader.name) for s in by_doc[d]]
            for part in ("train", "heldout", "test")}


def wsj_splits() -> dict[str, list]:
    """The WSJ sample's sentences by split (wsj_0001-0139, 0140-0169, 0170-0199)."""
    from ranker.pipeline.stages import corpus_reader

    parts = {"train": range(1, 140), "heldout": range(140, 170), "test": range(170, 200)}
    found: dict[str, list] = {p: [] for p in parts}
    for item in corpus_reader("treebank").items():
        number = int(item.sentence.document[4:8])
        found[next(p for p, r in parts.items() if number in r)].append(item.sentence)
    return found


def accuracy(tagger, sentences) -> float:
    right = total = 0
    for s in sentences:
        got = tagger.tag(s.tokens)
        right += sum(a == b for a, b in zip(got, s.tags))
        total += len(s.tags)
    return 100.0 * right / total


def main(argv=None) -> int:
    from ranker.sources.tagger import ITERATIONS, PosTagger

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, nargs="+", default=[ITERATIONS])
    args = p.parse_args(argv)
    corpora = {"GUM": gum_splits(), "WSJ sample": wsj_splits()}
    print("| trained on | passes | sentences | seconds | held-out | test | other corpus's test |")
    print("|---|---|---|---|---|---|---|")
    for name, parts in corpora.items():
        other = next(p for n, p in corpora.items() if n != name)
        for n in args.iterations:
            t0 = time.perf_counter()
            tagger = PosTagger.train(((s.tokens, s.tags) for s in parts["train"]), n)
            seconds = time.perf_counter() - t0
            print(f"| {name} train | {n} | {tagger.sentences:,} | {seconds:.1f} | "
                  f"{accuracy(tagger, parts['heldout']):.2f} | {accuracy(tagger, parts['test']):.2f} | "
                  f"{accuracy(tagger, other['test']):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
