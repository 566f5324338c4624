"""Work assignment as the page and ``ranker serve assign`` make it: the sentences a selection names,
the plan stored, and each annotator's progress on theirs.

No Flask here: the command and the page (:mod:`.assign_page`) share these functions, so an
assignment made at the terminal and one made on the page are the same thing. The plan itself is
:func:`ranker.sources.assignment.plan_assignment`; the table, :mod:`ranker.store.assignments`.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from ..errors import RankerError


def select_sentences(store, corpus: str, documents: str | None = None, first: str | None = None,
                     last: str | None = None, has_forest: Callable[[str], bool] | None = None) -> list[str]:
    """The ids of the sentences to assign, in corpus order: ``corpus``'s ``documents`` (a named
    split, document ranges like ``wsj_0170-0172``, a glob or ``@FILE``; all when None), from
    sentence ``first`` to ``last`` (inclusive, either may be None), keeping those ``has_forest``
    says have candidates (a sentence without has nothing to disambiguate).

    Raises
    ------
    RankerError
        For a selection naming no stored sentence, or ``first``/``last`` outside it or in the wrong order.
    """
    from ..pipeline.splits import select_split

    sents = [s.id for s in select_split(store, corpus, documents or None).sentences]
    where = f"{documents or 'the whole corpus'!r} of corpus {corpus!r}"
    lo, hi = 0, len(sents) - 1
    for name, value in (("first", first), ("last", last)):
        if value and value not in sents:
            raise RankerError(f"{name} sentence {value!r} is not in {where}")
    if first:
        lo = sents.index(first)
    if last:
        hi = sents.index(last)
    if lo > hi:
        raise RankerError(f"sentence {first!r} comes after {last!r} in corpus order: give the range first to last")
    chosen = sents[lo:hi + 1]
    if has_forest is not None:
        chosen = [sid for sid in chosen if has_forest(sid)]
    if not chosen:
        raise RankerError(f"no sentence of {where} in that range has candidates to assign")
    return chosen


def make_assignment(store, sentence_ids: Sequence[str], annotators: Sequence[str], double: float,
                    by: str) -> list[tuple[str, str]]:
    """Plan the sentences' assignment and store it, replacing what they were assigned before
    (one transaction); the ``(sentence_id, annotator)`` pairs stored."""
    from ..sources.assignment import plan_assignment

    pairs = plan_assignment(sentence_ids, annotators, double)
    store.assign(pairs, by, replace=sentence_ids)
    return pairs


def check_annotators(names: Sequence[str], accounts: dict | None) -> list[str]:
    """The annotator names as given, each a valid name and, when the server has accounts
    (``accounts``: name -> account), an account's.

    Raises
    ------
    RankerError
        Naming the first name that is not valid, or not an account.
    """
    from .forms import WHO, WHO_RULE
    from .users import ANON_PREFIX

    out = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        if not WHO.fullmatch(name):
            raise RankerError(f"annotator {name[:40]!r}: {WHO_RULE}")
        if name.casefold().startswith(ANON_PREFIX):
            raise RankerError(f"annotator {name!r}: names starting {ANON_PREFIX!r} are the anonymous sessions'; "
                              "assign work to a name the annotator sets on the page")
        if accounts is not None and name not in accounts:
            raise RankerError(f"annotator {name!r} has no account (ranker serve users add {name!r})")
        out.append(name)
    return out


class Progress(NamedTuple):
    """One annotator's assignment and how far they are with it."""

    who: str
    assigned: int        # sentences given to them
    double: int          # of those, given to another annotator too
    done: int            # of those, finished by them (no discriminant left, confirmed, or none correct)
    started: int         # of those, answered but not finished
    conflict: int = 0    # of those, their work conflicts with another annotator's (not adjudicated yet)


def progress(assignments, status_of: Callable[[str, str], str]) -> list[Progress]:
    """Each annotator's :class:`Progress` (by name), ``status_of(sentence_id, who)`` giving their
    status on a sentence (``untouched``, ``started`` or ``done``)."""
    given: dict[str, list[str]] = {}
    holders: dict[str, int] = {}
    for a in assignments:
        given.setdefault(a.who, []).append(a.sentence_id)
        holders[a.sentence_id] = holders.get(a.sentence_id, 0) + 1
    out = []
    for who in sorted(given):
        statuses = [status_of(sid, who) for sid in given[who]]
        out.append(Progress(who, len(given[who]), sum(holders[sid] > 1 for sid in given[who]),
                            statuses.count("done"), statuses.count("started"), statuses.count("conflict")))
    return out


class DocumentRow(NamedTuple):
    """One document's part in the plan: what is assigned of it, to whom, and what is left."""

    corpus: str
    document: str
    first: str           # its first and last sentence id with candidates (a range to assign)
    last: str
    sentences: int       # sentences with candidates
    assigned: int        # of those, assigned to someone
    double: int          # of those, assigned to two or more
    annotators: tuple    # who has some of it


def by_document(sentences, has_forest: Callable[[str], bool], assignments) -> list[DocumentRow]:
    """Each document of ``sentences`` (corpus order) holding a sentence with candidates, with its
    assignment: what a team lead reads to see what is given out and what is left."""
    holders: dict[str, list[str]] = {}
    for a in assignments:
        holders.setdefault(a.sentence_id, []).append(a.who)
    docs: dict[tuple, list] = {}
    for s in sentences:
        if has_forest(s.id):
            docs.setdefault((s.corpus, s.document), []).append(s.id)
    out = []
    for (corpus, document), ids in docs.items():
        who = [w for sid in ids for w in holders.get(sid, ())]
        out.append(DocumentRow(corpus, document, ids[0], ids[-1], len(ids), sum(sid in holders for sid in ids),
                               sum(len(holders.get(sid, ())) > 1 for sid in ids), tuple(sorted(set(who)))))
    return out


def parse_share(value: str | None) -> float:
    """A double-annotated share as ``20%``, ``20`` (percent) or ``0.2``; empty is none.

    Raises
    ------
    RankerError
        For anything else, or a share outside 0-100%.
    """
    text = (value or "").strip().rstrip("%").strip()
    if not text:
        return 0.0
    try:
        x = float(text)
    except ValueError:
        raise RankerError(f"double-annotated share {value[:20]!r}: a percentage like 20% (or 0.2)") from None
    share = x / 100 if (value or "").strip().endswith("%") or x > 1 else x
    if not 0.0 <= share <= 1.0 or share != share:
        raise RankerError(f"double-annotated share {value[:20]!r}: between 0% and 100%")
    return share


class StoreForests:
    """What :class:`.listing.Statuses` reads of a server (its status cache and each forest's spans),
    read straight from a store: ``ranker serve assign list`` counts progress as the page does."""

    def __init__(self, store, source: str | None = None):
        from .cache import LRU

        self.store, self.source = store, source
        self.statuses = LRU(100_000)

    def forest_data(self, sentence_id: str):
        from types import SimpleNamespace

        from ..sources.discriminants import forest_spans

        forest = self.store.forest(sentence_id, self.source)
        return SimpleNamespace(spans=forest_spans(forest.candidates) if forest.candidates else [])
