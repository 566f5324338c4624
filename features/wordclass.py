"""Word classes that lexical families back off to, so that a word never seen in training still fires.

A class is the word's shape (runs of upper case, lower case, digits and other characters, each
run written once: ``Smith`` -> ``Xx``, ``1,987`` -> ``d,d``) plus, for lower-case words of five
letters or more, their last three letters (``telescope`` -> ``x~ope``): the suffix carries much of
the part of speech and the shape the rest (numbers, names, abbreviations), after the unknown-word
signatures of Collins (1999) and Charniak and Johnson (2005).
"""
from __future__ import annotations

from functools import lru_cache

#: Words that look like punctuation (no letter or digit) yet are tagged as content.
_SYMBOL_WORDS = frozenset({"$", "#", "%", "&", "US$", "C$", "A$"})
#: Penn's bracket tokens, punctuation although they are spelt with letters.
_BRACKET_WORDS = frozenset({"-LRB-", "-RRB-", "-LCB-", "-RCB-", "-LSB-", "-RSB-"})


@lru_cache(maxsize=200_000)
def word_class(word: str) -> str:
    """The shape-and-suffix class of ``word`` (see the module docstring)."""
    shape = []
    for ch in word:
        k = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not shape or shape[-1] != k:
            shape.append(k)
    out = "".join(shape)
    if out == "x" and len(word) >= 5:
        out += "~" + word[-3:]
    return out


@lru_cache(maxsize=200_000)
def is_punctuation(word: str) -> bool:
    """True for a punctuation token (``,`` ``.`` ``--`` ``''`` ``-LRB-``), judged by its form.

    Judged by the word, not its tag, so that families using it depend on the sentence alone and
    stay shareable between candidates whose tags differ.
    """
    if word in _BRACKET_WORDS:
        return True
    return word not in _SYMBOL_WORDS and not any(ch.isalnum() for ch in word)
