"""Parsing a corpus into the store: parallel, resumable, and honest about what failed.

Workers parse and encode candidates; the parent only writes. Each batch of finished sentences is
one transaction holding their forests *and* their parse-log entries, so a run killed at any moment
leaves whole sentences or nothing, and a rerun skips exactly the sentences already logged. With
Link Grammar's repeatable sampling the resumed store equals an uninterrupted run's.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Collection, NamedTuple, Sequence

from ..parallel import progress_bar, resolve_workers, run_pool
from ..store.records import Sentence
from .link_grammar import SOURCE, EncodedResult, LinkGrammarOptions, LinkGrammarParser
from .parse_progress import TimeLeft
from .parse_statuses import statuses_by_length


class ParseSummary(NamedTuple):
    """What one ``ranker parse`` run did."""

    sentences: int                  # asked for
    skipped: int                    # already in the store from an earlier run
    parsed: int
    statuses: dict[str, int]        # "full", "fragment", "timeout", "nolinkage", "error", "crash"
    candidates: int
    unmapped: int                   # unmapped pieces/tokens, summed over sentences
    failures: tuple[tuple[str, str, str], ...]   # (sentence id, status, detail)
    seconds: float
    by_length: dict | None = None   # statuses of the sentences parsed now, by length (parse_statuses)
    reparsed: tuple[str, ...] = ()  # the statuses parsed again (ranker parse --reparse), or none

    @property
    def sentences_per_second(self) -> float:
        return self.parsed / self.seconds if self.seconds > 0 else 0.0


def _make_handler(options: LinkGrammarOptions):
    parser = LinkGrammarParser(options)
    return parser.parse_rows


def _failed(sentence: Sentence, reason: str) -> EncodedResult:
    return EncodedResult(sentence.id, "crash", reason, [], 0, 0.0)


def parse_into_store(store, sentences: Sequence[Sentence], options: LinkGrammarOptions = LinkGrammarOptions(),
                     workers: int | None = None, batch_size: int = 20, flush_seconds: float = 2.0,
                     progress: bool = True, source: str = SOURCE, reparse: Collection[str] = ()) -> ParseSummary:
    """Parse ``sentences`` with Link Grammar in ``workers`` processes and store every forest.

    With ``reparse`` (statuses of :data:`~ranker.store.records.PARSE_STATUSES`), only the sentences
    whose logged status is one of them are parsed, again, with ``options``' budget: each forest
    and log entry is replaced, with the counts and checks derived from it
    (:meth:`~ranker.store.Store.write_parsed`); the source keeps the options it was parsed
    with, and records the reparse beside them (``reparsed``). What else was derived from the old
    forests is the caller's to forget first (:func:`ranker.pipeline.reparse.reparse`).

    Parameters
    ----------
    store
        An open :class:`ranker.store.Store`; the sentences must already be in it.
    sentences
        What to parse, in corpus order; those with a parse-log entry for ``source`` are skipped.
    options
        Link Grammar options (recorded as the source's options).
    workers
        Processes (default: every core).
    batch_size, flush_seconds
        A transaction is committed every ``batch_size`` sentences or ``flush_seconds``.
    progress
        Show a tqdm bar: sentences done of all, their rate and the time left (:mod:`.parse_progress`).

    Returns
    -------
    ParseSummary
    """
    workers = resolve_workers(workers)
    if reparse:
        logged = store.parse_statuses(source)
        todo = [s for s in sentences if s.id in logged and logged[s.id][0] in reparse]
        if todo:
            record_reparse(store, source, options, reparse, len(todo))
    else:
        store.add_source(source, {**options._asdict(), **_reparses(store, source)})
        done = store.parsed_ids(source)
        todo = [s for s in sentences if s.id not in done]
    # Longest first: parse time grows steeply with length, so a long sentence dealt out last would
    # leave the other workers idle at the end (results are keyed, so order does not matter).
    dispatch = sorted(todo, key=lambda s: -len(s.tokens))
    lengths = {s.id: len(s.tokens) for s in todo}
    t0 = time.perf_counter()
    statuses: Counter = Counter()
    failures: list[tuple[str, str, str]] = []
    n_cands = unmapped = 0
    batch: list[EncodedResult] = []
    pairs: list[tuple[str, int]] = []
    last_flush = time.monotonic()

    def flush() -> None:
        store.write_parsed(source, batch)
        batch.clear()

    hard = None if options.max_parse_time <= 0 else 3 * options.max_parse_time + 60
    left = TimeLeft(lengths.values(), options.max_parse_time)
    last_shown = 0.0
    with progress_bar(len(todo), "reparse" if reparse else "parse", enabled=progress,
                      bar_format=BAR_FORMAT) as bar:
        if progress:
            bar.set_postfix_str(left.describe(0.0), refresh=False)
        for r in run_pool(dispatch, _make_handler, options, workers, _failed, hard_timeout=hard):
            statuses[r.status] += 1
            pairs.append((r.status, lengths.get(r.sentence_id, 0)))
            n_cands += len(r.rows)
            unmapped += r.unmapped
            if r.status not in ("full", "fragment"):
                failures.append((r.sentence_id, r.status, r.detail))
            batch.append(r)
            if len(batch) >= batch_size or time.monotonic() - last_flush > flush_seconds:
                flush()
                last_flush = time.monotonic()
            left.done(lengths.get(r.sentence_id, 1), r.seconds)
            if progress:
                elapsed = time.perf_counter() - t0
                if elapsed - last_shown >= 1.0 or bar.n + 1 == len(todo):   # the estimate costs a loop over lengths
                    bar.set_postfix_str(left.describe(elapsed), refresh=False)
                    last_shown = elapsed
            bar.update(1)
        if batch:
            flush()
    return ParseSummary(len(sentences), len(sentences) - len(todo) if not reparse else 0, len(todo),
                        dict(statuses), n_cands, unmapped, tuple(failures), time.perf_counter() - t0,
                        statuses_by_length(pairs), tuple(reparse))


#: The parse bar: done of all, elapsed, rate, and the time left of :class:`.parse_progress.TimeLeft`
#: (in place of tqdm's own, a rate that does not see the sentences shorten).
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"


def _reparses(store, source: str) -> dict:
    """The record of earlier reparses of ``source`` (``{"reparsed": [...]}``), kept when it is parsed on."""
    got = (store.source_options().get(source) or {}).get("reparsed")
    return {"reparsed": got} if got else {}


def record_reparse(store, source: str, options: LinkGrammarOptions, statuses: Collection[str], n: int) -> None:
    """Add one reparse to the source's record: its statuses, budget and sentences (the options the
    source was parsed with stay, so a config of them still accepts the store)."""
    stored = dict(store.source_options().get(source) or options._asdict())
    stored["reparsed"] = [*stored.get("reparsed", []),
                          {"statuses": sorted(statuses), "max_parse_time": options.max_parse_time, "sentences": n}]
    store.add_source(source, stored)
