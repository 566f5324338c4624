"""Candidate parses from the Link Grammar parser, aligned to the gold tokens.

Each sentence is parsed from its gold tokens joined by spaces. Every linkage Link Grammar returns
becomes one :class:`~ranker.store.records.Candidate`, in Link Grammar's own order (its ``rank``):
the constituent tree (bracket mode) rebuilt over the gold tokens (:mod:`ranker.sources.alignment`)
with the gold tag as each leaf's preterminal, the links, Link Grammar's own word forms (walls and
subscripts kept, for features) and its cost vector. When no complete linkage exists the sentence is
parsed again allowing null links (candidates ``fragment``). A sentence that runs out of time with
no linkage is skimmed, as XLE does: parsed again quickly in Link Grammar's own panic mode (short
links only, null links allowed); its candidates, and the sentence, are ``timeout``.

``max_parse_time`` is the sentence's budget, all passes together (:class:`_Budget`): Link Grammar
counts whole CPU seconds of its process, so each pass is given the whole seconds the budget still
holds, the full and null-link passes keeping the last second back for the skim. CPU time, not
wall time, is what keeps a sentence's forest the same on a busy machine as on an idle one: only a
sentence whose passes end within the clock's jitter of a whole second can come out otherwise.
"""
from __future__ import annotations

import resource
import sys
import time
from typing import NamedTuple

from ..errors import RankerError
from ..store.records import Candidate, Link, Sentence
from ..store.encoding import candidate_row, encode_json
from ..trees.tree import Tree
from .alignment import (BracketSyntaxError, align_words, bracket_penn, build_tree, flat_tree, parse_label_brackets,
                        token_offsets)

SOURCE = "link-grammar"
_WALLS = ("LEFT-WALL", "RIGHT-WALL")
_SCORE_NAMES = ("unused_words", "disjunct_cost", "link_cost")


class LinkGrammarOptions(NamedTuple):
    """What Link Grammar is asked to do; recorded with the source so a store says how it was made."""

    linkage_limit: int = 1000       # linkages kept per sentence (sampled repeatably beyond that)
    null_links: bool = True         # reparse with null links when no complete linkage exists
    max_parse_time: int | float = 30   # CPU seconds per sentence, all passes together (at least MIN_BUDGET)
    repeatable: bool = True         # repeatable sampling: a rerun gives the same candidates
    language: str = "en"
    short_length: int = 16          # Link Grammar's default maximum length of most links
    skim_short_length: int = 6      # link length when skimming a sentence that timed out (LG's panic mode)
    budget: str = "sentence"        # what max_parse_time bounds: recorded, so a store parsed per pass is told apart


MIN_BUDGET = 2   # whole seconds: one for the full (and null-link) passes, one for the skim
MAX_TOKENS = 250   # Link Grammar's MAX_SENTENCE is 254 words, walls included; more crash or fail its split
MAX_TOKEN_BYTES = 1000   # its MAX_WORD is 1,024 bytes; a longer token has crashed its tokenizer


def _cpu_seconds() -> float:
    """CPU seconds of this process: the user time Link Grammar's own timer reads, and the system time
    its allocations cost (which its timer does not see)."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


class _Budget:
    """One sentence's parse budget, spent by its passes in turn.

    Link Grammar's timer (``max_parse_time``) counts whole CPU seconds from the start of each
    ``sentence_parse``, so a pass is given the whole seconds still left. The full and null-link
    passes keep a fifth of the budget (at least a second) back for the skim, which runs only when
    a pass timed out: a skim of a long sentence takes a second or more, and what a pass overruns
    its whole seconds by (Link Grammar reads its clock now and then) comes out of that reserve.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.reserve = max(1, seconds // 5)
        self._start = _cpu_seconds()
        self.passes: list[tuple[str, int]] = []     # (pass, whole seconds given), for the record

    def used(self) -> float:
        return _cpu_seconds() - self._start

    def grant(self, name: str) -> int:
        """Whole seconds to give the next pass (0: none is left for it)."""
        left = self.seconds - self.used() + 0.05   # the split's few milliseconds do not cost a second
        if name == "skim":
            given = int(left) if left >= 1 else (1 if left >= 0.55 else 0)
        else:
            given = max(0, int(left) - self.reserve)
        if given:
            self.passes.append((name, given))
        return given


class SentenceResult(NamedTuple):
    """The outcome of parsing one sentence, as it crosses from a worker process to the writer."""

    sentence_id: str
    status: str                     # "full", "fragment", "timeout", "nolinkage", "error", "crash"
    detail: str
    candidates: tuple[Candidate, ...]
    unmapped: int                   # most unmapped pieces/tokens of any linkage
    seconds: float


class EncodedResult(NamedTuple):
    """:class:`SentenceResult` with candidates already as store rows (:func:`ranker.store.encoding.candidate_row`)."""

    sentence_id: str
    status: str
    detail: str
    rows: list
    unmapped: int
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
        from linkgrammar import _clinkgrammar

        if not options.max_parse_time >= MIN_BUDGET:   # the settings' range says so for configs and options
            raise RankerError(f"max_parse_time {options.max_parse_time}: a sentence's parse budget is at least "
                              f"{MIN_BUDGET} s (Link Grammar's timer counts whole CPU seconds, one kept for the skim)")
        self._lg, self._C = lg, _clinkgrammar   # the C functions themselves, not their Python wrappers
        lg.LG_Error.set_handler(lambda err, data: None)   # its warnings are not our errors
        self.options = options
        self._dict = lg.Dictionary(options.language)
        self._po = lg.ParseOptions(linkage_limit=options.linkage_limit, max_parse_time=int(options.max_parse_time),
                                   repeatable_rand=options.repeatable, short_length=options.short_length,
                                   verbosity=0, display_morphology=True, spell_guess=False)

    def parse(self, sentence: Sentence, source: str = SOURCE) -> SentenceResult:
        """Parse one sentence into candidates whose leaves are exactly its tokens; never raises."""
        t0 = time.perf_counter()
        try:
            status, detail, quality, raw = self._linkages(sentence)
            view = _SentenceView(sentence)
            cands = []
            for i, (words, offsets, links, costs, brackets) in enumerate(raw):
                al = view.alignment(words, offsets)
                cands.append(Candidate(sentence.id, source, i, view.tree(brackets, al), quality,
                                       dict(zip(_SCORE_NAMES, costs)), tuple(Link(*l) for l in links),
                                       words, al.word_to_token, al.unmapped))
            cands = tuple(cands)
            worst = max((c.unmapped for c in cands), default=0)
            detail += view.fallback_note()
        except Exception as e:  # isolate: one bad sentence is recorded, the batch goes on
            status, detail, cands, worst = "error", f"{type(e).__name__}: {e}", (), 0
        return SentenceResult(sentence.id, status, detail, cands, worst, time.perf_counter() - t0)

    def parse_rows(self, sentence: Sentence, source: str = SOURCE) -> EncodedResult:
        """Parse one sentence straight into store rows (what :meth:`parse` gives, encoded); never raises.

        This is the parse run's path. The rows equal ``[encode_candidate(c) for c in
        parse(...).candidates]`` exactly (tested), but each distinct constituent string of the
        sentence is turned into Penn text once, the word alignment and the JSON of word lists and
        scores are made once per distinct value, and no tree or link objects are built. Shared
        strings are the same objects, so pickling a sentence's rows to the writer stays small.
        """
        t0 = time.perf_counter()
        try:
            status, detail, quality, raw = self._linkages(sentence)
            view = _SentenceView(sentence)
            sid = sentence.id
            rows = []
            worst = 0
            for i, (words, offsets, links, costs, brackets) in enumerate(raw):
                al = view.alignment(words, offsets)
                if al.unmapped > worst:
                    worst = al.unmapped
                rows.append(candidate_row(sid, source, i, quality, view.penn(brackets, al), view.scores_json(costs),
                                          encode_json(links) if links else "[]", view.words_json(words),
                                          al.w2t_json, al.unmapped))
            detail += view.fallback_note()
        except Exception as e:
            status, detail, rows, worst = "error", f"{type(e).__name__}: {e}", [], 0
        return EncodedResult(sentence.id, status, detail, rows, worst, time.perf_counter() - t0)

    def _linkages(self, sentence: Sentence):
        """Run Link Grammar on one sentence and read every linkage out of it.

        Returns ``(status, detail, quality, raw)`` where ``raw`` holds, per linkage in Link
        Grammar's order, ``(words, offsets, links, costs, brackets)``: its word forms, their
        character spans, ``(left, right, label)`` link tuples, the cost vector and its bracketed
        constituent string. The C functions are called directly: the Python wrapper classes cost
        more than the parse itself at a thousand linkages a sentence.
        """
        C, po = self._C, self._po
        budget = self.last_budget = _Budget(self.options.max_parse_time)   # kept: the passes it gave, for tests
        too_long = _beyond_link_grammar(sentence.tokens)
        if too_long:
            return "nolinkage", too_long, "full", []
        text, _, _ = token_offsets(sentence.tokens)
        lgs = self._lg.Sentence(text, self._dict, po)
        if lgs.split(po) < 0:
            return "nolinkage", "Link Grammar could not split the sentence", "full", []
        sent, opts = lgs._obj, po._obj
        quality, n, timed_out = "full", 0, False
        passes = [("full", 0, 0)]
        if self.options.null_links:
            passes.append(("fragment", 1, len(lgs)))
        for quality, low, high in passes:
            given = budget.grant(quality)
            if not given:
                timed_out = True
                break
            po.min_null_count, po.max_null_count = low, high
            C.parse_options_set_max_parse_time(opts, given)
            C.sentence_parse(sent, opts)
            timed_out = bool(C.parse_options_timer_expired(opts))
            n = C.sentence_num_valid_linkages(sent)
            if n or timed_out:
                break
        detail = ""
        if timed_out:
            quality = "timeout"
            if n == 0:
                n = self._skim(lgs, budget.grant("skim"))
                detail = f"timed out after {self.options.max_parse_time}s, skimmed: "
        detail += f"{n} linkages, {C.sentence_null_count(sent)} null links"
        if n == 0:
            return ("timeout" if timed_out else "nolinkage"), detail, quality, []
        create, delete = C.linkage_create, C.linkage_delete
        num_words, word, cstart, cend = (C.linkage_get_num_words, C.linkage_get_word,
                                         C.linkage_get_word_char_start, C.linkage_get_word_char_end)
        num_links, lword, rword, label = (C.linkage_get_num_links, C.linkage_get_link_lword,
                                          C.linkage_get_link_rword, C.linkage_get_link_label)
        unused, disjunct, link_cost = C.linkage_unused_word_cost, C.linkage_disjunct_cost, C.linkage_link_cost
        constituents = C.linkage_print_constituent_tree
        raw = []
        for i in range(n):
            lk = create(i, sent, opts)
            try:
                nw = range(num_words(lk))
                words = tuple([word(lk, j) for j in nw])
                offsets = tuple([(cstart(lk, j), cend(lk, j)) for j in nw])
                links = [(lword(lk, k), rword(lk, k), label(lk, k)) for k in range(num_links(lk))]
                costs = (float(unused(lk)), float(disjunct(lk)), float(link_cost(lk)))
                brackets = constituents(lk, 2)
            finally:
                delete(lk)
            raw.append((words, offsets, links, costs, brackets))
        return quality, detail, quality, raw


    def _skim(self, lgs, seconds: int) -> int:
        """Parse a sentence that ran out of time again, quickly, as XLE skims; returns the linkage count.

        Link Grammar's own "panic mode" (what its ``link-parser`` does after a timeout): only short
        links (``skim_short_length``), null links allowed, in what is left of the sentence's budget
        (``seconds``; none left, no skim). The linkages are poor but real, so the sentence keeps
        candidates (marked ``timeout``) instead of none.
        """
        if seconds <= 0:
            return 0
        C, po, o = self._C, self._po, self.options
        opts = po._obj
        C.parse_options_set_max_parse_time(opts, seconds)
        po.min_null_count, po.max_null_count = 0, (len(lgs) if o.null_links else 0)
        C.parse_options_set_short_length(opts, min(o.short_length, o.skim_short_length))
        C.parse_options_set_all_short_connectors(opts, 1)
        try:
            C.sentence_parse(lgs._obj, opts)
            return C.sentence_num_valid_linkages(lgs._obj)
        finally:   # the options serve the next sentence
            C.parse_options_set_short_length(opts, o.short_length)
            C.parse_options_set_all_short_connectors(opts, 0)


def _beyond_link_grammar(tokens) -> str:
    """Why Link Grammar cannot be given these tokens (too many, or one too long), or ``""``.

    Its tokenizer has crashed the process (``malloc(): invalid size``) on a sentence of 200,000
    words and on a 200,000-character token; such a sentence is refused here, named, instead.
    """
    if len(tokens) > MAX_TOKENS:
        return f"{len(tokens)} tokens: Link Grammar parses at most {MAX_TOKENS}"
    longest = max((len(t.encode("utf-8")) for t in tokens), default=0)
    if longest > MAX_TOKEN_BYTES:
        return f"a token of {longest} bytes: Link Grammar reads at most {MAX_TOKEN_BYTES}"
    return ""


class _Aligned(NamedTuple):
    """One distinct word alignment of a sentence, with what every linkage sharing it needs."""

    word_to_token: tuple[int, ...]
    w2t_json: str
    unmapped: int
    leaf_word: tuple[int, ...]      # parser word index of each constituent leaf (walls skipped)
    leaf_token: tuple[int, ...]     # gold token of each constituent leaf
    trees: dict                     # bracket string -> (Tree, fell back), for parse
    texts: dict                     # bracket string -> (Penn text, fell back), for parse_rows


class _SentenceView:
    """Per-sentence caches: the linkages of one sentence repeat alignments, trees, word lists and scores.

    On the bench sample a sentence's linkages share one word alignment (341 distinct in 300
    sentences for 104,000 linkages) and half of them repeat a constituent string seen before.
    """

    def __init__(self, sentence: Sentence):
        self.sentence = sentence
        _, self.starts, self.ends = token_offsets(sentence.tokens)
        tags = sentence.tags
        self.leaf_texts = [f"({tag} {tok})" if tag else tok for tok, tag in zip(sentence.tokens, tags)]
        self.bare = [not tag for tag in tags]
        self._alignments: dict = {}
        self._words: dict = {}
        self._scores: dict = {}
        self.fallbacks = 0

    def alignment(self, words: tuple[str, ...], offsets: tuple) -> _Aligned:
        """The alignment of one linkage's words (it depends only on their spans and which are walls)."""
        is_wall = tuple([w in _WALLS for w in words])
        key = (is_wall, offsets)
        got = self._alignments.get(key)
        if got is None:
            al = align_words(offsets, is_wall, self.starts, self.ends)
            leaf_word = tuple(j for j in range(len(words)) if not is_wall[j])
            w2t = al.word_to_token
            got = _Aligned(w2t, encode_json(list(w2t)) if w2t else "[]",
                           al.unmappable_words + len(al.uncovered_tokens), leaf_word,
                           tuple(w2t[j] for j in leaf_word), {}, {})
            self._alignments[key] = got
        return got

    def tree(self, brackets: str, al: _Aligned) -> Tree:
        """The candidate tree of one constituent string (built once per string and alignment)."""
        got = al.trees.get(brackets)
        if got is None:
            s = self.sentence
            try:
                items, leaves = parse_label_brackets(brackets)
                if leaves != len(al.leaf_word):
                    raise BracketSyntaxError(f"{leaves} leaves for {len(al.leaf_word)} words")
                got = (build_tree(items, al.leaf_word, al.word_to_token, s.tokens, s.tags), 0)
            except BracketSyntaxError:
                got = (flat_tree(s.tokens, s.tags), 1)
            al.trees[brackets] = got
        self.fallbacks += got[1]
        return got[0]

    def penn(self, brackets: str, al: _Aligned) -> str:
        """:meth:`tree` as Penn text, made without building the tree."""
        got = al.texts.get(brackets)
        if got is None:
            try:
                got = (bracket_penn(brackets, al.leaf_token, self.leaf_texts, self.bare), 0)
            except BracketSyntaxError:
                got = ("( " + " ".join(self.leaf_texts) + ")", 1)   # flat_tree's text
            al.texts[brackets] = got
        self.fallbacks += got[1]
        return got[0]

    def words_json(self, words: tuple[str, ...]) -> str:
        got = self._words.get(words)
        if got is None:
            got = self._words[words] = encode_json(list(words)) if words else "[]"
        return got

    def scores_json(self, costs: tuple[float, float, float]) -> str:
        got = self._scores.get(costs)
        if got is None:
            got = self._scores[costs] = encode_json(dict(zip(_SCORE_NAMES, costs)))
        return got

    def fallback_note(self) -> str:
        return f", {self.fallbacks} unreadable trees made flat" if self.fallbacks else ""
