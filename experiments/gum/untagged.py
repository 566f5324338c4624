"""Untagged text against the same text with gold tags, through ``ranker apply``: what the model's tagger buys.

    NLTK_DATA=../shared/nltk_data python experiments/gum/untagged.py --model model.json --out DIR \
        [--per-document 4 --skip 4] [--linkage-limit 100 --max-parse-time 5]

takes ``--per-document`` sentences of every GUM test document (after its first ``--skip``, which are
mostly headings), writes them as tokens (``DIR/tokens.txt``), as ``word/TAG`` with the gold tags
(``DIR/tagged.txt``) and their gold trees (``DIR/gold.mrg``), and applies the model three ways:
tokens tagged by the model's own tagger, the gold-tagged text, and tokens with the tagger taken out
of the model (``DIR/notagger.json``: trees as before models carried taggers, words under their
phrases). It prints the tagger's accuracy on the sentences and, for each, EVALB's bracket F
(COLLINS.prm) of the trees as written (EVALB reads no tree whose words stand under phrases, and
pairs no sentence whose punctuation is tagged otherwise than gold's, since COLLINS.prm deletes
punctuation by its tag), the bracket F of the same trees with the gold tags put in as their
preterminals (every sentence scored alike: the choice of tree is what differs) and how many
sentences get other brackets than with gold tags. ``--rescore`` scores the trees of an earlier run
in DIR again without applying.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_sentences(per_document: int, skip: int) -> list:
    """``(sentence, gold tree)`` of the chosen sentences of GUM's test documents, in the split's order."""
    from ranker.pipeline.config import load_config
    from ranker.pipeline.splits import split_documents
    from ranker.pipeline.stages import corpus_reader

    cfg = load_config(str(HERE.parents[1] / "configs" / "gum.toml"))
    reader = corpus_reader(cfg.data)
    by_doc: dict[str, list] = {}
    for item in reader.items():
        by_doc.setdefault(item.sentence.document, []).append((item.sentence, item.gold))
    docs = split_documents(cfg.data.test, reader.documents(), reader.name)
    return [x for d in docs for x in by_doc[d][skip:skip + per_document]]


def with_tags(line: str, tags, tagged: bool) -> str:
    """The tree with each word under its gold tag as preterminal: its own preterminals replaced
    (``tagged``), or put in where its words stand directly under phrases."""
    from ranker.trees.penn import parse_tree
    from ranker.trees.tree import Tree, node, rebuild

    if not line:
        return ""
    tree = parse_tree(line)

    def phrase(n, kids):
        return kids[0] if tagged and n.is_preterminal else node(n.label, kids)

    return Tree(rebuild(tree.root, phrase, word=lambda i: node(tags[i], (i,))), tree.words).to_penn()


def evalb(gold: Path, test: Path) -> dict[str, str]:
    """EVALB's summary of all sentences (COLLINS.prm), or ``{}`` where it reads no such tree."""
    got = subprocess.run([sys.executable, "-m", "ranker.cli.main", "evalb", "-p", "COLLINS", str(gold), str(test)],
                         capture_output=True, text=True)
    if got.returncode == 2:
        return {}
    if "-- All --" not in got.stdout:   # stopped at MAX_ERROR: EVALB prints no summary
        return {"stopped": str(got.stderr.count("Length unmatch"))}
    summary = got.stdout[got.stdout.index("-- All --"):got.stdout.index("-- len<=40 --")]
    return {k.strip(): v.strip() for k, _, v in (x.partition("=") for x in summary.splitlines()) if v}


def main(argv=None) -> int:
    from ranker.models import load_model
    from ranker.trees.penn import write_trees

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--per-document", type=int, default=4)
    p.add_argument("--skip", type=int, default=4)
    p.add_argument("--linkage-limit", default="100")
    p.add_argument("--max-parse-time", default="5")
    p.add_argument("--workers", default="0")
    p.add_argument("--rescore", action="store_true", help="score the trees DIR holds from an earlier run again")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chosen = test_sentences(args.per_document, args.skip)
    sentences = [s for s, _ in chosen]
    write_trees(out / "gold.mrg", [g for _, g in chosen])
    (out / "tokens.txt").write_text("".join(" ".join(s.tokens) + "\n" for s in sentences))
    (out / "tagged.txt").write_text("".join(" ".join(f"{w}/{t}" for w, t in zip(s.tokens, s.tags)) + "\n"
                                            for s in sentences))
    doc = json.loads(Path(args.model).read_text())
    tagger = load_model(args.model).tagger
    doc.pop("tagger", None)
    (out / "notagger.json").write_text(json.dumps(doc) + "\n")
    runs = {"tagger": (args.model, "tokens.txt", "tokens"), "gold tags": (args.model, "tagged.txt", "tagged"),
            "no tagger": (str(out / "notagger.json"), "tokens.txt", "tokens")}
    trees = {}
    for name, (model, text, fmt) in runs.items():
        target = out / f"{name.replace(' ', '-')}.mrg"
        if not (args.rescore and target.exists()):
            subprocess.run([sys.executable, "-m", "ranker.cli.main", "apply", "--model", model, "--text", str(out / text),
                            "--text-format", fmt, "--out", str(target), "--linkage-limit", args.linkage_limit,
                            "--max-parse-time", args.max_parse_time, "--workers", args.workers, "--no-progress"],
                           check=True, capture_output=True)
        trees[name] = target.read_text().split("\n")[:-1]
    right = sum(a == b for s in sentences for a, b in zip(tagger.tag(s.tokens), s.tags))
    total = sum(len(s.tags) for s in sentences)
    print(f"{len(sentences)} GUM test sentences ({args.per_document} of each test document after its first "
          f"{args.skip}), {total} tokens; the model's tagger ({tagger.sentences:,} training sentences) tags "
          f"{100.0 * right / total:.2f}% of them right")
    print("| text given | EVALB on the trees written: bracket F, sentences (errors) | with gold tags put back: "
          "bracket F, sentences | trees other than with gold tags |")
    print("|---|---|---|---|")
    for key, name in (("gold tags", "word/TAG, gold tags"), ("tagger", "tokens, the model's tagger"),
                      ("no tagger", "tokens, no tagger (as before)")):
        written = out / f"{key.replace(' ', '-')}.mrg"
        back = out / f"{key.replace(' ', '-')}.gold-tags.mrg"
        back.write_text("".join(with_tags(x, s.tags, key != "no tagger") + "\n" for x, s in zip(trees[key], sentences)))
        plain, scored = evalb(out / "gold.mrg", written), evalb(out / "gold.mrg", back)
        as_written = ("not read (words under phrases)" if not plain else
                      "stopped at EVALB's MAX_ERROR (length mismatches: punctuation tagged otherwise than gold)"
                      if "stopped" in plain else f"{float(plain['Bracketing FMeasure']):.2f}, "
                      f"{plain['Number of Valid sentence']} ({plain['Number of Error sentence']})")
        other = sum(_brackets(with_tags(a, s.tags, key != "no tagger")) != _brackets(with_tags(b, s.tags, True))
                    for a, b, s in zip(trees[key], trees["gold tags"], sentences))
        print(f"| {name} | {as_written} | {float(scored['Bracketing FMeasure']):.2f}, "
              f"{scored['Number of Valid sentence']} | {other} |")
    return 0


def _brackets(line: str):
    """A tree's labelled brackets over word spans, its preterminals left out (they differ by tagging alone)."""
    if not line:
        return None
    from ranker.trees.penn import parse_tree

    tree = parse_tree(line)
    return sorted((n.label, n.start, n.end) for n in tree.nodes() if not n.is_preterminal)


if __name__ == "__main__":
    sys.exit(main())
