"""The scoring schemes of ``ranker evaluate`` over a whole file pair: per-pair scores summed into corpus figures.

Each scheme is one entry of :data:`SCHEMES` (a :class:`Scheme`): its function ``score(args, pairs)
-> dict`` and what the rest of the package asks of it (the options it reads, its default head
rules, whether its gold may be a dependency file, how the compiled kernel counts it). The table is
registered by versioned name in :data:`ranker.registries.SCHEMES`, which is where ``ranker evaluate
--scheme`` finds its choices, its options and its scorer: a new scheme is one entry here. ``pairs`` holds ``(gold_line, gold, test_line, test)`` (``test`` None: no parse);
``args`` carries the options of ``ranker evaluate`` (``param``, ``head_rules``,
``flatten_rules``, ``keys_as_given``, ``omit_root``, ``relation_labels``, and the ``gold`` and
``test`` file names that errors name). The figures are percentages 0-100 from summed counts.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

from .settings import ScoringSettings

if TYPE_CHECKING:
    from .dependencies import DependencyAccumulator
    from .flat import FlatAccumulator
    from .parseval import ParsevalAccumulator
    from .summary import BracketAccumulator

# Each scheme imports what it scores with: the compiled path (.schemes_native) ends every run here
# and should not load the other schemes' modules (or the tree package) to do so.

#: Settings of an option not given: the report's own (its stored counts are scored with these), so
#: ``ranker evaluate`` on a run's files reproduces the run's report.
DEFAULTS = ScoringSettings()
#: Key of a scheme's output listing ``(test line, why)`` of each sentence it skipped (see
#: :func:`same_words`); ``ranker evaluate`` names them on stderr and prints their number as ``skipped``.
SKIPPED = "_skipped"


def same_words(gold, test) -> bool:
    """Whether two trees are over the same words once empty elements (``-NONE-``) are gone.

    A pair over the same words that a scheme still cannot align differs in what the scheme deletes
    by tag (a parser's ``''`` for the gold's possessive ``(POS ')``, which COLLINS.prm deletes):
    EVALB reports such a sentence (``Length unmatch``) and goes on, and so do the schemes here. A
    pair over other words is a file pairing gone wrong, and stays an error.
    """
    if test is None:
        return False
    return _spoken(gold) == _spoken(test)


def _spoken(tree) -> tuple[str, ...]:
    return tuple(w for w, tag in zip(tree.words, tree.tags()) if tag != "-NONE-")


def evalb(args, pairs, acc: BracketAccumulator | None = None) -> dict:
    """EVALB (``args.param``, a parameter file or shipped name); a failed test tree is an input error.

    ``acc``: counts already summed (by the compiled path, :mod:`.schemes_native`) that ``pairs``
    add to; every scheme takes one.
    """
    from .evalb import ERROR, score_evalb
    from .evalb_params import load_params
    from .inputs import EvaluationInputError
    from .parseval import BracketCounts
    from .summary import BracketAccumulator

    params = load_params(args.param or DEFAULTS.evalb_param)
    acc = acc or BracketAccumulator()
    skipped = []
    for _, g, tl, t in pairs:
        if t is None:
            acc.add(BracketCounts(score_evalb(g, g, params).gold, 0, 0, 0), parsed=False)
            continue
        s = score_evalb(g, t, params)
        # a skip here means no word is left after deletion on either side: zeros, as scored
        if s.status == ERROR:
            if not same_words(g, t):
                raise EvaluationInputError(f"{args.test}:{tl}: {s.message}")
            skipped.append((tl, s.message))   # EVALB's error sentence: out of the totals, as the report
            continue
        acc.add(BracketCounts(s.gold, s.test, s.matched, s.crossing))
    return {**acc.result().as_dict(), SKIPPED: skipped}


def parseval(args, pairs, acc: BracketAccumulator | None = None,
             black: ParsevalAccumulator | None = None) -> dict:
    """PARSEVAL after Black et al.'s erasures, with their sentence-averaged figures (``black``: their sums so far)."""
    from .parseval import ParsevalAccumulator, score_parseval
    from .summary import BracketAccumulator

    acc, black = acc or BracketAccumulator(), black or ParsevalAccumulator()
    for _, g, tl, t in pairs:
        c = score_parseval(g, t, erase=True)
        acc.add(c, parsed=t is not None)
        black.add(c)
    out = acc.result().as_dict()
    r = black.result()
    out["averaged_recall"] = r.averaged_recall          # Black et al.: mean of sentence ratios
    out["averaged_precision"] = r.averaged_precision
    out["crossing_distribution"] = {str(k): v for k, v in r.crossing_distribution.items()}
    return out


def mph(args, pairs, acc: BracketAccumulator | None = None) -> dict:
    """Maximal projections of heads (Ringger et al.), heads by ``args.head_rules``."""
    from ..trees.heads import HeadRules
    from .mph import score_mph
    from .summary import BracketAccumulator

    rules = HeadRules.load(args.head_rules or DEFAULTS.mph_head_rules)
    acc = acc or BracketAccumulator()
    skipped = []
    for _, g, tl, t in pairs:
        try:
            acc.add(score_mph(g, t, rules), parsed=t is not None)
        except ValueError as e:
            if not same_words(g, t):
                raise
            # punctuation deleted on one side only: Ringger et al. have no skip rule, so the
            # sentence is charged as no parse, as the report's stored counts charge it
            skipped.append((tl, f"{e} (punctuation tags differ; scored as no parse)"))
            acc.add(score_mph(g, None, rules), parsed=False)
    return {**acc.result().as_dict(), SKIPPED: skipped}


def flat(args, pairs, acc: FlatAccumulator | None = None) -> dict:
    """Gaizauskas et al.'s flattened keys: recall and conformance against the gold's key."""
    from ..trees.flatten import FlattenRules
    from ..trees.transforms import remove_empty_elements
    from .flat import FlatAccumulator, FlatCounts, flat_key, score_flat
    from .inputs import EvaluationInputError

    rules = None if args.keys_as_given else FlattenRules.load(args.flatten_rules or DEFAULTS.flatten_rules)
    acc = acc or FlatAccumulator()
    for gl, g, tl, t in pairs:
        key = g if rules is None else flat_key(g, rules)
        if key is None or remove_empty_elements(key) is None:
            # a gold tree of empty elements only (-NONE-): no constituent to find, as EVALB and
            # the other schemes score it (100); a test tree with words there is not of this sentence
            if t is not None and remove_empty_elements(t) is not None:
                raise EvaluationInputError(f"{args.test}:{tl}: the gold tree holds no word but the "
                                           f"test tree holds {len(remove_empty_elements(t).words)}")
            acc.add(FlatCounts(0, 0, 0, 0), parsed=t is not None)
            continue
        acc.add(score_flat(key, t, with_root=not args.omit_root), parsed=t is not None)
    return acc.result().as_dict()


def deps(args, pairs, acc: DependencyAccumulator | None = None) -> dict:
    """Typed and untyped head-dependency F; gold pairs may be CoNLL sentences.

    The output names both sides' dependencies (``gold_dependencies``, ``test_dependencies``): a
    dependency F means nothing without its gold and conversion.
    """
    from ..trees.dependencies import RelationLabels
    from ..trees.heads import HeadRules
    from .dependencies import DependencyAccumulator, gold_from_conll, gold_from_tree, score_tree_dependencies

    rules_name = args.head_rules or DEFAULTS.head_rules
    labels_name = args.relation_labels or DEFAULTS.relation_labels
    rules = HeadRules.load(rules_name)
    labels = RelationLabels.load(labels_name)
    acc = acc or DependencyAccumulator()
    from_file = False
    for gl, g, tl, t in pairs:
        if hasattr(g, "deps"):  # a ConllSentence
            gold = gold_from_conll(g.words, g.tags, g.deps)
            from_file = True
        else:
            gold = gold_from_tree(g, rules, labels)
        acc.add(score_tree_dependencies(gold, t, rules, labels), parsed=t is not None)
    conversion = f"converted with head rules {rules_name} and relation labels {labels_name}"
    return {**acc.result().as_dict(),
            "gold_dependencies": ("GOLD dependency file, arcs as given" if from_file
                                  else f"GOLD trees {conversion}"),
            "test_dependencies": f"TEST trees {conversion}"}


def _bracket_totals(sums):
    """The compiled kernel's sums of a bracket scheme (9 of them) as the accumulator its scorer adds to."""
    from .summary import BracketAccumulator

    acc = BracketAccumulator()
    acc.add_totals(sums[:9])
    return acc


def _flat_totals(sums):
    """The kernel's sums of the flat scheme (6) as a :class:`~.flat.FlatAccumulator`."""
    from .flat import FlatAccumulator

    acc = FlatAccumulator()
    acc.add_totals(sums[:6])
    return acc


def _dependency_totals(sums):
    """The kernel's sums of the dependency scheme (9 untyped, 9 typed) as a :class:`~.dependencies.DependencyAccumulator`."""
    from .dependencies import DependencyAccumulator

    acc = DependencyAccumulator()
    acc.add_totals(sums[:9], sums[9:])
    return acc


class Scheme(NamedTuple):
    """One scoring scheme of ``ranker evaluate``: its scorer and what the rest of the package asks of it.

    The command, its option check and the compiled path (:mod:`.schemes_native`) read these
    fields instead of comparing the scheme's name.
    """

    #: ``score(args, pairs, acc=None) -> dict``: the figures of the pairs, added to ``acc``.
    score: Callable[..., dict]
    #: The options of ``ranker evaluate`` it reads, by their ``args`` name; any other one given is refused.
    options: tuple[str, ...] = ()
    #: The head-rule table when ``--head-rules`` is not given (None: it reads no head rules).
    head_rules: str | None = None
    #: Whether GOLD may be a ``.dp``/``.conll`` dependency file, its arcs the gold as given.
    dependency_gold: bool = False
    #: The compiled kernel's number for it (``schemes_kernel.c``'s ``SCHEME_*``); None: the reference only.
    native: int | None = None
    #: The kernel's summed counts as the accumulator ``score`` adds the pairs it left over to.
    totals: Callable | None = None
    #: Whether it erases words as Black et al. do and reports their sentence-averaged figures
    #: (``score`` then takes the kernel's per-sentence counts as a second accumulator).
    erasure: bool = False


#: Every scheme of ``ranker evaluate`` by its bare name (registered as ``name/1`` in
#: :data:`ranker.registries.SCHEMES`).
SCHEMES: dict[str, Scheme] = {
    "evalb": Scheme(evalb, ("param",), native=0, totals=_bracket_totals),
    "mph": Scheme(mph, ("head_rules",), head_rules=DEFAULTS.mph_head_rules, native=1, totals=_bracket_totals),
    "deps": Scheme(deps, ("head_rules", "relation_labels"), head_rules=DEFAULTS.head_rules, dependency_gold=True,
                   native=2, totals=_dependency_totals),
    "parseval": Scheme(parseval, (), native=3, totals=_bracket_totals, erasure=True),
    "flat": Scheme(flat, ("keys_as_given", "omit_root", "flatten_rules"), native=4, totals=_flat_totals),
}
