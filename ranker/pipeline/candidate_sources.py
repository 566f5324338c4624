"""Candidate sources as objects: how a ``[parse] source`` names its candidates and gets them into the store.

The registry :data:`ranker.registries.SOURCES` holds these classes by source name, so the parse
stage (:func:`ranker.pipeline.stages.parse_or_import`), the config check and the commands ask the
source instead of comparing its name with ``"link-grammar"``:

- :class:`LinkGrammarSource`: the Link Grammar parser run over stored sentences (its options are
  recorded with the source, so forests parsed otherwise are never mixed in);
- :class:`NbestFileSource` (``penn``, ``bllip``): a parser's n-best lists read from files, imported
  once per content (:mod:`.forest_files`).

Only the standard library is imported at the top, so listing the sources (``--format`` choices)
stays cheap.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from ..errors import RankerError

#: The ``[parse]`` keys that name n-best files.
FOREST_KEYS = ("forests", "train_forests", "heldout_forests", "test_forests")


class ParseOutcome(NamedTuple):
    """The candidate source the later stages read, and what parsing or importing did."""

    source: str                     # the store's source name of the candidates
    counts: object                  # SourceCounts: what parsing or importing did now (ranker.pipeline.run_counts)
    notes: tuple[str, ...]          # report notes (rejected forests)
    summary: object = None          # Link Grammar's ParseSummary, or the n-best ImportSummary


class CandidateSource:
    """One registered source of candidates; ``name`` is its bare registered name."""

    #: Whether its candidates are read from n-best files (``[parse] forests``), not made here.
    reads_files: bool = False

    def __init__(self, name: str):
        self.name = name

    def store_name(self, parse, where: str, given: str | None, check: bool, section: str) -> str:
        """The store's name of the candidates ``parse`` asks for (checked; nothing read yet)."""
        raise NotImplementedError

    def obtain(self, ctx, parse, sentences: Sequence, corpus: str, batch_size: int, source: str,
               reimport: bool, section: str) -> ParseOutcome:
        """Put the candidates of ``sentences`` into ``ctx.store`` under ``source`` (those missing)."""
        raise NotImplementedError


class LinkGrammarSource(CandidateSource):
    """The Link Grammar parser, run over the stored sentences not parsed yet."""

    def store_name(self, parse, where, given, check, section) -> str:
        for key in FOREST_KEYS:
            if getattr(parse, key):
                raise RankerError(f"{where}: {section} {key} is read only for a source of "
                                  f"{', '.join(file_sources())}, not {parse.source!r}")
        return self.name

    def obtain(self, ctx, parse, sentences, corpus, batch_size, source, reimport, section) -> ParseOutcome:
        from ..sources.parse_run import parse_into_store
        from .run_counts import SourceCounts

        options = link_grammar_options(parse)
        check_parse_options(ctx.store, options, source)
        summary = parse_into_store(ctx.store, list(sentences), options, workers=ctx.n_workers,
                                   batch_size=batch_size, progress=ctx.progress)
        return ParseOutcome(source, SourceCounts.parsed(summary), (), summary)


class NbestFileSource(CandidateSource):
    """A parser's n-best lists in a file format (``penn``, ``bllip``), imported once per content."""

    reads_files = True

    def store_name(self, parse, where, given, check, section) -> str:
        from .forest_files import forest_files

        files = forest_files(parse, where, self.name, check, section)
        return files.source if given is None else given

    def obtain(self, ctx, parse, sentences, corpus, batch_size, source, reimport, section) -> ParseOutcome:
        from .forest_files import forest_files

        files = forest_files(parse, ctx.where, self.name, section=section)
        got = self.import_files(ctx, files.files, source, corpus, reimport)
        return ParseOutcome(source, got.counts, tuple(got.notes),
                            got.summaries[0] if len(got.summaries) == 1 else None)

    def import_files(self, ctx, files: Sequence, source: str, corpus: str | None, reimport: bool,
                     new_corpus: str | None = None):
        """Import ``files`` of this format into ``ctx.store`` as ``source`` (an ``ImportOutcome``).

        One transaction with the source's record; files the store holds already are read again
        only with ``reimport``. ``new_corpus``: forests of sentences not stored add them to it.
        """
        from .forest_files import ForestFiles, import_forest_files

        return import_forest_files(ctx.store, ForestFiles(self.name, tuple(files), source), corpus, reimport,
                                   new_corpus=new_corpus)


def source_of(name: str, where: str = "") -> CandidateSource:
    """The registered source ``name`` (maybe versioned) stands for; unknown names raise, listing the known."""
    from ..registries import SOURCES

    entry = SOURCES.get(name, where)
    # a parser's class, or an n-best format (ranker.sources.nbest.NBEST_FORMATS), read from its files
    cls = entry if isinstance(entry, type) else NbestFileSource
    return cls(SOURCES.resolve(name).partition("/")[0])


def file_sources() -> tuple[str, ...]:
    """Bare names of the sources read from n-best files (``penn``, ``bllip``)."""
    from ..registries import SOURCES

    return tuple(n for n in SOURCES.names(bare=True) if source_of(n).reads_files)


def link_grammar_options(parse):
    """The parser options ``[parse]`` stands for (recorded with the source in the store)."""
    from ..sources.link_grammar import LinkGrammarOptions

    return LinkGrammarOptions(linkage_limit=parse.linkage_limit, null_links=parse.allow_null,
                              max_parse_time=_seconds(parse.max_parse_time))


def _seconds(budget: float) -> int | float:
    """A whole budget as an int (as stores record it), a fractional one kept (2.5 was read as 2)."""
    return int(budget) if float(budget).is_integer() else float(budget)


def check_parse_options(store, options, source: str | None = None, budget: bool = True) -> None:
    """Refuse to mix forests parsed with other options into this experiment (a stale cache).

    The record of reparses (``ranker parse --reparse``) is not an option: a store some of whose
    sentences were parsed again with another budget is still the one its options made.
    ``budget=False`` leaves ``max_parse_time`` out too (a reparse gives its own).
    """
    from ..sources.link_grammar import SOURCE

    source = source or SOURCE
    stored = {k: v for k, v in (store.source_options().get(source) or {}).items() if k != "reparsed"}
    wanted = dict(options._asdict())
    if not budget:
        stored.pop("max_parse_time", None)
        wanted.pop("max_parse_time", None)
    if stored and store.parsed_ids(source) and stored != wanted:
        if stored.get("budget") != wanted.get("budget"):   # issue 45: not a setting the user can give back
            raise RankerError(f"{store.path} holds Link Grammar forests parsed by an older ranker, whose "
                              "max_parse_time bounded each pass of a sentence afresh (now: all of them "
                              "together): parse into a new [experiment] store (--store)")
        diff = ", ".join(f"{k}={stored.get(k)!r} (config: {wanted.get(k)!r})"
                         for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k))
        raise RankerError(f"{store.path} holds Link Grammar forests parsed with other options: {diff}; "
                          "use another [experiment] store or the same [parse] settings")
