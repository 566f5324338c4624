"""The property families of discriminative parse rerankers, over our immutable trees.

After Charniak and Johnson (2005, section 4; "Coarse-to-fine n-best parsing and MaxEnt
discriminative reranking", ACL), and, for ``redwoods_rules/1``, Toutanova et al. (2005, "Stochastic
HPSG parse disambiguation using the Redwoods corpus", Research on Language and Computation). Names
start with a short prefix per family so that families never collide; categories are base labels,
words are lower-cased; lexical properties come with backed-off twins (tags, and the shape and
suffix classes of :mod:`ranker.features.wordclass`), so that unseen words still fire something.

Most families are :class:`~ranker.features.base.NodeFamily`: what they say about a node depends on its
subtree, its parent's category and the sentence's words only, so extraction computes it once per
distinct subtree of a forest. Properties that need more context are emitted at the node that has
it: a node's rule with its grandparent is emitted by its parent (which knows its own parent), a
word with three ancestors by its grandparent, and the root emits what has fewer ancestors than
asked, the chain ending in ``TOP``. Two families look at tags outside the node (``neighbours/1``)
or the whole tree (``right_branch/1``) and run once per distinct tree instead.
"""
from __future__ import annotations

from .base import CATEGORY, Family, NodeFamily, facts, named
from .families import child_label
from .wordclass import is_punctuation

_LEXICAL = ("tag", "word", "class")


def descendants(n, depth: int, words: bool = False) -> list:
    """``(x, chain)`` for the nodes (or, with ``words``, word positions) ``depth`` levels below ``n``.

    ``chain`` holds the categories from ``x``'s parent up to ``n``, parent first (``()`` for
    ``n`` itself at depth 0).
    """
    level = [(n, ())]
    out = []
    for step in range(depth):
        last = step == depth - 1
        nxt = []
        for x, chain in level:
            c = (CATEGORY[x.label],) + chain
            for k in x.children:
                if type(k) is int:
                    if words and last:
                        out.append((k, c))
                elif not (words and last):
                    nxt.append((k, c))
        level = nxt
    return out if words else level


def ancestor_chains(n, up: str, k: int, words: bool = False):
    """``(x, chain of k ancestors)`` for what ``n`` is the (k-1)-th ancestor of, ``up`` the k-th.

    At the root (``up == "TOP"``) also what has fewer than ``k`` ancestors, its chain ending in
    ``TOP``; so over a whole tree every node (word) is yielded exactly once.
    """
    first = 1 if words else 0
    for x, chain in descendants(n, k - 1, words) if k - 1 >= first else ():
        yield x, chain + (up,)
    if up == "TOP":
        for d in range(first, k - 1):
            for x, chain in descendants(n, d, words):
                yield x, chain + ("TOP",)


def heavy_bin(n: int) -> str:
    """Constituent length bins of Charniak and Johnson's Heavy: 1-4 exactly, then 5-6 .. 21+."""
    return str(n) if n <= 4 else "5-6" if n <= 6 else "7-10" if n <= 10 else "11-20" if n <= 20 else "21+"


def diff_bin(d: int) -> str:
    """Bins of a length difference: 0, 1, 2, 3-4, 5-8, 9+."""
    return str(d) if d <= 2 else "3-4" if d <= 4 else "5-8" if d <= 8 else "9+"


_TAIL: list = [None, 0]


def content_end(words: tuple) -> int:
    """One past the last word that is not punctuation (0 if every word is)."""
    if _TAIL[0] is not words:
        k = len(words)
        while k and is_punctuation(words[k - 1]):
            k -= 1
        _TAIL[0], _TAIL[1] = words, k
    return _TAIL[1]


def check_lexical(lexical, allowed: tuple = _LEXICAL) -> tuple:
    """The ``lexical`` option as a tuple; TypeError (an option error in configs) for a kind not allowed."""
    bad = [x for x in lexical if x not in allowed]
    if bad:
        raise TypeError(f"lexical must be drawn from {allowed}, not {bad}")
    return tuple(lexical)


def maximal_projections(n, up: str, head_child: dict) -> list:
    """``(node, its parent's category)`` of the nodes whose maximal projection ``n`` makes known.

    The non-head children of ``n`` are maximal projections of their heads, and so is the root.
    """
    k = CATEGORY[n.label]
    out = [(c, k) for i, c in enumerate(n.children) if i != head_child[id(n)] and type(c) is not int]
    if up == "TOP":
        out.append((n, "TOP"))
    return out


class _HeadedFamily(NodeFamily):
    """A node family that needs heads (a head-rule table) and offers lexical variants."""

    def __init__(self, lexical: tuple = (), rules: str = "collins"):
        self.lexical = check_lexical(lexical)
        self.rules = rules


@named("rule/1")
class Rule(_HeadedFamily):
    """Local trees with ``ancestors`` ancestors' categories, optionally with the head's tag, word, class (CJ05 Rule)."""

    def __init__(self, ancestors: int = 2, lexical: tuple = (), rules: str = "collins"):
        if not 0 <= ancestors <= 3:
            raise TypeError(f"ancestors must be 0..3, not {ancestors}")
        super().__init__(lexical, rules)
        self.levels = (ancestors,)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        f = facts(t)
        tags = f.tags
        heads = f.heads(self.rules)[1] if self.lexical else None
        lex = [(kind[0], f.lexical()[kind]) for kind in self.lexical]
        for k in self.levels:
            for x, chain in ancestor_chains(n, up, k) if k else ((n, ()),):
                if x.is_preterminal:
                    continue
                name = (f"R{k}:{CATEGORY[x.label]}->{' '.join(child_label(c, tags) for c in x.children)}"
                        + (f"^{'^'.join(chain)}" if chain else ""))
                yield (name, 1.0)
                for ch, forms in lex:
                    yield (f"{name}@{ch}={forms[heads[id(x)]]}", 1.0)


@named("redwoods_rules/1")
class RedwoodsRules(Rule):
    """Local trees with grandparenting by every number of ancestors up to ``ancestors`` (Toutanova et al. 2005)."""

    def __init__(self, ancestors: int = 3, lexical: tuple = (), rules: str = "collins"):
        super().__init__(ancestors, lexical, rules)
        self.levels = tuple(range(ancestors + 1))


@named("ngram/1")
class NGram(NodeFamily):
    """Sibling category n-grams (n = 2, 3) with the head child marked ``*`` and the side of the head (CJ05 NGram)."""

    children_only = True

    def __init__(self, n: tuple = (2, 3), rules: str = "collins"):
        self.n = tuple(n)
        self.rules = rules

    def node_properties(self, p, up, t):
        if p.is_preterminal:
            return
        f = facts(t)
        h = f.heads(self.rules)[0][id(p)] + 1   # position in seq
        seq = ["<"] + [child_label(k, f.tags) for k in p.children] + [">"]
        seq[h] = "*" + seq[h]
        k = CATEGORY[p.label]
        for m in self.n:
            for i in range(len(seq) - m + 1):
                side = "H" if i <= h < i + m else "L" if i + m <= h else "R"
                yield (f"NG{m}:{k}:{side}:{' '.join(seq[i:i + m])}", 1.0)


def _dependents(m, hc, hw):
    """Head words of the dependents of ``m``'s head word inside ``m`` (down its head path)."""
    while type(m) is not int and not m.is_preterminal:
        j = hc[id(m)]
        for i, c in enumerate(m.children):
            if i != j:
                yield c if type(c) is int else hw[id(c)]
        m = m.children[j]


@named("heads/1")
class Heads(_HeadedFamily):
    """Head-to-head dependencies by tag, word and word class, one level and two (CJ05 Heads).

    One level: head and dependent (with the dependent's side); two levels: head, dependent and a
    dependent of the dependent (tags and classes only, words would be too sparse).
    """

    def __init__(self, lexical: tuple = ("tag", "word", "class"), two_levels: bool = True,
                 rules: str = "collins"):
        super().__init__(lexical, rules)
        self.two_levels = two_levels

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        f = facts(t)
        hc, hw = f.heads(self.rules)
        h, j = hw[id(n)], hc[id(n)]
        forms = f.lexical()
        lex = [(kind[0], forms[kind]) for kind in self.lexical]
        backed = [(ch, x) for ch, x in lex if ch != "w"]   # two levels: words would be too sparse
        mixed = "tag" in self.lexical and "word" in self.lexical
        tag, word = forms["tag"], forms["word"]
        for i, k in enumerate(n.children):
            if i == j:
                continue
            d = k if type(k) is int else hw[id(k)]
            a = "<" if d < h else ">"
            for ch, x in lex:
                yield (f"H1{ch}:{x[h]}{a}{x[d]}", 1.0)
            if mixed:   # word-tag and tag-word: one side lexical, the other backed off
                yield (f"H1wt:{word[h]}{a}{tag[d]}", 1.0)
                yield (f"H1tw:{tag[h]}{a}{word[d]}", 1.0)
            if self.two_levels and type(k) is not int:
                for e in _dependents(k, hc, hw):
                    b = "<" if e < d else ">"
                    for ch, x in backed:
                        yield (f"H2{ch}:{x[h]}{a}{x[d]}{b}{x[e]}", 1.0)


@named("pp_attach/1")
class PPAttach(_HeadedFamily):
    """A PP with the phrase it attaches to: site category and head, preposition, object head (Hindle and Rooth 1993; Collins and Brooks 1995).

    Emitted by the attachment site for each PP child: the site's category with the preposition
    (lower-cased, always lexical), then with the site's head, the object's head and both (each by
    every ``lexical`` kind: tag, word, word class, so unseen words back off), and the binned distance
    in words from the site's head to the PP. Heads (``heads/1``) sees the site-preposition pair but
    never the object beside it, nor the category the PP attaches to; on held-out a quarter of the
    gold PP brackets of Link Grammar's forests are lost to the oracle (experiments/ablation).
    """

    def __init__(self, lexical: tuple = ("tag", "word", "class"), rules: str = "collins"):
        super().__init__(lexical, rules)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        f = facts(t)
        hc, hw = f.heads(self.rules)
        lex = [(kind[0], f.lexical()[kind]) for kind in self.lexical]
        site, h = CATEGORY[n.label], hw[id(n)]
        for k in n.children:
            if type(k) is int or k.is_preterminal or CATEGORY[k.label] != "PP":
                continue
            p = hw[id(k)]
            prep = t.words[p].lower()
            j = hc[id(k)]
            objs = [c for i, c in enumerate(k.children) if i > j and type(c) is not int]
            o = hw[id(objs[0])] if objs else None
            yield (f"PA:{site}:{prep}", 1.0)
            yield (f"PA:{site}:{prep}:d{diff_bin(max(0, k.start - h - 1))}", 1.0)
            for ch, x in lex:
                yield (f"PAh{ch}:{site}:{x[h]}:{prep}", 1.0)
                if o is not None:
                    ob = x[o]
                    yield (f"PAo{ch}:{site}:{prep}:{ob}", 1.0)
                    yield (f"PAq{ch}:{site}:{x[h]}:{prep}:{ob}", 1.0)


@named("head_tree/1")
class HeadTree(_HeadedFamily):
    """The tree fragment from a word up through its projections with their children's categories (CJ05 HeadTree)."""

    def __init__(self, lexical: tuple = ("word",), rules: str = "collins"):
        super().__init__(lexical, rules)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        f = facts(t)
        tags = f.tags
        hc, hw = f.heads(self.rules)
        for m, _ in maximal_projections(n, up, hc):
            if m.is_preterminal:
                continue
            w = hw[id(m)]
            parts = []
            while type(m) is not int and not m.is_preterminal:
                j = hc[id(m)]
                labels = [child_label(c, tags) for c in m.children]
                labels[j] = "*" + labels[j]
                parts.append(f"{CATEGORY[m.label]}({' '.join(labels)})")
                m = m.children[j]
            name = f"HT:{' '.join(parts)}"
            yield (name, 1.0)
            for kind in self.lexical:
                yield (f"{name}@{kind[0]}={f.lexical()[kind][w]}", 1.0)


def _spine(x, side: int) -> str:
    """Categories from ``x`` down its first (``side`` 0) or last (-1) children to a word."""
    parts = []
    while type(x) is not int:
        parts.append(CATEGORY[x.label])
        x = x.children[side]
    return ">".join(parts) or "WORD"


@named("ngram_tree/1")
class NGramTree(NodeFamily):
    """The fragment joining two adjacent words at their lowest common ancestor (CJ05 NGramTree, bigrams)."""

    def __init__(self, words: bool = False):
        self.words = words

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        k = CATEGORY[n.label]
        kids = n.children
        for a, b in zip(kids, kids[1:]):
            name = f"NT:{k}({_spine(a, -1)} {_spine(b, 0)})"
            yield (name, 1.0)
            if self.words:
                end = a if type(a) is int else a.end - 1
                word = facts(t).lexical()["word"]
                yield (f"{name}@{word[end]}_{word[end + 1]}", 1.0)


@named("heavy/1")
class Heavy(NodeFamily):
    """A phrase's category, binned length, whether it ends the sentence and whether punctuation follows (CJ05 Heavy)."""

    def node_properties(self, n, up, t):
        if n.is_preterminal or up == "TOP":
            return
        words = t.words
        final = "E" if n.end >= content_end(words) else "-"
        punct = "P" if n.end < len(words) and is_punctuation(words[n.end]) else "-"
        yield (f"HV:{CATEGORY[n.label]}:{heavy_bin(n.end - n.start)}:{final}{punct}", 1.0)


@named("neighbours/1")
class Neighbours(Family):
    """A phrase's category and binned length with the tags just before (one or two) and after it (CJ05 Neighbours).

    The tags outside a phrase belong to the rest of the tree, so this family runs once per
    distinct tree, not per subtree.
    """

    per_tree = True

    def __init__(self, before: int = 2):
        if before not in (1, 2):
            raise TypeError(f"before must be 1 or 2, not {before}")
        self.before = before

    def __call__(self, c):
        t = c.tree
        f = facts(t)
        tags = f.tags
        size = len(tags)
        root = t.root
        for n in f.phrases:
            if n is root:
                continue
            a, b = n.start, n.end
            prev = (tags[a - 1] or "WORD") if a > 0 else "<s>"
            nxt = (tags[b] or "WORD") if b < size else "</s>"
            head = f"NB:{CATEGORY[n.label]}:{heavy_bin(b - a)}:"
            yield (f"{head}{prev}_{nxt}", 1.0)
            if self.before == 2:
                prev2 = (tags[a - 2] or "WORD") if a > 1 else "<s>"
                yield (f"{head}{prev2} {prev}_{nxt}", 1.0)


@named("right_branch/1")
class RightBranch(Family):
    """Phrases on the path from the root to the last non-punctuation word, and phrases off it (CJ05 RightBranch)."""

    per_tree = True

    def __call__(self, c):
        t = c.tree
        f = facts(t)
        j = max(content_end(t.words), 1) - 1
        on, m = 0, t.root
        while type(m) is not int and not m.is_preterminal:
            on += 1
            m = next(k for k in m.children if (k == j if type(k) is int else k.start <= j < k.end))
        yield ("RB:on", float(on))
        yield ("RB:off", float(len(f.phrases) - on))


def conjuncts(n, tags, conjunctions: frozenset) -> list:
    """The conjuncts of a coordinated phrase (children other than conjunctions and punctuation)."""
    labels = [child_label(k, tags) for k in n.children]
    if not any(lab in conjunctions for lab in labels):
        return []
    return [k for k, lab in zip(n.children, labels) if type(k) is not int and lab not in conjunctions
            and not (k.is_preterminal and lab in _PUNCT_TAGS)]


_PUNCT_TAGS = frozenset({",", ":", ".", "``", "''", "-LRB-", "-RRB-"})


def _shape(x, depth: int):
    """Categories of ``x`` and its descendants down to ``depth`` levels (1: ``x``'s own)."""
    if type(x) is int:
        return "W"
    if depth == 1 or x.is_preterminal:
        return CATEGORY[x.label]
    return (CATEGORY[x.label], tuple(_shape(k, depth - 1) for k in x.children))


@named("copar/1")
class CoPar(NodeFamily):
    """Whether adjacent conjuncts are parallel (equal categories) down to depths 1-4 (CJ05 CoPar)."""

    def __init__(self, depth: int = 4, conjunctions: tuple = ("CC", "CONJP")):
        self.depth = depth
        self.conjunctions = frozenset(conjunctions)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        conj = conjuncts(n, facts(t).tags, self.conjunctions)
        for a, b in zip(conj, conj[1:]):
            for d in range(1, self.depth + 1):
                same = _shape(a, d) == _shape(b, d)
                yield (f"CP:{d}:{'par' if same else 'non'}", 1.0)
                if not same:   # deeper levels cannot be parallel either
                    for e in range(d + 1, self.depth + 1):
                        yield (f"CP:{e}:non", 1.0)
                    break


@named("colenpar/1")
class CoLenPar(NodeFamily):
    """Length difference of adjacent conjuncts and whether the second is the last (CJ05 CoLenPar)."""

    children_only = True

    def __init__(self, conjunctions: tuple = ("CC", "CONJP")):
        self.conjunctions = frozenset(conjunctions)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        conj = conjuncts(n, facts(t).tags, self.conjunctions)
        for i, (a, b) in enumerate(zip(conj, conj[1:])):
            d = abs((a.end - a.start) - (b.end - b.start))
            yield (f"CL:{diff_bin(d)}:{'last' if i == len(conj) - 2 else 'mid'}", 1.0)


@named("word/1")
class Word(NodeFamily):
    """A word (and its class) with its n ancestors' categories, tag first (CJ05 Word, n = 2, 3)."""

    def __init__(self, ancestors: tuple = (2, 3), lexical: tuple = ("word", "class")):
        bad = [k for k in ancestors if not 2 <= k <= 4]
        if bad:
            raise TypeError(f"ancestors must be 2..4, not {bad}")
        self.ancestors = tuple(ancestors)
        self.lexical = check_lexical(lexical)

    def node_properties(self, n, up, t):
        forms = facts(t).lexical()
        lex = [(kind[0], forms[kind]) for kind in self.lexical]
        for k in self.ancestors:
            for w, chain in ancestor_chains(n, up, k, words=True):
                path = "^".join(chain)
                for ch, x in lex:
                    yield (f"W{k}{ch}:{x[w]}^{path}", 1.0)


@named("wproj/1")
class WProj(_HeadedFamily):
    """A word with its maximal projection and that projection's parent, by word, tag and class (CJ05 WProj)."""

    def __init__(self, lexical: tuple = ("word", "tag", "class"), rules: str = "collins"):
        super().__init__(lexical, rules)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        f = facts(t)
        hc, hw = f.heads(self.rules)
        lex = [(kind[0], f.lexical()[kind]) for kind in self.lexical]
        for m, parent in maximal_projections(n, up, hc):
            w = hw[id(m)]
            proj = CATEGORY[m.label]
            for ch, x in lex:
                yield (f"WP{ch}:{x[w]}:{proj}^{parent}", 1.0)


@named("edges/2")
class EdgesOutside(NodeFamily):
    """A phrase's binned length with its edge tags, the words just outside it, and their classes (CJ05 Edges).

    Version 2 of ``edges/1``: adds the words (and word classes) just before and after the phrase.
    """

    def __init__(self, lexical: tuple = ("word", "class")):
        self.lexical = check_lexical(lexical)

    def node_properties(self, n, up, t):
        if n.is_preterminal or up == "TOP":
            return
        tags = facts(t).tags
        a, b = n.start, n.end
        head = f"E2:{CATEGORY[n.label]}:{heavy_bin(b - a)}:"
        yield (f"{head}{tags[a] or 'WORD'}..{tags[b - 1] or 'WORD'}", 1.0)
        forms = facts(t).lexical()
        for kind in self.lexical:
            x = forms[kind]
            prev = x[a - 1] if a > 0 else "<s>"
            nxt = x[b] if b < len(t.words) else "</s>"
            yield (f"{head}{kind[0]}<{prev}", 1.0)
            yield (f"{head}{kind[0]}>{nxt}", 1.0)
