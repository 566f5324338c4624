"""``ranker score``: Heidorn's score of every tree of a bracketed file, one per line."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("score", help="score trees with Heidorn's metric (lower is better)",
                              description="Print Heidorn's (1982) score of every tree of TREES, one "
                              "per line, in file order.")
    p.add_argument("trees", metavar="TREES", help="file of bracketed trees")
    p.add_argument("--ranker", choices=["heidorn"], default="heidorn")
    p.add_argument("--k-table", default="default", help="K table TOML (name in configs/k-tables or path)")
    p.add_argument("--heads", default="auto",
                   help="'star' (head child labels end in '*', as in Heidorn's examples), a head-rule "
                        "table (collins, charniak, or a path), or 'auto': star when the trees mark "
                        "heads with '*', else the [evaluation] head_rules default (default auto)")
    p.add_argument("--pp-as-np", action="store_true",
                   help="read a PP as a noun phrase with the preposition as premodifier")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import RankerError
    from ..pipeline.config import EvaluationSection, ExperimentConfig, HeidornSection
    from ..pipeline.stages import ready_ranker
    from ..trees.heidorn_score import HeadError
    from ..trees.penn import read_trees

    trees = read_trees(args.trees)
    heads = _heads(args.heads, trees)
    # the ranker ranker select builds from the same options (its K table loaded; nothing to learn)
    ranker = ready_ranker(args.ranker, ExperimentConfig(heidorn=HeidornSection(k_table=args.k_table,
                                                                               pp_as_np=args.pp_as_np),
                                                        evaluation=EvaluationSection(head_rules=heads)))
    scores = []
    for i, tree in enumerate(trees, 1):
        try:
            scores.extend(ranker.scores([tree]))
        except HeadError as e:   # a tree the metric cannot read: say which file and tree
            raise RankerError(f"{args.trees}: tree {i}: {e}") from None
    for s in scores:
        print(f"{s:.12g}")
    return 0


def _heads(heads: str, trees) -> str:
    """``--heads`` resolved: ``auto`` is ``star`` for trees with ``*``-marked heads, else the
    ``[evaluation] head_rules`` default (ordinary Penn trees mark no heads)."""
    if heads != "auto":
        return heads
    from ..pipeline.config import EvaluationSection
    from .options import config_default

    def marked(node) -> bool:
        return any(type(c) is not int and (c.label.endswith("*") or marked(c)) for c in node.children)

    return "star" if any(marked(t.root) for t in trees) \
        else config_default(EvaluationSection, "head_rules")
