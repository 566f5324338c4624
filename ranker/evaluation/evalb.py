"""EVALB scoring of one (gold, test) pair and its corpus totals, with EVALB's semantics to the letter.

This is the reference implementation: the vectorised reader in :mod:`.evalb_fast` must agree with
it count for count (a test checks so on the whole WSJ sample), and falls back to it for every
sentence it cannot decide alone. What EVALB (``evalb.c``, 2006 version with the quote fix) does,
and so what we do:

* A tree is read as EVALB reads its line: a bracket over exactly one word is a *terminal* (tag and
  word); every other bracket, the empty-label root of ``( (S ...) )`` included, is a bracket.
* A terminal whose tag is (exactly) a ``DELETE_LABEL`` is removed with its word *before* spans are
  numbered; the sentence *length* counts terminals whose tag is not a ``DELETE_LABEL_FOR_LENGTH``
  (so punctuation counts, traces do not), in the gold tree.
* A bracket left with no word is dropped; a bracket label is cut at its first ``-`` or ``=``
  (``NP-SBJ-1`` -> ``NP``, and ``-NONE-`` or ``-LRB-`` as bracket labels become ``""``), then dropped
  if it equals a ``DELETE_LABEL`` (``EQ_LABEL`` pairs count as equal). Tags are never cut.
* Status: no test word -> skip (2); a length difference that ``QUOTE_LABEL`` re-insertion cannot
  mend, or a word that differs (modulo ``EQ_WORD``) -> error (1). Error and skip sentences add
  nothing to the totals except the sentence counts.
* Matching is EVALB's greedy loop (gold brackets in order, each takes the first unmatched test
  bracket with the same span and an equal label), which is multiset matching of (span, label).
  A test bracket is *crossing* when some gold bracket overlaps it without nesting.
* Tags are compared position by position with ``label_comp`` (``EQ_LABEL`` applies).
"""
from __future__ import annotations

from collections import deque
from dataclasses import replace

from ..trees.tree import Node, Tree
from .crossing import crossing_count
from .evalb_line import EvalbLine, read_evalb_line
from .evalb_params import EvalbParams
from .evalb_totals import (ERROR, OK, SKIP, EvalbAccumulator, EvalbSentence, EvalbSummary,  # noqa: F401
                           EvalbTotals)

QUOTE_WORDS = ("'", '"', "/")


class EvalbSide:
    """One tree as EVALB's ``read_line`` leaves it: terminals, brackets in opening order, quotes.

    Reading depends only on the parameters' delete, length and quote labels, so one side serves
    parameter sets that differ in ``LABELED`` alone, and a gold side serves every candidate of its
    sentence (:func:`score_evalb_sides`; scoring copies a side before mending its quotes).
    """

    __slots__ = ("words", "tags", "brackets", "length", "quotes", "_kept")

    def __init__(self, tree: Tree | None, params: EvalbParams):
        self.words: list[str] = []
        self.tags: list[str | None] = []
        self.brackets: list[list] = []  # [start, end, raw label], in opening (pre-order) order
        self.length = 0
        self.quotes: list[list] = []  # [word, tag, index, bracket id, open bracket ids]
        self._kept = None             # _kept_brackets of the side as read, once asked for
        if tree is not None:
            for root in tree.roots if isinstance(tree, EvalbLine) else (tree.root,):
                self._read(root, tree.words, params)

    def copy(self) -> "EvalbSide":
        """A side whose lists can be mended (quote re-insertion) without touching this one."""
        new = EvalbSide.__new__(EvalbSide)
        new.words, new.tags, new.length = list(self.words), list(self.tags), self.length
        new.brackets = [list(b) for b in self.brackets]
        new.quotes = [[w, t, i, b, list(o)] for w, t, i, b, o in self.quotes]
        new._kept = None
        return new

    def kept(self, params: EvalbParams) -> list[tuple[int, int, str]]:
        """The brackets EVALB scores (:func:`_kept_brackets`), computed once per side."""
        if self._kept is None:
            self._kept = _kept_brackets(self, params)
        return self._kept

    def _terminal(self, tag, word, params, stack):
        if tag is None or tag not in params.delete_labels_for_length:
            self.length += 1
        if tag is not None and tag in params.quote_labels and word in QUOTE_WORDS:
            self.quotes.append([word, tag, len(self.words), len(self.brackets), list(stack)])
        if tag is not None and tag in params.delete_labels:
            return
        self.words.append(word)
        self.tags.append(tag)

    def _read(self, root: Node, words, params) -> None:
        """Terminals and brackets in text order, as ``read_line`` meets them; no recursion."""
        stack: list[int] = []               # ids of the brackets open at this point
        todo: list = [root]                 # nodes, words (int) and brackets to close (list)
        while todo:
            x = todo.pop()
            if type(x) is list:             # the end of a bracket
                stack.pop()
                x[1] = len(self.words)
                continue
            if type(x) is int:              # a word straight under a phrase: a terminal with no tag
                self._terminal(None, words[x], params, stack)
                continue
            c = x.children
            if len(c) == 1 and type(c[0]) is int:
                self._terminal(x.label, words[c[0]], params, stack)
                continue
            b = [len(self.words), -1, x.label]
            stack.append(len(self.brackets))
            self.brackets.append(b)
            todo.append(b)
            todo.extend(reversed(c))

    def reinsert(self, q):
        """EVALB's ``reinsert_term``: put a deleted quote terminal back and shift the brackets."""
        word, tag, ind, bra, ends = q
        self.words.insert(ind, word)
        self.tags.insert(ind, tag)
        for k, b in enumerate(self.brackets):
            if k >= bra:
                b[0] += 1
                b[1] += 1
        for k in ends:
            self.brackets[k][1] += 1


def _fix_quote(g: EvalbSide, t: EvalbSide, params: EvalbParams) -> None:
    """EVALB's ``fix_quote``: where one side deleted a quote-like terminal the other kept, restore it."""
    deleted = params.delete_labels
    for i, q2 in enumerate(t.quotes):
        ind = q2[2]
        for j, q1 in enumerate(g.quotes):
            if q1[2] == ind and q1[1] != q2[1]:
                if q1[1] in deleted and q2[1] not in deleted:
                    g.reinsert(q1)
                    for q in g.quotes[j:]:
                        q[2] += 1
                elif q2[1] in deleted and q1[1] not in deleted:
                    t.reinsert(q2)
                    for q in t.quotes[i:]:
                        q[2] += 1


def cut_label(label: str) -> str:
    """EVALB's ``modify_label``: drop everything from the first ``-`` or ``=``."""
    for k, ch in enumerate(label):
        if ch == "-" or ch == "=":
            return label[:k]
    return label


def _kept_brackets(side: EvalbSide, params: EvalbParams) -> list[tuple[int, int, str]]:
    out = []
    kept: dict[str, str | None] = {}    # raw label -> cut label, None when deleted
    for s, e, raw in side.brackets:
        if s == e:
            continue
        if raw in kept:
            label = kept[raw]
        else:
            label = kept[raw] = cut_label(raw)
            if params.delete_labels and params.deletes_bracket(label):
                label = kept[raw] = None
        if label is not None:
            out.append((s, e, label))
    return out


def _greedy_matches(gb, tb, params: EvalbParams) -> int:
    """EVALB's matching loop: each gold bracket takes the first unmatched test bracket it equals.

    Test brackets are queued by (span, label) in test order, so the first unmatched one with an
    equal label is the earliest queue head among the labels ``label_comp`` accepts: the same
    choice as EVALB's scan, without rescanning matched brackets (quadratic on a long unary chain).
    """
    queues: dict[tuple[int, int], dict[str, deque]] = {}
    for k, (s, e, label) in enumerate(tb):
        key = label if params.labeled else ""
        queues.setdefault((s, e), {}).setdefault(key, deque()).append(k)
    equal: dict[str, tuple[str, ...]] = {}
    matched = 0
    for s, e, label in gb:
        by_label = queues.get((s, e))
        if not by_label:
            continue
        if not params.labeled:
            labels: tuple[str, ...] = ("",)
        else:
            labels = equal.get(label)
            if labels is None:
                labels = equal[label] = (label,) + tuple(
                    y if x == label else x for x, y in params.eq_labels if label in (x, y))
        best = None
        for lab in labels:
            q = by_label.get(lab)
            if q and (best is None or q[0] < best[0]):
                best = q
        if best is not None:
            best.popleft()
            matched += 1
    return matched


def score_evalb(gold: Tree | None, test: Tree | None, params: EvalbParams) -> EvalbSentence:
    """Score one test tree against its gold tree exactly as EVALB scores one line pair.

    Parameters
    ----------
    gold, test
        The two trees as EVALB would read them from one line each (``None`` is an empty line). The
        empty-label root of treebank trees is a bracket like any other, as in EVALB: give both
        sides the same root convention.
    params
        The parameter set (see :func:`ranker.evaluation.evalb_params.load_params`).

    Returns
    -------
    EvalbSentence
        The integer counts; ``status`` is 0 (scored), 1 (error) or 2 (skipped).
    """
    return score_evalb_sides(EvalbSide(gold, params), EvalbSide(test, params), (params,))[0]


def score_evalb_sides(g: EvalbSide, t: EvalbSide, params: tuple[EvalbParams, ...]) -> list[EvalbSentence]:
    """:func:`score_evalb` of two sides already read, under parameter sets that differ in ``LABELED`` only.

    The scorer of stored counts reads a sentence's gold side once and each candidate's side once
    for both the labelled and the unlabelled counts; the sides are never changed (a pair whose
    quotes need mending is mended on copies).
    """
    first = params[0]
    if any(p is not first and replace(p, labeled=first.labeled) != first for p in params):
        raise ValueError("score_evalb_sides takes parameter sets that differ in LABELED only")
    length = g.length
    if not t.words:
        return [EvalbSentence(SKIP, length, 0, 0, 0, 0, 0, 0)] * len(params)
    if len(g.words) != len(t.words):
        if first.quote_labels:
            g, t = g.copy(), t.copy()
            _fix_quote(g, t, first)
        if len(g.words) != len(t.words):
            return [EvalbSentence(ERROR, length, 0, 0, 0, 0, 0, 0,
                                  f"Length unmatch ({len(g.words)}|{len(t.words)})")] * len(params)
    word_equal = first.word_equal
    for w1, w2 in zip(g.words, t.words):
        if w1 != w2 and not word_equal(w1, w2):
            return [EvalbSentence(ERROR, length, 0, 0, 0, 0, 0, 0,
                                  f"Words unmatch ({w1}|{w2})")] * len(params)
    gb = g.kept(first)
    tb = t.kept(first)

    crossing = crossing_count({(s, e) for s, e, _ in gb}, [(s, e) for s, e, _ in tb])

    label_equal = first.label_equal
    correct = sum(1 for a, b in zip(g.tags, t.tags) if a == b or label_equal(a, b))
    return [EvalbSentence(OK, length, len(g.words), len(gb), len(tb), _greedy_matches(gb, tb, p),
                          crossing, correct) for p in params]


def score_evalb_lines(gold: str, test: str, params: EvalbParams, gold_source: str = "<gold>",
                      test_source: str = "<test>", line: int = 1) -> EvalbSentence:
    """:func:`score_evalb` of two lines of EVALB input files, read as EVALB reads them.

    Raises
    ------
    ranker.trees.penn.TreeSyntaxError
        For a line EVALB's ``read_line`` reports an error on (``file:line:column``).
    """
    return score_evalb(read_evalb_line(gold, gold_source, line),
                       read_evalb_line(test, test_source, line), params)
