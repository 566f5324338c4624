"""Parse statuses counted by sentence length: where a corpus's timeouts (and other failures) are.

A parse budget is spent by the long sentences: a summary by length says whether the timeouts of
a run are the few sentences of 61 tokens and more (raise the budget for them with ``ranker parse
--reparse timeout``) or spread over every length. ``ranker parse`` prints it at its end, ``ranker
run``'s report and ``ranker store stats`` hold it.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from ..store.records import PARSE_STATUSES

#: Length bins in tokens, ``(lowest, highest)``; ``None``: no upper end.
LENGTH_BINS: tuple[tuple[int, int | None], ...] = ((1, 10), (11, 20), (21, 40), (41, 60), (61, None))


def bin_label(low: int, high: int | None) -> str:
    """``"1-10"``, ..., ``"61+"``: a bin as the tables name it."""
    return f"{low}+" if high is None else f"{low}-{high}"


#: The bins' labels in order.
BIN_LABELS = tuple(bin_label(lo, hi) for lo, hi in LENGTH_BINS)


def length_bin(tokens: int) -> str:
    """The label of the bin a sentence of ``tokens`` tokens falls in (an empty one counts with 1-10)."""
    for (lo, hi), label in zip(LENGTH_BINS, BIN_LABELS):
        if hi is None or tokens <= hi:
            return label
    raise AssertionError("the last bin is open")


def statuses_by_length(pairs: Iterable[tuple[str, int]]) -> dict[str, dict[str, int]]:
    """``bin -> status -> sentences`` of ``(status, tokens)`` pairs; bins in order, empty ones left out.

    Statuses are in :data:`PARSE_STATUSES`'s order, each bin listing those it holds.
    """
    counts: dict[str, dict[str, int]] = {}
    for status, tokens in pairs:
        row = counts.setdefault(length_bin(tokens), {})
        row[status] = row.get(status, 0) + 1
    order = {s: i for i, s in enumerate(PARSE_STATUSES)}
    return {b: dict(sorted(counts[b].items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
            for b in BIN_LABELS if b in counts}


def stored_statuses_by_length(store, source: str, sentence_ids: Iterable[str] | None = None
                              ) -> dict[str, dict[str, int]]:
    """:func:`statuses_by_length` of the parse log of ``source`` (of ``sentence_ids`` only, if given)."""
    logged = store.parse_statuses(source)
    if sentence_ids is not None:
        logged = {sid: logged[sid] for sid in sentence_ids if sid in logged}
    return statuses_by_length(logged.values())


def table_columns(table: Mapping[str, Mapping[str, int]]) -> list[str]:
    """The statuses a table holds, in :data:`PARSE_STATUSES`'s order (others after, by name)."""
    seen = {s for row in table.values() for s in row}
    return [s for s in PARSE_STATUSES if s in seen] + sorted(seen - set(PARSE_STATUSES))


def table_rows(table: Mapping[str, Mapping[str, int]]) -> tuple[list[str], list[list[str]]]:
    """``(header, rows)`` of a table: a row per length bin and one of all, a column per status, the
    share of timeouts, and the sentences of the row."""
    columns = table_columns(table)
    header = ["tokens", *columns, "timeout %", "sentences"]
    rows = []
    totals: dict[str, int] = {}
    for label, row in table.items():
        n = sum(row.values())
        rows.append([label, *(str(row.get(c, 0)) for c in columns), f"{100 * row.get('timeout', 0) / n:.1f}",
                     str(n)])
        for c, v in row.items():
            totals[c] = totals.get(c, 0) + v
    n = sum(totals.values())
    if n:
        rows.append(["all", *(str(totals.get(c, 0)) for c in columns),
                     f"{100 * totals.get('timeout', 0) / n:.1f}", str(n)])
    return header, rows


def format_table(table: Mapping[str, Mapping[str, int]]) -> list[str]:
    """The table as aligned lines of text (what ``ranker parse`` prints); no lines for an empty one."""
    if not table:
        return []
    header, rows = table_rows(table)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [header, *rows]]
