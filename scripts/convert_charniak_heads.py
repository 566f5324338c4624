"""Convert the BLLIP (Charniak) parser's ``headInfo.txt`` into ranker's head-rule table format.

Usage::

    python3 scripts/convert_charniak_heads.py ../shared/heads/charniak-headInfo.txt \\
        > configs/heads/charniak.txt

Why a conversion and not a port: ``headInfo.txt`` holds only two lists of (parent, child) label
pairs; what they mean is in the parser's ``first-stage/TRAIN/headFinder.C`` (``headPriority`` and
``headPosFromTreeEn``). Each child gets a priority class, best first:

1. (parent, child) is listed under ``1``;
2. the child has the parent's label (``NP -> NP , NP``);
3. (parent, child) is listed under ``2``;
4. a part-of-speech tag that is not punctuation;
5. a phrase other than ``PP``;
6. a ``PP``;
7. anything else (punctuation).

Children are scanned left to right and one of equal or better class replaces the current choice,
so the RIGHTMOST child of the best class heads the phrase, with two exceptions written into that
code: in class 2 a later child is refused once one was found (the LEFTMOST same-label child wins),
and in a ``PP`` the first class-1 child is kept (the first preposition). In our table format each
class is one pass, ``rightdis`` (or ``leftdis`` for those two exceptions), tried in class order: the
first pass that finds a child wins, which is exactly "best class first". Labels the parser knows
(its ``DATA/EN/terms.txt``) get their own block; ``*`` covers any other label with classes 2-7.
Punctuation is the parser's: the terms of class above 2 in ``terms.txt``. The parser maps the
empty treebank root to ``S1``; our empty root takes the ``*`` rules, which give its only child.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The phrase labels of the parser's ``first-stage/DATA/EN/terms.txt`` (terms of class 0).
PHRASES = ("ADJP ADVP CONJP FRAG INTJ LST NAC NP NX PP PRN PRT QP RRC S S1 SBAR SBARQ SINV SQ UCP "
           "VP WHADJP WHADVP WHNP WHPP X").split()
#: Its punctuation: the terms whose class is above 2.
PUNCTUATION = (".", ",", ":", "-RRB-", "-LRB-", "``", "''")


def read_head_info(text: str, source: str) -> tuple[dict, dict]:
    """The two lists of ``headInfo.txt`` as ``{parent: [child, ...]}`` in file order.

    As ``readHeadInfoEn`` reads it: white-space separated words, ``1`` first, ``2`` switching to
    the second list, every other word pair a (parent, child). Lines starting with ``#`` (the
    provenance header of our copy) are skipped.
    """
    words = [w for line in text.splitlines() if not line.lstrip().startswith("#")
             for w in line.split()]
    if not words or words[0] != "1":
        raise SystemExit(f"{source}: does not start with the list marker '1'")
    lists: tuple[dict, dict] = ({}, {})
    which, i = 0, 1
    while i < len(words):
        if words[i] == "2":
            which, i = 1, i + 1
            continue
        if i + 1 >= len(words):
            raise SystemExit(f"{source}: odd word {words[i]!r} at the end (pairs expected)")
        lists[which].setdefault(words[i], []).append(words[i + 1])
        i += 2
    return lists


def convert(text: str, source: str, header: str) -> str:
    """The head-rule table for a ``headInfo.txt`` text (see the module docstring)."""
    head1, head2 = read_head_info(text, source)
    unknown = sorted((set(head1) | set(head2)) - set(PHRASES))
    if unknown:
        raise SystemExit(f"{source}: parent labels the parser does not know: {', '.join(unknown)}")
    out = [header.rstrip("\n"), "%punctuation " + " ".join(PUNCTUATION), ""]
    for label in PHRASES + ["*"]:
        same = "@same" if label == "*" else label
        passes = []
        if label in head1:
            passes.append(("leftdis" if label == "PP" else "rightdis", head1[label]))
        passes.append(("leftdis", [same]))
        if label in head2:
            passes.append(("rightdis", head2[label]))
        passes += [("rightdis", ["@tag"]), ("rightdis", ["@phrase"]), ("rightdis", ["PP"]),
                   ("rightdis", ["@node"])]
        out += [f"{label} {d} {' '.join(cats)}" for d, cats in passes]
        out.append("")
    return "\n".join(out)


HEADER = """\
# Head rules of Charniak (2000), "A Maximum-Entropy-Inspired Parser", NAACL, as used by Ringger et
# al. (2004) to compute maximal projections of heads.
#
# Provenance: CONVERTED, not hand-written. The (parent, child) pairs are those of the BLLIP
# (Charniak-Johnson) parser's first-stage/DATA/EN/headInfo.txt (github.com/BLLIP/bllip-parser,
# Apache License 2.0; our copy: ../shared/heads/charniak-headInfo.txt), and the passes spell out
# how its first-stage/TRAIN/headFinder.C uses them. Regenerate, never edit by hand:
#     python3 scripts/convert_charniak_heads.py ../shared/heads/charniak-headInfo.txt \\
#         > configs/heads/charniak.txt
# Per label, one pass per priority class, best first: (1) the label's pairs under "1" in
# headInfo.txt (rightmost; in PP the leftmost: the first preposition), (2) a child with the
# label itself (leftmost), (3) its pairs under "2" (rightmost), (4) a non-punctuation tag,
# (5) a phrase other than PP, (6) a PP, (7) anything else; within a class the rightmost child wins.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("head_info", type=Path, help="the parser's headInfo.txt")
    args = ap.parse_args(argv)
    sys.stdout.write(convert(args.head_info.read_text(encoding="utf-8"), str(args.head_info), HEADER))
    return 0


if __name__ == "__main__":
    sys.exit(main())
