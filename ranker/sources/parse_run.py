"""Parsing a corpus into the store: parallel, resumable, and honest about what failed.

Workers parse and encode candidates; the parent only writes. Each batch of finished sentences is
one transaction holding their forests *and* their parse-log entries, so a run killed at any moment
leaves whole sentences or nothing, and a rerun skips exactly the sentences already logged. With
Link Grammar's repeatable sampling the resumed store equals an uninterrupted run's.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import NamedTuple, Sequence

from ..store.records import Sentence
from .link_grammar import SOURCE, EncodedResult, LinkGrammarOptions, LinkGrammarParser
from ..parallel import resolve_workers, run_pool


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
                     progress: bool = True, source: str = SOURCE) -> ParseSummary:
    """Parse ``sentences`` with Link Grammar in ``workers`` processes and store every forest.

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
        Show a tqdm bar with sentences per second.

    Returns
    -------
    ParseSummary
    """
    workers = resolve_workers(workers)
    store.add_source(source, options._asdict())
    done = store.parsed_ids(source)
    todo = [s for s in sentences if s.id not in done]
    # Longest first: parse time grows steeply with length, so a long sentence dealt out last would
    # leave the other workers idle at the end (results are keyed, so order does not matter).
    dispatch = sorted(todo, key=lambda s: -len(s.tokens))
    t0 = time.perf_counter()
    statuses: Counter = Counter()
    failures: list[tuple[str, str, str]] = []
    n_cands = unmapped = 0
    batch: list[EncodedResult] = []
    last_flush = time.monotonic()

    def flush() -> None:
        store.write_parsed(source, batch)
        batch.clear()

    bar = None
    if progress:
        from tqdm import tqdm

        tqdm.monitor_interval = 0   # no monitor thread: workers are forked
        bar = tqdm(total=len(todo), unit="sent", desc="parse", dynamic_ncols=True)
    hard = None if options.max_parse_time <= 0 else 3 * options.max_parse_time + 60
    try:
        for r in run_pool(dispatch, _make_handler, options, workers, _failed, hard_timeout=hard):
            statuses[r.status] += 1
            n_cands += len(r.rows)
            unmapped += r.unmapped
            if r.status not in ("full", "fragment"):
                failures.append((r.sentence_id, r.status, r.detail))
            batch.append(r)
            if len(batch) >= batch_size or time.monotonic() - last_flush > flush_seconds:
                flush()
                last_flush = time.monotonic()
            if bar is not None:
                bar.update(1)
        if batch:
            flush()
    finally:
        if bar is not None:
            bar.close()
    return ParseSummary(len(sentences), len(sentences) - len(todo), len(todo), dict(statuses), n_cands,
                        unmapped, tuple(failures), time.perf_counter() - t0)
