"""Parsing again the sentences of some parse statuses with another budget (``ranker parse --reparse``).

A large corpus parsed with a small budget leaves its longest sentences ``timeout`` (skimmed); a
user raises the budget for those alone instead of parsing everything again. Their forests and
parse-log entries are replaced (:func:`ranker.sources.parse_run.parse_into_store`), and what was
derived from the old forests goes first, so no later stage reads it: the bracket counts and
annotation checks (the store drops them with the forest), every feature matrix holding a row of
them (:func:`.feature_cache.forget_matrices`: a matrix is keyed by tree texts, and a new forest
may keep its trees but change its quality, costs or links), and ``ranker serve``'s stored choices
of them (``ranker parse`` hands :func:`ranker.serve.choices.forget_choices` in: the pipeline does
not import the server). Everything else in the store stays as it was, annotators' work included (a note says
when some of it was made on the old forests). The source keeps the options it was parsed with, so
``ranker run --store`` with the same config accepts the store and counts, checks, extracts and
trains again what the new forests changed.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..errors import RankerError
from ..store.records import Sentence
from .candidate_sources import ParseOutcome, check_parse_options, link_grammar_options, source_of


def check_statuses(statuses: Sequence[str], where: str | None = None) -> tuple[str, ...]:
    """The statuses asked for, each one a parse can come to; unknown ones raise, listing the known.

    ``where`` names them in the message (default ``--reparse STATUS,...``).
    """
    from ..store.records import PARSE_STATUSES

    where = where or f"--reparse {','.join(statuses)}"
    unknown = [s for s in statuses if s not in PARSE_STATUSES]
    if unknown or not statuses:
        what = f"unknown status {unknown[0]!r}" if unknown else "no status given"
        raise RankerError(f"{where}: {what} (a sentence's parse is one of: {', '.join(PARSE_STATUSES)})")
    return tuple(dict.fromkeys(statuses))


def reparse_targets(store, parse, sentences: Sequence[Sentence], statuses: Sequence[str],
                    where: str = "--reparse") -> list[Sentence]:
    """The sentences of ``sentences`` whose Link Grammar parse is of one of ``statuses``.

    Raises, before anything is written, when ``[parse]`` is no Link Grammar source, when the
    store holds no Link Grammar parse of these sentences, or one made with other options than
    ``parse``'s (the budget aside).
    """
    from ..sources.link_grammar import SOURCE

    src = source_of(parse.source)
    if src.reads_files:
        raise RankerError(f"{where}: parses again with Link Grammar; source {parse.source!r} reads its "
                          "forests from files (import them again instead)")
    logged = store.parse_statuses(SOURCE)
    if not any(s.id in logged for s in sentences):
        raise RankerError(f"{where}: {store.path} holds no Link Grammar parse of the {len(sentences):,} "
                          "sentences selected; parse them first (ranker parse without --reparse)")
    check_parse_options(store, link_grammar_options(parse), SOURCE, budget=False)
    wanted = set(statuses)
    return [s for s in sentences if s.id in logged and logged[s.id][0] in wanted]


#: A function dropping what a layer above the pipeline derived from forests: ``(store, source,
#: sentence ids) -> how many``; ``ranker parse`` passes ``ranker serve``'s stored choices
#: (:func:`ranker.serve.choices.forget_choices`), which the pipeline does not import.
Forget = Callable[[object, str, Sequence[str]], int]


def forget_derived(store, source: str, sentence_ids: Sequence[str], also: Sequence[Forget] = ()) -> int:
    """Drop what was derived from these sentences' forests: the feature matrices holding their rows,
    and what each of ``also`` drops (counts and checks go with the forests themselves). Returns how
    many matrices went."""
    from .feature_cache import forget_matrices

    with store.batch():
        gone = forget_matrices(store, sentence_ids)
        for forget in also:
            forget(store, source, sentence_ids)
    return gone


def reparse(ctx, parse, sentences: Sequence[Sentence], statuses: Sequence[str], batch_size: int = 20,
            where: str = "--reparse", also_forget: Sequence[Forget] = ()) -> ParseOutcome:
    """Parse again, with ``parse``'s budget, the sentences whose stored parse has one of ``statuses``.

    What was derived from their old forests goes first (:func:`forget_derived`, with ``also_forget``).

    Returns the :class:`ParseOutcome` of the reparse (its summary counts the sentences parsed
    again, by their new statuses); nothing is written when none has those statuses.
    """
    from ..sources.link_grammar import SOURCE
    from ..sources.parse_run import parse_into_store
    from .run_counts import SourceCounts

    statuses = check_statuses(statuses)
    todo = reparse_targets(ctx.store, parse, sentences, statuses, where)
    notes = []
    if todo:
        ids = [s.id for s in todo]
        gone = forget_derived(ctx.store, SOURCE, ids, also_forget)
        if gone:
            notes.append(f"{gone} stored feature matrices held rows of these sentences: extracted again when next used")
        worked = len(ctx.store.sentences_with_work() & set(ids))
        if worked:
            notes.append(f"{worked} of these sentences carry annotators' decisions, verdicts or adjudications, "
                         "made on their old forests: kept")
    summary = parse_into_store(ctx.store, todo, link_grammar_options(parse), workers=ctx.n_workers,
                               batch_size=batch_size, progress=ctx.progress and bool(todo), reparse=statuses)
    return ParseOutcome(SOURCE, SourceCounts.parsed(summary), tuple(notes), summary)
