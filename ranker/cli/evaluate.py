"""``ranker evaluate GOLD TEST --scheme S``: corpus scores of a test file under one scheme of the papers.

Schemes: ``evalb`` (EVALB semantics, ``--param``, COLLINS.prm by default), ``parseval`` (Black et
al., after their erasures), ``mph`` (Ringger et al., ``--head-rules``, ringger-reassign by default),
``flat`` (Gaizauskas et al.: gold flattened into keys by ``--flatten-rules``, or used as they are
with ``--keys-as-given``; ``--omit-root`` leaves the whole-sentence bracket out of the constituents) and ``deps`` (head dependencies).
An option a scheme does not use (``--param`` with ``--scheme deps``) is refused, not ignored.

Dependency figures depend on their gold, so ``deps`` names it in its output (``gold_dependencies``,
``test_dependencies``): the TEST trees are always converted with ``--head-rules`` (collins by
default) and ``--relation-labels``; the gold is either GOLD's trees converted the same way, or, when
GOLD is a ``.dp``/``.conll`` dependency file, its arcs as given (typed figures only if it has
relation labels). A run's report scores untyped dependencies against NLTK's ``dependency_treebank``
where the store holds it (Malt files, no relation labels) and typed ones against the gold trees
converted by the head rules: give ``ranker evaluate`` that ``.dp`` file, or the gold trees, to
reproduce each. Against one gold, typed F is never above untyped F.

Trees are in Penn syntax (a bracket's first token is its label); ``--notation black`` reads Black
et al.'s (1991) own notation instead, unlabelled brackets over bare words such as ``((The
prospect) (of (cutting back spending)))``, in both files (labels play no part in PARSEVAL).

Pairs are read by position: the n-th TEST tree against the n-th GOLD tree. An empty TEST line
(one-tree-per-line files), or a failure line without a word such as ``(TOP)`` or ``()``, means
**no parse**: the sentence is counted, its gold brackets (arcs, key
constituents) count, nothing is proposed, matched, crossed or violated, and it is no complete
match. Unlike ``ranker evalb``, which skips such lines as EVALB does, this is how the pipeline
charges a sentence without a candidate, so a report's score equals ``ranker evaluate`` on its
selected-parse file. A pair over the same words that a scheme cannot align because the two sides'
tags put different words in what it deletes (a parser's ``''`` for the gold's possessive ``(POS
')``: COLLINS.prm deletes ``''``) is **skipped** as EVALB skips it: one ``ranker: skipped:
FILE:LINE: why`` line on stderr each, their number in ``skipped``, exit status 0; ``evalb``
leaves it out of the totals (EVALB's error sentence), ``mph`` (which has no skip rule) charges it
as no parse, each as the report's stored counts do. Any other sentence that cannot be scored
(different words, malformed brackets, different numbers of sentences) stops the run with one
``ranker: error:`` line naming file and line: no score is printed rather than a wrong one; so
does a pair of files with no sentence at all (nothing to score).

Files of one tree per line in Penn notation are counted by a compiled kernel (built with ``cc`` on
first use and cached, like ``ranker evalb``'s); everything else by the Python reference, with the
same figures.

Output: ``--format json`` gives ``sentences``, ``no_parse``, ``gold_brackets``, ``test_brackets``,
``matched``, ``recall``, ``precision``, ``f1`` (percentages 0-100, from summed counts, 100 when the
denominator is 0) and ``crossing`` (test brackets crossing a gold bracket, summed), plus per scheme:
EVALB's ``complete_match``, ``average_crossing``, ``no_crossing``, ``two_or_fewer_crossing`` (all
bracket schemes; the rows of Ringger et al.'s Table 1 for mph); for parseval Black et al.'s per-sentence
``averaged_recall``/``averaged_precision`` and the ``crossing_distribution``; for flat
``key_violated`` and ``conformance`` (there ``crossing`` is the number of key constituents violated,
the paper's modified crossing measure); for deps ``typed_*`` figures (null when the gold has no
relation labels) and ``crossing`` null; last, ``skipped`` (sentences skipped, see above). ``--format text`` prints the same, one figure a line.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..registries import SCHEMES

# Heavy modules (the tree package, numpy) load in ``run``: ``ranker --help`` imports this module.

#: The flag of each option a scheme may read (its ``options``, :class:`ranker.evaluation.schemes.Scheme`).
_FLAGS = {"param": "--param", "head_rules": "--head-rules", "keys_as_given": "--keys-as-given",
          "omit_root": "--omit-root", "flatten_rules": "--flatten-rules",
          "relation_labels": "--relation-labels"}


#: The docstring's paragraph on dependency golds, shown by ``ranker evaluate --help``.
_DEPENDENCY_NOTE = next(par for par in __doc__.split("\n\n")
                        if par.startswith("Dependency figures")).replace("``", "")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate", help="score test parses against gold under EVALB, PARSEVAL, MPH, flat keys or dependencies",
        description=__doc__.split("\n\n")[0], epilog=_DEPENDENCY_NOTE)
    p.add_argument("gold", metavar="GOLD", help="gold trees (one per line or .mrg layout), or a .dp/.conll "
                                                "dependency file for --scheme deps (its arcs are then "
                                                "the gold, as given)")
    p.add_argument("test", metavar="TEST", help="test trees, one per line (empty line: no parse)")
    p.add_argument("--scheme", choices=SCHEMES.names(bare=True), default="evalb",
                   help="scoring scheme (ranker.registries.SCHEMES; default: evalb)")
    p.add_argument("--param", metavar="FILE",
                   help="EVALB parameter file or shipped name, for --scheme evalb (default: COLLINS)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--notation", choices=("penn", "black"), default="penn",
                   help="bracket notation of GOLD and TEST: penn (a bracket's first token is its "
                        "label) or black (Black et al. 1991: unlabelled brackets, every token a "
                        "word, as in '((The prospect) (of (cutting back spending)))'; default: penn)")
    p.add_argument("--keys-as-given", action="store_true",
                   help="--scheme flat: use the gold trees as keys, unflattened")
    p.add_argument("--omit-root", action="store_true",
                   help="--scheme flat: the whole-sentence (root) bracket is not a constituent of key "
                        "or response (by default it counts, as in Gaizauskas et al.'s Table 1)")
    p.add_argument("--head-rules", metavar="NAME",
                   help="head-rule table (configs/heads/NAME.txt or a path) for --scheme mph "
                        "(default ringger-reassign) and deps (default collins: converts TEST, and "
                        "GOLD unless it is a dependency file)")
    p.add_argument("--flatten-rules", metavar="NAME",
                   help="flattening rules for --scheme flat (configs/flatten/NAME.txt or a path; "
                        "default: ptb)")
    p.add_argument("--relation-labels", metavar="NAME",
                   help="relation-label table for --scheme deps (configs/deps/NAME.txt or a path; "
                        "default: labels)")
    p.set_defaults(func=run)


def check_options(args: argparse.Namespace) -> None:
    """Refuse an option the chosen scheme does not read: a silently ignored file is a wrong score."""
    from ..errors import RankerError

    used = SCHEMES.get(args.scheme, "--scheme").options
    given = [o for o in _FLAGS if getattr(args, o, None) not in (None, False)]
    unused = [_FLAGS[o] for o in given if o not in used]
    if unused:
        users = {o: [s for s in SCHEMES.names(bare=True) if o in SCHEMES.get(s).options] for o in given}
        what = "; ".join(f"{_FLAGS[o]} is for --scheme {' or '.join(users[o])}"
                         for o in given if o not in used)
        raise RankerError(f"--scheme {args.scheme} does not use {', '.join(unused)} ({what})")
    if args.keys_as_given and args.flatten_rules is not None:   # both read by one scheme (flat)
        raise RankerError("--keys-as-given uses the gold trees as keys: --flatten-rules would be ignored")


def _pairs(args):
    from ..evaluation.inputs import EvaluationInputError, is_conll_path, read_conll, read_tree_lines

    if SCHEMES.get(args.scheme).dependency_gold and is_conll_path(args.gold):
        gold = [(s.line, s) for s in read_conll(args.gold)]
    else:
        gold = [(t.line, t.tree) for t in read_tree_lines(args.gold, allow_no_parse=False,
                                                          notation=args.notation)]
    test = read_tree_lines(args.test, notation=args.notation)
    if len(gold) != len(test):
        raise EvaluationInputError(f"{args.gold} has {len(gold)} sentences but {args.test} has {len(test)}")
    if not gold:
        raise EvaluationInputError(f"nothing to score: {args.gold} and {args.test} hold no sentence")
    return [(gl, g, t.line, t.tree) for (gl, g), t in zip(gold, test)]


def evaluate(args: argparse.Namespace) -> dict:
    """Score the files named in ``args`` and return the JSON figures (percentages 0-100)."""
    from ..errors import RankerError
    from ..evaluation.inputs import EvaluationInputError

    check_options(args)
    from ..evaluation.schemes import SKIPPED
    from ..evaluation.schemes_native import evaluate_native

    out = evaluate_native(args)         # the compiled path; None where it does not apply
    if out is None:
        pairs = _pairs(args)
        try:
            out = SCHEMES.get(args.scheme, "--scheme").score(args, pairs)
        except RankerError:                          # bad rule files, parameters: already one line
            raise
        except ValueError as e:                      # a pair the per-pair function cannot score
            raise EvaluationInputError(f"{args.test}:{_failing_line(args, pairs)}: {e}") from None
    skipped = sorted(out.pop(SKIPPED, ()))
    for line, why in skipped:
        print(f"ranker: skipped: {args.test}:{line}: {why}", file=sys.stderr)
    return {"scheme": args.scheme, **out, "skipped": len(skipped)}


def _failing_line(args, pairs) -> int:
    # Re-run pair by pair to name the line: only on the error path, so the loop above stays lean.
    for _, g, tl, t in pairs:
        try:
            SCHEMES.get(args.scheme).score(args, [(0, g, tl, t)])
        except ValueError:
            return tl
    return 0


def _format_text(result: dict) -> str:
    lines = [f"scheme: {result['scheme']}"]
    for k, v in result.items():
        if k == "scheme":
            continue
        if isinstance(v, float):
            v = f"{v:.2f}"
        elif isinstance(v, dict):
            v = " ".join(f"{a}:{b}" for a, b in v.items())
        elif v is None:
            v = "n/a"
        lines.append(f"{k:<24}{v}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    result = evaluate(args)
    if args.format == "json":
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(_format_text(result))
    return 0
