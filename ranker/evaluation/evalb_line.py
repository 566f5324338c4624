"""One line of an EVALB input file read as ``evalb.c``'s ``read_line`` reads it, failure lines included.

Parsers that fail on a sentence print a bracket with no word instead of a tree: an empty line,
``(TOP)``, ``()``, ``(S1)``, ``( (TOP))``. The tree reader refuses such text (a bracket must cover a
word), but EVALB reads it, and so must a drop-in EVALB. Its rules, from ``read_line`` (checked
against the compiled ``evalb.c`` of 2006 on every case in ``tests/evaluation/test_evalb_lines.py``):

* ``(`` followed directly by a label and then ``)`` (``(TOP)``, ``()``, ``(S1 (S))``) opens a bracket
  that may end up covering no word; such a bracket is dropped, and a line left without a word is
  EVALB's *skip* sentence (as an empty line is);
* ``(`` LABEL, white space, then ``)`` (``( )``, ``(S1 )``) is a *terminal* whose word is empty: it
  counts as a word (a length or word mismatch, so an *error*), unless LABEL is a ``DELETE_LABEL``
  (``(TOP )`` with COLLINS.prm deletes it, so that line is a skip too).

* a word anywhere but straight after ``(`` LABEL and white space, closed at once by ``)``
  (``(NP John Smith)``, ``(NN w )``, ``(S (NN a)x)``) is what ``read_line`` reports as "More than
  two elements in a bracket" or "Reading sentence", after which EVALB loops on errors until it
  stops without a summary; we refuse the line with the word's position (the tree reader alone
  would read words under a phrase);
* a line may hold several top-level items one after another, as ``(P this) (Q is) (R a) (T test)``
  in EVALB's own ``sample.tst``: ``read_line`` reads them in order into one sentence (four words and
  no bracket there), so we return an :class:`EvalbLine` of several roots.

Every other line is read by :func:`ranker.trees.penn.parse_tree`; where the two disagree on text
EVALB itself rejects (unbalanced brackets, a word outside a terminal), the tree reader's error
(file:line:column) stands.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..trees.penn import TreeSyntaxError, parse_tree
from ..trees.tree import Node, Tree

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
#: ``read_line``'s tokens: an opening with its label (and, for a terminal, white space, the word and
#: ``)``), a closing, white space; group 1 is a word anywhere else, which EVALB reports an error on.
_EVALB_TOKENS = re.compile(r"\([^\s()]*+(?:\s++[^\s()]*+\))?|\)|\s++|([^\s()]++)")


class EvalbLine(NamedTuple):
    """A line of several top-level items (trees or bare terminals) over one word sequence, in order.

    EVALB reads such a line as one sentence whose brackets are those of every item; there is no
    bracket over the whole line, so it cannot be a :class:`~ranker.trees.tree.Tree`.
    """

    roots: tuple[Node, ...]
    words: tuple[str, ...]


def read_evalb_line(text: str, source: str = "<string>", line: int = 1) -> Tree | EvalbLine | None:
    """The tree EVALB reads from one line (an :class:`EvalbLine` when it holds several), or ``None``
    when the line holds no word (a skip).

    Parameters
    ----------
    text
        The line, without its newline.
    source, line
        File name and line number for error messages.

    Raises
    ------
    TreeSyntaxError
        For text neither reader accepts.
    """
    if not text.strip():
        return None
    try:
        tree = parse_tree(text, source, line)
    except TreeSyntaxError as error:
        try:
            tree = _as_evalb_reads(text)
        except ValueError:
            raise error from None
    for m in _EVALB_TOKENS.finditer(text):
        if m.group(1):
            raise TreeSyntaxError(f"word {m.group(1)!r} where EVALB reads a bracket: a bracket is a "
                                  "label and one word, or a label and brackets", source, line,
                                  m.start() + 1)
    return tree


def _as_evalb_reads(text: str) -> Tree | EvalbLine | None:
    """``read_line``'s reading of a line the tree reader refused; ``ValueError`` where EVALB errs too."""
    toks = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    n = len(toks)
    words: list[str] = []
    stack: list[tuple[str, list]] = []
    roots: list[Node] = []
    i = 0
    while i < n:
        tok, _, end = toks[i]
        if tok == "(":
            label, j = "", i + 1
            if j < n and toks[j][0] not in "()" and toks[j][1] == end:
                label, end = toks[j][0], toks[j][2]
                j += 1
            if end < len(text) and text[end].isspace():
                word = toks[j][0] if j < n and toks[j][0] not in "()" else ""
                k = j + 1 if word else j
                nxt = toks[k][0] if k < n else ""
                if nxt == ")":                       # a terminal, its word possibly empty
                    kid = Node(label, (len(words),), len(words), len(words) + 1)
                    words.append(word)
                    if not stack:
                        roots.append(kid)
                    else:
                        stack[-1][1].append(kid)
                    i = k + 1
                    continue
                if word or nxt != "(":
                    raise ValueError("more than two elements in a bracket")
            stack.append((label, []))
            i = j
        elif tok == ")":
            if not stack:
                raise ValueError("unbalanced")
            label, kids = stack.pop()
            built = Node(label, tuple(kids), kids[0].start, kids[-1].end) if kids else None
            if built is not None:
                (stack[-1][1] if stack else roots).append(built)
            i += 1
        else:
            raise ValueError("a word outside a terminal")
    if stack or not toks:
        raise ValueError("unbalanced")
    if not roots:
        return None
    if len(roots) == 1:
        return Tree(roots[0], tuple(words))
    return EvalbLine(tuple(roots), tuple(words))
