"""Black et al. (1991) pre-processing: erase contentious words, then superfluous brackets.

Step one erases auxiliaries, "not", pre-infinitival "to", null categories, possessive endings and
word-external punctuation; step two removes, innermost first, every bracket that encloses a single
constituent, a single word or nothing. A note in the paper's appendix moves a single-word adverb
left behind by erased auxiliaries into "the highest node of the immediately following verb
constituent": ``(will probably have) (seen Milton)`` -> ``(probably seen Milton)``.

The procedure has to work on Penn Treebank trees (POS tags) and on the paper's own examples, whose
labels are grammar-specific (``VPAST``, ``NEG``, ``FIN``) or missing. So a word's class is read
from its PTB tag when it has one, and otherwise from its form and the ``V``/``ADV`` initials of its
label:

- *auxiliary*: a be/have/do form, a modal (any ``MD``) or a clitic of these, followed -- skipping
  adverbs and "not" -- by a verbal word within the auxiliary's phrase (or, when the auxiliary ends
  its phrase, the phrase above: the paper's ``(will probably have) (seen Milton)``). Verbal means a
  ``MD``/``VB*`` tag, a non-PTB label starting with ``V``, or another auxiliary form. So "is a cup",
  "is blue", "does the laundry" keep their verb, "has been laughing" loses two.
- *pre-infinitival "to"*: the word "to" followed, in the same way, by a verbal word.
- *"not"*: "not" and "n't", anywhere.
- *null category*: a ``-NONE-`` word, or a ``0`` alone under a non-PTB label (``(PP 0)``).
- *possessive ending*: a ``POS`` word, or an untagged/non-PTB ``'s``/``'`` that is no auxiliary.
- *word-external punctuation*: PTB punctuation tags including ``-LRB-``/``-RRB-``; for other
  labels a word made only of punctuation marks (``|3,456|`` is one word and stays).

When brackets are removed the OUTER label is kept (``(NP-s (PNP Miss Xydis))`` -> ``(NP-s Miss
Xydis)``), which is what the paper prints; the root bracket is always kept.
"""
from __future__ import annotations

from .transforms import BRACKET_TAGS, NONE_TAG, PUNCT_TAGS, base_label
from .tree import Node, Tree, delete_words, equal_trees, map_nodes, rebuild

_AUX_FORMS = frozenset("""
be am is are was were been being 's 're 'm ai
have has had having 've 'd
do does did
will would shall should can could may might must ought 'll wo ca
""".split())
_NOT_FORMS = frozenset({"not", "n't"})
_VERB_TAGS = frozenset({"MD", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
_ADVERB_TAGS = frozenset({"RB", "RBR", "RBS"})
_PTB_TAGS = frozenset("""
CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH
VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB # $ . , : `` '' -LRB- -RRB- -NONE-
""".split())
_PUNCT_TAGS = PUNCT_TAGS | BRACKET_TAGS
_PUNCT_CHARS = frozenset(".,;:!?'\"`-()[]{}/\u2018\u2019\u201c\u201d\u2013\u2014\u2026")


def _word_info(tree: Tree):
    """Per word: its label, whether that label is a one-word bracket (a tag), and phrase spans.

    A word alone in a bracket (``(NN dog)``, ``(VPAST did)``, ``(PP 0)``) takes that bracket's label
    as its tag and belongs to the phrase above; a word among siblings belongs to its bracket.
    ``scope`` is the span of the word's phrase, ``outer`` that of the phrase above it.
    """
    n = len(tree.words)
    label = [""] * n
    tagged = [False] * n
    scope = [(0, n)] * n
    outer = [(0, n)] * n
    parent: dict[int, Node] = {}
    holders: list[Node] = [tree.root] * n
    stack = [tree.root]
    while stack:
        nd = stack.pop()
        for c in nd.children:
            if type(c) is int:
                holders[c] = nd
            else:
                parent[id(c)] = nd
                stack.append(c)
    for i, h in enumerate(holders):
        label[i] = base_label(h.label)
        phrase = h
        if h.is_preterminal:
            tagged[i] = True
            phrase = parent.get(id(h), h)
        above = parent.get(id(phrase), phrase)
        scope[i] = (phrase.start, phrase.end)
        outer[i] = (above.start, above.end)
    return label, tagged, scope, outer


def erased_words(tree: Tree) -> tuple[frozenset[int], frozenset[int]]:
    """Positions of the words step one erases, and of those erased as auxiliaries/"not"/"to".

    Returns
    -------
    (erased, verbal)
        ``erased`` are all words to delete; ``verbal`` the subset whose erasure can leave an
        adverb behind (auxiliaries, "not", pre-infinitival "to").
    """
    words = tree.words
    label, tagged, scope, outer = _word_info(tree)
    lower = [w.lower() for w in words]
    n = len(words)

    def ptb(i):
        return tagged[i] and label[i] in _PTB_TAGS

    def is_adverb(i):
        return lower[i] in _NOT_FORMS or (label[i] in _ADVERB_TAGS if ptb(i) else label[i].startswith("ADV"))

    def is_aux_form(i):
        if ptb(i):
            return label[i] == "MD" or (label[i] in _VERB_TAGS and lower[i] in _AUX_FORMS)
        return lower[i] in _AUX_FORMS

    def is_verbal(i):
        if ptb(i):
            return label[i] in _VERB_TAGS
        return (tagged[i] and label[i].startswith("V")) or lower[i] in _AUX_FORMS

    def verb_follows(i):
        start, end = scope[i]
        if i + 1 >= end:                      # the word ends its phrase: look one phrase up
            start, end = outer[i]
        j = i + 1
        while j < end and is_adverb(j):
            j += 1
        return j < end and is_verbal(j)

    erased, verbal = set(), set()
    for i in range(n):
        w, lab = lower[i], label[i]
        if w in _NOT_FORMS:
            verbal.add(i)
        elif is_aux_form(i) and verb_follows(i):
            verbal.add(i)
        elif w == "to" and (lab == "TO" or not ptb(i)) and verb_follows(i):
            verbal.add(i)
        elif lab == NONE_TAG or (w == "0" and tagged[i] and not ptb(i)):
            erased.add(i)
        elif lab == "POS" or (not ptb(i) and w in ("'s", "'")):
            erased.add(i)
        elif (lab in _PUNCT_TAGS) if ptb(i) else all(ch in _PUNCT_CHARS for ch in words[i]):
            erased.add(i)
    erased |= verbal
    return frozenset(erased), frozenset(verbal)


def remove_trivial_brackets(tree: Tree) -> Tree:
    """Step two: erase, innermost first, brackets enclosing one constituent or one word.

    The outer label survives a merge; the root bracket is never erased.
    """

    def erase(n: Node, is_root: bool):
        if len(n.children) == 1:
            only = n.children[0]
            if type(only) is int:
                return n if is_root else (only,)
            return Node(n.label, only.children, only.start, only.end)
        return n

    return map_nodes(tree, erase, with_root=True)


def _attach_adverbs(tree: Tree, stranded: frozenset[int]) -> Tree:
    """Move each stranded one-word adverb into the verbal constituent right after it."""

    def verbal(c) -> bool:
        return type(c) is not int and base_label(c.label).startswith("V")

    def visit(n: Node, kids: list) -> Node:
        out: list = []
        k = 0
        while k < len(kids):
            c = kids[k]
            if type(c) is int and c in stranded and k + 1 < len(kids) and verbal(kids[k + 1]):
                nxt = kids[k + 1]
                out.append(Node(nxt.label, (c,) + nxt.children, c, nxt.end))
                k += 2
            else:
                out.append(c)
                k += 1
        first, last = out[0], out[-1]
        return Node(n.label, tuple(out), first if type(first) is int else first.start,
                    last + 1 if type(last) is int else last.end)

    return Tree(rebuild(tree.root, visit), tree.words)


def black_erase(tree: Tree, erasure: tuple[frozenset[int], frozenset[int]] | None = None) -> Tree | None:
    """Black et al.'s steps one and two, with the appendix's note on stranded adverbs.

    Parameters
    ----------
    tree
        A PTB tree (tags, function tags, empty elements allowed) or a tree in the paper's style
        (grammar-specific or no labels, words directly under phrases).
    erasure
        ``erased_words(other)`` of another tree over the same words, to erase the words *it*
        decides on: scoring erases a candidate's words as the standard parse's are erased, so a
        candidate whose tags or structure differ still keeps the same words.

    Returns
    -------
    Tree or None
        The reduced tree, or ``None`` if every word was erased.
    """
    erased, verbal = erasure if erasure is not None else erased_words(tree)
    label, tagged, _, _ = _word_info(tree)
    stranded_old = set()
    for i in range(len(tree.words)):
        if i in erased:
            continue
        adverb = label[i] in _ADVERB_TAGS or (not (tagged[i] and label[i] in _PTB_TAGS)
                                               and label[i].startswith("ADV"))
        if adverb and ((i - 1) in verbal or (i + 1) in verbal):
            stranded_old.add(i)
    reduced = delete_words(tree, lambda i: i not in erased)
    if reduced is None:
        return None
    kept = [i for i in range(len(tree.words)) if i not in erased]
    new_index = {old: new for new, old in enumerate(kept)}
    reduced = remove_trivial_brackets(reduced)
    if stranded_old:
        stranded = frozenset(new_index[i] for i in stranded_old)
        moved = _attach_adverbs(reduced, stranded)
        if not equal_trees(moved, reduced):
            reduced = remove_trivial_brackets(moved)
    return reduced
