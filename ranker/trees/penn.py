"""Reading and writing Penn bracketed text.

One reader serves every caller (treebank ``.mrg`` files with the empty root ``( (S ...) )``, one
tree per line, EVALB input, n-best lists, Link Grammar's constituent strings), so it is written for
speed: one regular-expression pass to tokenize, one loop with an explicit stack. Positions are only
recomputed when something is wrong, to name the file, line and column in the error. The text of
one tree (:func:`~ranker.trees.tree.format_tree`) is the tree's own, in :mod:`ranker.trees.tree`.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import RankerError
from ..textfiles import read_text
from .tree import Node, Tree, format_tree

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
#: Labelled text's tokens as :func:`iter_trees` reads them: a bracket over one word whole (``(DT the)``),
#: an opening bracket with its label (``(NP``), then as :data:`_TOKEN`. Half the tokens of a tree
#: are its preterminals' four: one token each here, so the reading loop turns half as often.
_PHRASE_TOKEN = re.compile(r"\(\s*[^\s()]+\s+[^\s()]+\s*\)|\(\s*[^\s()]+|\(|\)|[^\s()]+")

#: Bracket tokens (and their tags) as the Penn Treebank writes them.
PTB_ESCAPES = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"}


def escape_token(token: str) -> str:
    """A word or tag as Penn text can hold it: a round bracket, the token or within it (``f(x)``, a
    tag ``N(N``), written as the Penn Treebank writes it (``-LRB-``, ``-RRB-``).

    A ``(`` left in a word made a tree no reader takes back (``(S ( (NP x ))``): every reader of
    words a user brings goes through here (text as tokens or ``word/TAG``). Square and curly
    brackets are kept as given: Penn text holds them, and treebanks differ (GUM writes ``[``), so a
    user's tokens stay the treebank's own.
    """
    if "(" in token or ")" in token:
        return token.replace("(", "-LRB-").replace(")", "-RRB-")
    return token


def ptb_token(token: str) -> str:
    """A token of text tokenized here, or of a corpus that writes brackets raw (CoNLL-2000), with the
    Penn Treebank's names for all six brackets (:data:`PTB_ESCAPES`), as a treebank-trained model saw
    them; then :func:`escape_token`."""
    return escape_token(PTB_ESCAPES.get(token, token))


class TreeSyntaxError(RankerError, ValueError):
    """Malformed bracketed text; ``str()`` reads ``source:line:column: message``."""

    def __init__(self, message: str, source: str, line: int, column: int):
        super().__init__(f"{source}:{line}:{column}: {message}")
        self.message, self.source, self.line, self.column = message, source, line, column


def _position(text: str, token_index: int) -> tuple[int, int]:
    """Line and column (both 1-based) of the ``token_index``-th token, or of the end of text."""
    offset = len(text)
    for k, m in enumerate(_TOKEN.finditer(text)):
        if k == token_index:
            offset = m.start()
            break
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _fail(text: str, source: str, token_index: int, message: str, line_offset: int):
    line, column = _position(text, token_index)
    raise TreeSyntaxError(message, source, line + line_offset, column)


def iter_trees(text: str, source: str = "<string>", *, line_offset: int = 0,
               with_lines: bool = False, shared: dict | None = None,
               labelled: bool = True) -> Iterator:
    """Yield every tree in ``text`` (whitespace between trees is free, newlines included).

    Parameters
    ----------
    text
        Bracketed text holding zero or more trees.
    source
        Name used in error messages (usually the file name).
    line_offset
        Added to reported line numbers, for callers that parse a slice of a larger file.
    with_lines
        Yield ``(line, tree)`` pairs, ``line`` being where the tree's first bracket stands.
    shared
        Equal subtrees (and equal word sequences) of every tree read with the same dict become
        one object. The linkages of a sentence repeat most of their subtrees (on the WSJ sample
        11.7 node occurrences per distinct subtree), so work memoised by node identity (feature
        extraction) is done once per distinct subtree.
    labelled
        False reads Black et al.'s (1991) notation, ``((The prospect) (of (cutting back
        spending)))``: no bracket has a label (every label is ``""``) and every token is a word.
        In Penn syntax the first token after ``(`` is a label, so ``The`` would be read as one.

    Raises
    ------
    TreeSyntaxError
        For unbalanced brackets, a bracket with no word or child, or text outside any bracket.
    """
    toks = (_PHRASE_TOKEN if labelled else _TOKEN).findall(text)
    new = tuple.__new__   # a Node without its named tuple's Python-level __new__
    stack: list[tuple[str, list, int]] = []
    words: list[str] = []
    for i, t in enumerate(toks):
        if t == ")":
            if not stack:
                _fail(text, source, _token_index(toks, i), "unmatched ')'", line_offset)
            label, kids, opened = stack.pop()
            if not kids:
                what = f"bracket ({label}) has no word or child" if label else "empty bracket ()"
                _fail(text, source, _token_index(toks, opened), what, line_offset)
            first, last = kids[0], kids[-1]
            nd = new(Node, (label, tuple(kids), first if type(first) is int else first.start,
                            last + 1 if type(last) is int else last.end))
        elif t[0] == "(":
            if t[-1] != ")":           # "(" or "(LABEL": a bracket opens
                stack.append((t[1:].lstrip(), [], i))
                continue
            label, word = t[1:-1].split()   # "(TAG word)": a bracket over one word, whole
            opened, w = i, len(words)
            words.append(word)
            nd = new(Node, (label, (w,), w, w + 1))
        else:
            if not stack:
                _fail(text, source, _token_index(toks, i), f"stray text {t!r} outside any bracket", line_offset)
            stack[-1][1].append(len(words))
            words.append(t)
            continue
        if shared is not None:
            nd = shared.setdefault(nd, nd)   # children are shared already: cheap equality
        if stack:
            stack[-1][1].append(nd)
        else:
            seq = tuple(words)
            if shared is not None:
                seq = shared.setdefault(seq, seq)
            tree = Tree(nd, seq)
            words = []
            if with_lines:
                yield _position(text, _token_index(toks, opened))[0] + line_offset, tree
            else:
                yield tree
    if stack:
        _fail(text, source, _token_index(toks, stack[-1][2]), "unclosed bracket: missing ')'", line_offset)


def _token_index(toks: list[str], i: int) -> int:
    """The number of :data:`_TOKEN`'s tokens before ``toks[i]`` (where messages count from)."""
    return sum(len(_TOKEN.findall(t)) for t in toks[:i])


def parse_tree(text: str, source: str = "<string>", line: int = 1, shared: dict | None = None,
               labelled: bool = True) -> Tree:
    """Parse exactly one tree (a line of an EVALB file, a Link Grammar constituent string).

    ``shared``, ``labelled``: as for :func:`iter_trees`.
    """
    trees = list(iter_trees(text, source, line_offset=line - 1, shared=shared, labelled=labelled))
    if len(trees) != 1:
        raise TreeSyntaxError(f"expected one tree, found {len(trees)}", source, line, 1)
    return trees[0]


def read_trees(path: str | Path) -> list[Tree]:
    """Every tree in a file, wherever its line breaks fall."""
    return list(iter_trees(read_text(path), str(path)))


def write_trees(path: str | Path, trees: Iterable[Tree | None]) -> None:
    """Write one tree per line; ``None`` writes an empty line (EVALB's 'no parse').

    The file is replaced only once complete (:func:`ranker.atomicfile.atomic_write`).
    """
    from ..atomicfile import atomic_write

    with atomic_write(path) as f:
        for t in trees:
            f.write("" if t is None else format_tree(t))
            f.write("\n")
