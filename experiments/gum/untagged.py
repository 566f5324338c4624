"""Untagged text against the same text with gold tags, through ``ranker apply``: what the model's tagger buys.

    NLTK_DATA=../shared/nltk_data python experiments/gum/untagged.py --model model.json --out DIR \
        [--per-document 4 --skip 4] [--linkage-limit 100 --max-parse-time 5]

takes ``--per-document`` sentences of every GUM test document (after its first ``--skip``, which are
mostly headings), writes them as tokens (``DIR/tokens.txt``), as ``word/TAG`` with the gold tags
(``DIR/tagged.txt``) and their gold trees (``DIR/gold.mrg``), and applies the model three ways:
tokens tagged by the model's own tagger, the gold-tagged text, and tokens with the tagger taken out
of the model (``DIR/notagger.json``: trees as before models carried taggers, words under their
phrases, scored with the gold tags put back as preterminals, since EVALB reads no other tree). It
prints EVALB's bracket F (COLLINS.prm) of each, the tagger's accuracy on the sentences and how many
sentences get another tree than with gold tags.
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


def with_tags(line: str, tags) -> str:
    """A tree whose words stand under phrases, each word put under its (gold) tag as preterminal."""
    from ranker.trees.penn import parse_tree
    from ranker.trees.tree import Tree, node, rebuild

    tree = parse_tree(line)
    return Tree(rebuild(tree.root, lambda n, kids: node(n.label, kids), word=lambda i: node(tags[i], (i,))),
                tree.words).to_penn()


def bracket_f(gold: Path, test: Path) -> tuple[float, int]:
    """EVALB's bracket F (COLLINS.prm) of ``test`` against ``gold``, and its valid sentences."""
    got = subprocess.run([sys.executable, "-m", "ranker.cli.main", "evalb", "-p", "COLLINS", str(gold), str(test)],
                         capture_output=True, text=True, check=True).stdout
    summary = got[got.index("-- All --"):]
    value = {k.strip(): v.strip() for k, _, v in (x.partition("=") for x in summary.splitlines()) if v}
    return float(value["Bracketing FMeasure"]), int(value["Number of Valid sentence"])


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
        subprocess.run([sys.executable, "-m", "ranker.cli.main", "apply", "--model", model, "--text", str(out / text),
                        "--text-format", fmt, "--out", str(target), "--linkage-limit", args.linkage_limit,
                        "--max-parse-time", args.max_parse_time, "--workers", args.workers, "--no-progress"],
                       check=True, capture_output=True)
        trees[name] = target.read_text().split("\n")[:-1]
    back = out / "no-tagger.gold-tags-put-back.mrg"
    trees["no tagger"] = [with_tags(x, s.tags) if x else "" for x, s in zip(trees["no tagger"], sentences)]
    back.write_text("".join(x + "\n" for x in trees["no tagger"]))
    right = sum(a == b for s in sentences for a, b in zip(tagger.tag(s.tokens), s.tags))
    total = sum(len(s.tags) for s in sentences)
    print(f"{len(sentences)} GUM test sentences ({args.per_document} of each test document after its first "
          f"{args.skip}), {total} tokens; the model's tagger ({tagger.sentences:,} training sentences) tags "
          f"{100.0 * right / total:.2f}% of them right")
    print("| text given | bracket F (COLLINS.prm) | sentences scored | trees other than with gold tags |")
    print("|---|---|---|---|")
    for key, name, path in (("gold tags", "gold tags", out / "gold-tags.mrg"),
                            ("tagger", "tokens, the model's tagger", out / "tagger.mrg"),
                            ("no tagger", "tokens, no tagger (gold tags put back to score)", back)):
        f, valid = bracket_f(out / "gold.mrg", path)
        other = sum(_brackets(a) != _brackets(b) for a, b in zip(trees[key], trees["gold tags"]))
        print(f"| {name} | {f:.2f} | {valid} | {other} |")
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
