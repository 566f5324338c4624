"""Candidate parses from the Link Grammar parser, aligned to the gold tokens.

Each sentence is parsed from its gold tokens joined by spaces. Every linkage Link Grammar returns
becomes one :class:`~ranker.store.records.Candidate`, in Link Grammar's own order (its ``rank``):
the constituent tree (bracket mode) rebuilt over the gold tokens (:mod:`ranker.sources.alignment`)
with the gold tag as each leaf's preterminal, the links, Link Grammar's own word forms (walls and
subscripts kept, for features) and its cost vector. When no complete linkage exists the sentence is
parsed again allowing null links (candidates ``fragment``); a sentence that runs out of time is
``timeout``, like XLE's skimming.
"""
from __future__ import annotations

import sys
import time
from typing import NamedTuple

from ..errors import RankerError
from ..store.records import Candidate, Link, Sentence
from .alignment import BracketSyntaxError, align_words, build_tree, flat_tree, parse_label_brackets, token_offsets

SOURCE = "link-grammar"
_WALLS = ("LEFT-WALL", "RIGHT-WALL")


class LinkGrammarOptions(NamedTuple):
    """What Link Grammar is asked to do; recorded with the source so a store says how it was made."""

    linkage_limit: int = 1000       # linkages kept per sentence (sampled repeatably beyond that)
    null_links: bool = True         # reparse with null links when no complete linkage exists
    max_parse_time: int = 30        # seconds per sentence (Link Grammar's own timer)
    repeatable: bool = True         # repeatable sampling: a rerun gives the same candidates
    language: str = "en"
    short_length: int = 16          # Link Grammar's default maximum length of most links


class SentenceResult(NamedTuple):
    """The outcome of parsing one sentence, as it crosses from a worker process to the writer."""

    sentence_id: str
    status: str                     # "full", "fragment", "timeout", "nolinkage", "error", "crash"
    detail: str
    candidates: tuple[Candidate, ...]
    unmapped: int                   # most unmapped pieces/tokens of any linkage
    seconds: float


def import_linkgrammar():
    """Import the ``linkgrammar`` module, looking in Debian's dist-packages if a plain import fails.

    Raises
    ------
    RankerError
        With the command that installs it, when it is not installed at all.
    """
    try:
        import linkgrammar
    except ImportError:
        extra = "/usr/lib/python3/dist-packages"
        if extra not in sys.path:
            sys.path.append(extra)
        try:
            import linkgrammar
        except ImportError:
            raise RankerError("the Link Grammar parser is not installed; install it with: "
                              "apt-get install python3-link-grammar") from None
    return linkgrammar


class LinkGrammarParser:
    """One loaded Link Grammar dictionary; parse sentences one at a time (one per process)."""

    def __init__(self, options: LinkGrammarOptions = LinkGrammarOptions()):
        lg = import_linkgrammar()
        from linkgrammar import clinkgrammar

        self._lg, self._clg = lg, clinkgrammar
        lg.LG_Error.set_handler(lambda err, data: None)   # its warnings are not our errors
        self.options = options
        self._dict = lg.Dictionary(options.language)
        self._po = lg.ParseOptions(linkage_limit=options.linkage_limit, max_parse_time=options.max_parse_time,
                                   repeatable_rand=options.repeatable, short_length=options.short_length,
                                   verbosity=0, display_morphology=True, spell_guess=False)

    def parse(self, sentence: Sentence, source: str = SOURCE) -> SentenceResult:
        """Parse one sentence into candidates whose leaves are exactly its tokens; never raises."""
        t0 = time.perf_counter()
        try:
            status, detail, cands, unmapped = self._parse(sentence, source)
        except Exception as e:  # isolate: one bad sentence is recorded, the batch goes on
            status, detail, cands, unmapped = "error", f"{type(e).__name__}: {e}", (), 0
        return SentenceResult(sentence.id, status, detail, cands, unmapped, time.perf_counter() - t0)

    def _parse(self, sentence: Sentence, source: str):
        clg, po = self._clg, self._po
        tokens = sentence.tokens
        text, starts, ends = token_offsets(tokens)
        lgs = self._lg.Sentence(text, self._dict, po)
        if lgs.split(po) < 0:
            return "nolinkage", "Link Grammar could not split the sentence", (), 0
        po.min_null_count = po.max_null_count = 0
        clg.parse_options_reset_resources(po._obj)   # the time limit is per sentence
        clg.sentence_parse(lgs._obj, po._obj)
        timed_out = bool(clg.parse_options_timer_expired(po._obj))
        quality = "full"
        n = clg.sentence_num_valid_linkages(lgs._obj)
        if n == 0 and not timed_out and self.options.null_links:
            po.min_null_count, po.max_null_count = 1, len(lgs)
            clg.parse_options_reset_resources(po._obj)
            clg.sentence_parse(lgs._obj, po._obj)
            timed_out = bool(clg.parse_options_timer_expired(po._obj))
            n = clg.sentence_num_valid_linkages(lgs._obj)
            quality = "fragment"
        if timed_out:
            quality = "timeout"
        nulls = lgs.null_count()
        cands = []
        worst = 0
        fallbacks = 0
        for i in range(n):
            cand, fell_back = self._candidate(lgs, i, sentence, source, quality, starts, ends)
            fallbacks += fell_back
            worst = max(worst, cand.unmapped)
            cands.append(cand)
        detail = f"{n} linkages, {nulls} null links" + (f", {fallbacks} unreadable trees made flat" if fallbacks else "")
        if n == 0:
            return ("timeout" if timed_out else "nolinkage"), detail, (), 0
        return quality, detail, tuple(cands), worst

    def _candidate(self, lgs, i: int, sentence: Sentence, source: str, quality: str, starts, ends):
        clg = self._clg
        linkage = self._lg.Linkage(i, lgs, self._po._obj)
        obj = linkage._obj
        nw = clg.linkage_get_num_words(obj)
        words = tuple(clg.linkage_get_word(obj, j) for j in range(nw))
        offsets = [(clg.linkage_get_word_char_start(obj, j), clg.linkage_get_word_char_end(obj, j))
                   for j in range(nw)]
        is_wall = [w in _WALLS for w in words]
        al = align_words(offsets, is_wall, starts, ends)
        fell_back = 0
        try:
            items, leaves = parse_label_brackets(linkage.constituent_tree(2))
            leaf_word = [j for j in range(nw) if not is_wall[j]]
            if leaves != len(leaf_word):
                raise BracketSyntaxError(f"{leaves} leaves for {len(leaf_word)} words")
            tree = build_tree(items, leaf_word, al.word_to_token, sentence.tokens, sentence.tags)
        except BracketSyntaxError:
            tree = flat_tree(sentence.tokens, sentence.tags)
            fell_back = 1
        links = tuple(Link(clg.linkage_get_link_lword(obj, k), clg.linkage_get_link_rword(obj, k),
                           clg.linkage_get_link_label(obj, k)) for k in range(clg.linkage_get_num_links(obj)))
        scores = {"unused_words": float(clg.linkage_unused_word_cost(obj)),
                  "disjunct_cost": float(clg.linkage_disjunct_cost(obj)),
                  "link_cost": float(clg.linkage_link_cost(obj))}
        unmapped = al.unmappable_words + len(al.uncovered_tokens)
        return Candidate(sentence.id, source, i, tree, quality, scores, links, words, al.word_to_token,
                         unmapped), fell_back
