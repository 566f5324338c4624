"""How the store writes what it keeps: one-line Penn text, compact JSON, candidate rows.

Sources that make thousands of candidates a second (and their worker processes) encode rows with
these functions and hand them to the writer (:meth:`ranker.store.Store.write_parsed`).
"""
from __future__ import annotations

import json
import re

from .errors import StoreError
from .records import Candidate

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_loads = json.loads


def _jsonable(value):
    """``value`` with tuples as lists and paths as strings, as JSON keeps them."""
    return json.loads(json.dumps(value, default=str))



#: A word Penn text cannot hold: a bracket or white space inside, or nothing (words joined by \x01).
_UNWRITABLE = re.compile(r"[()\s]|\x01\x01|^\x01|\x01$|^$")


def penn_text(tree) -> str:
    """One-line Penn text, identical to :func:`ranker.trees.penn.format_tree` but about 40% faster.

    Writing candidates is bound by this (the store must take 50,000 imported trees a second), so
    preterminals are written inline instead of by a recursive call each.
    """
    words = tree.words
    if _UNWRITABLE.search("\x01".join(words)):
        bad = next(w for w in words if not w or _UNWRITABLE.search(w))
        raise StoreError(f"word {bad!r} cannot be written as Penn text (brackets, spaces or empty); "
                         "escape brackets as -LRB- -RRB- -LCB- -RCB- as the Penn Treebank does")

    def rec(n) -> str:
        parts = ["(" + n.label if n.label else "("]
        for c in n.children:
            if type(c) is int:
                parts.append(words[c])
            else:
                k = c.children
                if len(k) == 1 and type(k[0]) is int:
                    parts.append("(" + c.label + " " + words[k[0]] + ")" if c.label else "( " + words[k[0]] + ")")
                else:
                    parts.append(rec(c))
        return " ".join(parts) + ")"

    return rec(tree.root)


def _encode_brackets(brackets) -> str:
    # an accepted bracket is stored as [label, start, end], as before rejected ones existed
    return _dumps([list(b[:3]) if b.accept else list(b) for b in brackets])


def encode_json(value) -> str:
    """The JSON text the store keeps lists and score dicts as (compact, non-ASCII kept as is)."""
    return _dumps(value)


def candidate_row(sentence_id: str, source: str, rank: int, quality: str, tree_text: str, scores_json: str,
                  links_json: str, words_json: str, w2t_json: str, unmapped: int) -> tuple:
    """The row of the ``candidates`` table, from parts already encoded (:func:`encode_json`, Penn text).

    A source that makes thousands of candidates a second encodes each distinct part once and
    builds rows with this; :func:`encode_candidate` is the same row from a :class:`Candidate`.
    """
    return (sentence_id, source, rank, quality, tree_text, scores_json, links_json, words_json, w2t_json, unmapped)


def encode_candidate(c: Candidate) -> tuple:
    """The row a candidate is stored as; cheap to pickle, so worker processes encode, the writer inserts."""
    return candidate_row(c.sentence_id, c.source, c.rank, c.quality, penn_text(c.tree), _dumps(c.scores),
                         _dumps([list(l) for l in c.links]) if c.links else "[]",
                         _dumps(list(c.source_words)) if c.source_words else "[]",
                         _dumps(list(c.word_to_token)) if c.word_to_token else "[]", c.unmapped)
