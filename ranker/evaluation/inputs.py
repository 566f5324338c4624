"""Reading the GOLD and TEST files of ``ranker evaluate``: trees by line, or CoNLL/Malt dependencies.

A tree file is read in one of two ways, decided by its first non-empty line:

* **one tree per line** (EVALB's format) when that line is a complete bracketing: every line then
  holds exactly one tree, and an *empty line means "no parse"* (``None``), as ``write_trees``
  writes it; so does a line of brackets without a word that parsers print when they fail
  (``(TOP)``, ``()``, ``(S1 (S))``: what EVALB reads as a skip, see :mod:`.evalb_line`);
* **free layout** otherwise (treebank ``.mrg`` files, trees over several lines): trees are read
  wherever their line breaks fall and blank lines mean nothing.

Errors name the file and line (and column, for malformed brackets). A gold file may not have a
"no parse" line.

``notation="black"`` reads Black et al.'s (1991) own notation, ``((The prospect) (of (cutting back
spending)))``: unlabelled brackets over bare words (every token is a word, every label ``""``).
There a one-per-line sentence may be a sequence of brackets and words, ``(will probably have)
(seen Milton)``, which an implicit sentence bracket then encloses. Gold dependency files (``.dp``, ``.conll``, ``.conllu``, ``.malt``) are read as
blank-line separated blocks of Malt (word tag head [relation]) or CoNLL-X/U (ten columns) lines.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from ..errors import RankerError
from ..textfiles import read_text
from ..trees.dependencies import Dependency
from ..trees.penn import TreeSyntaxError, iter_trees, parse_tree
from ..trees.tree import Tree
from .evalb_line import read_evalb_line

#: File name endings read as dependency text rather than trees.
CONLL_SUFFIXES = (".dp", ".conll", ".conllu", ".conllx", ".malt")


class EvaluationInputError(RankerError, ValueError):
    """GOLD/TEST input that cannot be scored; the message names the file and the line."""


class TreeLine(NamedTuple):
    """A tree (or ``None``: no parse) and the line where it starts."""

    line: int
    tree: Tree | None


class ConllSentence(NamedTuple):
    """One sentence of a dependency file: its first line, words, tags and arcs (0-based, root -1)."""

    line: int
    words: tuple[str, ...]
    tags: tuple[str, ...]
    deps: tuple[Dependency, ...]


def _balanced(line: str) -> bool:
    depth = 0
    for ch in line:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


NOTATIONS = ("penn", "black")


def _black_line(text: str, source: str, line: int) -> Tree:
    """One line of Black et al.'s notation; several top-level items get an implicit root bracket."""
    depth, items = 0, 0
    for m in _ITEM.finditer(text):
        t = m.group()
        if depth == 0 and t != ")":
            items += 1
        depth += (t == "(") - (t == ")")
    if items <= 1:
        return parse_tree(text, source, line, labelled=False)
    # the added brackets stand on lines of their own, so error positions stay those of the file
    return parse_tree("(\n" + text + "\n)", source, line - 1, labelled=False)


_ITEM = re.compile(r"\(|\)|[^\s()]+")


def read_tree_lines(path: str | Path, allow_no_parse: bool = True,
                    notation: str = "penn") -> list[TreeLine]:
    """Every tree of a file with its line number; ``None`` for an empty line in a one-per-line file.

    Parameters
    ----------
    path
        The file.
    allow_no_parse
        False for gold files: an empty line among one-per-line trees is then an error.
    notation
        ``"penn"`` (a bracket's first token is its label) or ``"black"`` (no labels, see above).

    Returns
    -------
    list of TreeLine

    Raises
    ------
    TreeSyntaxError
        For malformed brackets (file:line:column).
    EvaluationInputError
        For an empty line where no parse is allowed.
    """
    text = read_text(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()                       # the final newline ends the last line, it adds none
    first = next((ln for ln in lines if ln.strip()), None)
    if first is None:
        return []
    labelled = notation == "penn"
    if not one_tree_per_line(first):
        return [TreeLine(n, t) for n, t in iter_trees(text, str(path), with_lines=True,
                                                      labelled=labelled)]
    return [TreeLine(n, tree_of_line(ln, path, n, allow_no_parse, notation))
            for n, ln in enumerate(lines, 1)]


def one_tree_per_line(first_line: str) -> bool:
    """Whether a file whose first non-empty line is this holds one tree per line (else free layout)."""
    return _balanced(first_line)


def tree_of_line(ln: str, path: str | Path, n: int, allow_no_parse: bool = True,
                 notation: str = "penn") -> Tree | None:
    """Line ``n`` of a one-tree-per-line file as :func:`read_tree_lines` reads it (``None``: no parse)."""
    if not ln.strip():
        if not allow_no_parse:
            raise EvaluationInputError(f"{path}:{n}: empty line where a gold tree is expected")
        return None
    if notation != "penn":
        return _black_line(ln, str(path), n)
    try:
        return parse_tree(ln, str(path), n)
    except TreeSyntaxError:
        # a parser's failure line holds no word: no parse, like an empty line
        if not allow_no_parse or read_evalb_line(ln, str(path), n) is not None:
            raise
        return None


def is_conll_path(path: str | Path) -> bool:
    """Whether a file is read as dependencies (by its name's ending)."""
    return str(path).lower().endswith(CONLL_SUFFIXES)


def _conll_block(path, rows: list[tuple[int, list[str]]]) -> ConllSentence:
    words, tags, heads, rels = [], [], [], []
    for n, f in rows:
        if len(f) in (3, 4):
            w, t, h, r = f[0], f[1], f[2], (f[3] if len(f) == 4 else "")
        elif len(f) >= 8:
            if not f[0].isdigit():        # CoNLL-U multi-word token or empty node: not a word
                continue
            w, t, h, r = f[1], f[4] if f[4] != "_" else f[3], f[6], f[7]
        else:
            raise EvaluationInputError(f"{path}:{n}: expected 3 or 4 (Malt) or 10 (CoNLL) "
                                       f"tab-separated columns, found {len(f)}")
        if not h.lstrip("-").isdigit():
            raise EvaluationInputError(f"{path}:{n}: head {h!r} is not a number")
        words.append(w)
        tags.append(t)
        heads.append((n, int(h)))
        rels.append("" if r == "_" else r)
    size = len(words)
    deps = []
    for k, ((n, h), r) in enumerate(zip(heads, rels)):
        if not 0 <= h <= size:
            raise EvaluationInputError(f"{path}:{n}: head {h} outside the sentence's {size} words")
        deps.append(Dependency(h - 1, k, r))
    return ConllSentence(rows[0][0], tuple(words), tuple(tags), tuple(deps))


def read_conll(path: str | Path) -> list[ConllSentence]:
    """Every sentence of a Malt or CoNLL dependency file (blank lines separate sentences).

    Relations are ``""`` where the file has none (Malt's three columns); ``#`` comment lines of
    CoNLL-U are skipped.

    Raises
    ------
    EvaluationInputError
        For a line with the wrong number of columns or a head that is not a word of its sentence.
    """
    text = read_text(path)
    out: list[ConllSentence] = []
    block: list[tuple[int, list[str]]] = []
    for n, ln in enumerate(text.split("\n"), 1):
        if ln.startswith("#"):
            continue
        if not ln.strip():
            if block:
                out.append(_conll_block(path, block))
                block = []
            continue
        f = ln.rstrip("\r").split("\t")
        if len(f) == 1:
            f = ln.split()
        block.append((n, f))
    if block:
        out.append(_conll_block(path, block))
    return out
