"""The plain records that cross the store's boundary: sentences, candidates, forests, annotations.

Every stage after the store (features, rankers, evaluation, the pipeline) reads these and nothing
else, so a stage can be rerun alone from the store. They are named tuples: immutable, cheap, and
printable. ``scores`` is a plain dict because sources differ in what they score.
"""
from __future__ import annotations

from typing import NamedTuple

from ..trees.tree import Tree

QUALITIES = ("full", "fragment", "timeout")
#: What a sentence's parse can come to (its parse-log status): a complete linkage, one with null
#: links, a skim after the budget ran out, no linkage at all, an exception in the parser's
#: process, the process lost (killed, or past the parse run's hard timeout).
PARSE_STATUSES = ("full", "fragment", "timeout", "nolinkage", "error", "crash")


class Sentence(NamedTuple):
    """One sentence of a corpus, tokenized as its gold standard is (empty elements removed)."""

    id: str                      # stable across runs, e.g. "treebank/wsj_0001.mrg/0"
    corpus: str                  # "treebank", "conll2000", or a user corpus name
    document: str                # file id within the corpus, e.g. "wsj_0001.mrg"
    index: int                   # position of the sentence within its document
    tokens: tuple[str, ...]
    tags: tuple[str, ...]        # gold POS tags, same length as tokens ("" where unknown)


class Link(NamedTuple):
    """A Link Grammar link between two of the source's words (indices into ``source_words``)."""

    left: int
    right: int
    label: str


class Candidate(NamedTuple):
    """One candidate parse of a sentence, as its source produced it.

    ``tree`` has exactly the sentence's gold tokens as leaves. ``rank`` is the source's own order
    (0 = the source's first choice). ``source_words`` are the source's own word forms (Link
    Grammar's ``board.n-u``, walls included), ``word_to_token`` maps each to a gold token index or
    -1 (walls, unmappable pieces), and ``links`` index ``source_words``.
    """

    sentence_id: str
    source: str                  # e.g. "link-grammar", "penn:nbest.mrg", "bllip:charniak.50best"
    rank: int
    tree: Tree
    quality: str                 # one of QUALITIES
    scores: dict[str, float]     # native scores: {"unused_words", "disjunct_cost", "link_cost"}, {"logprob"}
    links: tuple[Link, ...] = ()
    source_words: tuple[str, ...] = ()
    word_to_token: tuple[int, ...] = ()
    unmapped: int = 0            # alignment cases the source could not map to gold tokens (reported, never hidden)


class StoredCandidate(NamedTuple):
    """A candidate as the store keeps it, nothing decoded: what the evidence families read.

    A second source's forest is read for every sentence only to count its spans and links;
    decoding its trees into :class:`Candidate` records took two thirds of a Link Grammar forest's
    reading time, so the store hands them over as text (:meth:`ranker.store.Store.forest`).
    """

    rank: int
    tree: str                    # Penn text, one line
    scores: dict[str, float]
    links: str                   # JSON [[left, right, label], ...] over source_words
    word_to_token: str           # JSON [token index or -1, ...]


class Forest(NamedTuple):
    """A sentence with its gold tree (if any) and its candidates in source order.

    ``evidence`` is a second source's candidates of the same sentence (another parser's analyses),
    read by the evidence feature families (:mod:`ranker.features.evidence`): records of
    :class:`StoredCandidate` from the store, or :class:`Candidate` records built in memory;
    ``None`` when no evidence source was asked for, ``()`` when it was but that source has nothing
    for the sentence.
    """

    sentence: Sentence
    gold: Tree | None
    candidates: tuple[Candidate, ...]
    evidence: tuple[Candidate | StoredCandidate, ...] | None = None


class Bracket(NamedTuple):
    """One annotated span ``[start, end)`` over gold tokens; ``label`` None means unlabelled.

    ``accept`` False makes it a rejected span (a discriminant a person said no to): a consistent
    candidate must then *not* contain it.
    """

    label: str | None
    start: int
    end: int
    accept: bool = True


class Decision(NamedTuple):
    """A person's answer to a discriminant: the span is (``accept``) or is not a constituent so labelled.

    The answers on a sentence, in order, are its partial annotation of kind ``user``
    (:mod:`ranker.sources.discriminants`).
    """

    label: str
    start: int
    end: int
    accept: bool
    who: str
    at: str          # ISO-8601 UTC, e.g. "2026-11-23T16:30:00Z"


class Verdict(NamedTuple):
    """An annotator's word on a whole sentence: ``no_correct`` (no candidate is right), ``confirmed``
    (the one bracketing their decisions leave, or the forest's only one, is correct) and a free comment.

    A sentence with ``no_correct`` counts as done in that annotator's progress and teaches the
    model nothing (its decisions are left out of training). A ``confirmed`` one counts as done and
    finished (:mod:`ranker.sources.finished`): a forest of one bracketing has no discriminant to
    answer, so the confirmation is the annotator's check. The two never hold together.
    """

    no_correct: bool
    comment: str
    who: str
    at: str               # ISO-8601 UTC
    confirmed: bool = False


class Assignment(NamedTuple):
    """A sentence given to an annotator to work on (an adjudicator's plan, :mod:`ranker.store.assignments`).

    A sentence given to two annotators is double-annotated: their agreement is measured on it.
    """

    sentence_id: str
    who: str              # the annotator it is given to
    by: str               # who assigned it
    at: str               # ISO-8601 UTC


class Adjudication(NamedTuple):
    """An adjudicator's pick where annotators conflict on a sentence: ``chosen``'s work is the sentence's.

    ``work`` is the digest of the chosen annotator's work as the adjudicator reviewed it
    (:func:`ranker.sources.adjudication.work_digest`): when their answers change afterwards the
    adjudication no longer stands (it is *reopened*); '' for one recorded before digests were kept.
    """

    sentence_id: str
    chosen: str           # the annotator whose decisions (or no-correct verdict) stand
    who: str              # the adjudicator
    at: str               # ISO-8601 UTC
    work: str = ""        # digest of the chosen annotator's work reviewed ('' unknown)
    comment: str = ""     # the adjudicator's word on the sentence (required with NONE_IS_RIGHT)
    decisions: tuple = ()  # with ADJUDICATOR_DECIDED: the adjudicators' own answers (Decision), in order

    @property
    def none(self) -> bool:
        """Whether the adjudicator ruled that no candidate is right (nobody's work stands)."""
        return self.chosen == NONE_IS_RIGHT

    @property
    def decided(self) -> bool:
        """Whether the adjudicator's own answers on the adjudication page stand (nobody's work)."""
        return self.chosen == ADJUDICATOR_DECIDED

    @property
    def ruling(self) -> bool:
        """Whether it rules on the sentence itself rather than picking an annotator's work (none
        is right, or the adjudicator's own answers): no annotator's later change reopens it."""
        return self.none or self.decided


#: The ``chosen`` of an adjudication ruling that no candidate is right: the sentence goes to "no
#: correct candidate" whatever the annotators chose (no account name holds parentheses).
NONE_IS_RIGHT = "(none is right)"
#: The ``chosen`` of an adjudication whose tree is the adjudicator's own answers on the adjudication
#: page (:attr:`Adjudication.decisions`, table ``adjudication_decisions``), not an annotator's work.
ADJUDICATOR_DECIDED = "(adjudicator's decisions)"


class Annotation(NamedTuple):
    """A (possibly partial) bracketing of one sentence, of a named kind ("riezler", "chunks", ...)."""

    sentence_id: str
    kind: str
    brackets: tuple[Bracket, ...]


STATUSES = ("empty", "proper", "all")


class ConsistentSet(NamedTuple):
    """The candidates of one sentence consistent with its annotation, X(y, z) of Crouch et al.

    ``weights`` follow the forest's candidate order (1.0 = in the set; fractional weights are
    allowed for rules that share credit). ``status`` says whether the strict set X(y, z) is empty,
    a proper subset or all candidates; ``rule`` says what chose the weights: ``"consistent"``
    (the strict set), ``"fewest-violations"`` (strict set empty, Charniak-Johnson's convention of
    keeping the best candidates), ``"compatible"`` (the candidates crossing no annotated bracket),
    ``"fewest-crossing"`` or ``"lexicographic"`` (strict set empty, the fallbacks of
    :func:`~ranker.store.consistency.choose_consistent`) or ``"none"`` (nothing kept).
    """

    sentence_id: str
    weights: tuple[float, ...]
    status: str                  # one of STATUSES
    rule: str
    violations: tuple[int, ...] = ()   # annotated brackets each candidate fails to contain


class BracketCounts(NamedTuple):
    """Bracket counts of one candidate against gold under one metric, so bounds need no re-parse."""

    sentence_id: str
    source: str
    rank: int
    gold: int
    test: int
    matched: int
    crossing: int


class StoreStats(NamedTuple):
    """What a store holds, as ``ranker store stats`` prints it."""

    sentences: int
    sentences_with_candidates: int
    candidates: int
    full: int
    fragment: int
    timeout: int
    mean_candidates: float       # over sentences with candidates
    median_candidates: float
    unmapped_tokens: int
    failures: int                # sentences whose parse crashed or produced nothing
    consistent_sets: dict[str, dict[str, int]]   # kind -> {"empty", "proper", "all"} sentence counts
    corpora: dict[str, int]      # corpus -> sentences
    sources: dict[str, int]      # source -> candidates
    decisions: dict[str, int]    # "answers", "sentences": ranker serve's discriminant decisions


class RunRecord(NamedTuple):
    """One command that changed the store: what it was told and how it ended (``ranker store stats``)."""

    id: int
    command: str                 # "run", "import", "train", "models retrain", "serve", ...
    settings: dict               # its fully resolved settings (config sections or options)
    version: str                 # the ranker code that ran it (package version, git commit when known)
    started: str                 # ISO 8601 UTC
    ended: str
    outcome: str                 # "ok", "error: <message>", "interrupted"


class ModelRecord(NamedTuple):
    """A fitted model kept in the store: its registry entry, settings, data, lineage and choice.

    The model file itself is the ``model`` artifact under the same key
    (:func:`ranker.models.persistence.save_model`).
    """

    key: str                     # content key: a digest of the training data and settings
    ranker: str                  # versioned registry name, e.g. "loglinear/1", "heidorn/1"
    settings: dict               # hyperparameters (sigma2, optimizer, K table source, heads, ...)
    data: str                    # digest of the training data (and held-out data when chosen on it)
    parent: str | None           # the model a retrain started from
    chosen: str                  # "" or what it was chosen on, e.g. "heldout evalb_unlabeled"
    run: int | None              # the run that fitted it (RunRecord.id)
    created: str                 # ISO 8601 UTC
    summary: dict                # typed fit summary: iterations, converged, objective, ...


class Scoring(NamedTuple):
    """Evaluation settings a source's per-candidate counts were computed with (``ranker counts``)."""

    source: str
    key: str                     # ScoringSettings.key(): the stored counts' metric suffix
    settings: dict               # the [evaluation] keys the counts depend on
    run: int | None
