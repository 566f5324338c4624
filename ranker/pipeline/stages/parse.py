"""The ``parse_or_import`` stage: the candidates parsed with Link Grammar or imported from files."""
from __future__ import annotations

from typing import NamedTuple, Sequence

from ...errors import RankerError
from ...store import Store
from ...store.records import Sentence
from ..config import ParseSection
from ..run_counts import SourceCounts
from .context import LINK_GRAMMAR, StageContext


class ParseOutcome(NamedTuple):
    """The candidate source the later stages read, and what parsing or importing did."""

    source: str                     # the store's source name of the candidates
    counts: SourceCounts            # what parsing or importing did now (ranker.pipeline.run_counts)
    notes: tuple[str, ...]          # report notes (rejected forests)
    summary: object = None          # Link Grammar's ParseSummary, or the n-best ImportSummary


def candidate_source(parse: ParseSection, where: str = "<config>", name: str | None = None,
                     check: bool = True, section: str = "[parse]") -> str:
    """The store's name for the candidates ``[parse]`` asks for (checked, nothing read yet).

    Forests read from files are named ``<format>:<file name>`` (``<format>:<file>+<file>...`` when
    the splits name files of their own, :mod:`.forest_files`) unless ``name`` is given;
    ``check=False`` does not look for the files (a recorded run's sources, read back). ``section``
    is the config section errors name (``[evidence]`` for :func:`.evidence.evidence_parse`'s).
    """
    from ...registries import SOURCES, file_sources

    source_name = name
    kind = SOURCES.get(parse.source, f"{where}: {section} source")
    name = SOURCES.resolve(parse.source).partition("/")[0]
    if kind == "parser":
        for key in ("forests", "train_forests", "heldout_forests", "test_forests"):
            if getattr(parse, key):
                raise RankerError(f"{where}: {section} {key} is read only for a source of "
                                  f"{', '.join(file_sources())}, not {parse.source!r}")
        return name
    from ..forest_files import forest_files

    assert name in file_sources()
    files = forest_files(parse, where, name, check, section)
    return files.source if source_name is None else source_name


def link_grammar_options(parse: ParseSection):
    """The parser options ``[parse]`` stands for (recorded with the source in the store)."""
    from ...sources.link_grammar import LinkGrammarOptions

    return LinkGrammarOptions(linkage_limit=parse.linkage_limit, null_links=parse.allow_null,
                              max_parse_time=int(round(parse.max_parse_time)))


def check_parse_options(store: Store, options) -> None:
    """Refuse to mix forests parsed with other options into this experiment (a stale cache)."""
    stored = store.source_options().get(LINK_GRAMMAR)
    wanted = dict(options._asdict())
    if stored and store.parsed_ids(LINK_GRAMMAR) and stored != wanted:
        diff = ", ".join(f"{k}={stored.get(k)!r} (config: {wanted.get(k)!r})"
                         for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k))
        raise RankerError(f"{store.path} holds Link Grammar forests parsed with other options: {diff}; "
                          "use another [experiment] store or the same [parse] settings")


def parse_or_import(ctx: StageContext, parse: ParseSection, sentences: Sequence[Sentence], corpus: str,
                    batch_size: int = 20, name: str | None = None,
                    reimport: bool = False, section: str = "[parse]") -> ParseOutcome:
    """Parse ``sentences`` with Link Grammar (those not parsed yet), or import ``[parse] forests``.

    n-best files are imported unless the store holds exactly these files already (their digests
    are kept with the source), or always with ``reimport``; ``summary`` is the file's
    ``ImportSummary`` when exactly one file was read now.

    Parameters
    ----------
    corpus : str
        The corpus imported forests belong to.
    name : str, optional
        The source name of imported forests (default ``<format>:<file name>``).
    """
    store, where = ctx.store, ctx.where
    source = candidate_source(parse, where, name, section=section)
    if source == LINK_GRAMMAR:
        from ...sources.parse_run import parse_into_store

        options = link_grammar_options(parse)
        check_parse_options(store, options)
        summary = parse_into_store(store, list(sentences), options, workers=ctx.n_workers,
                                   batch_size=batch_size, progress=ctx.progress)
        return ParseOutcome(source, SourceCounts.parsed(summary), (), summary)
    from ..forest_files import forest_files, import_forest_files

    files = forest_files(parse, where, source_format(parse.source), section=section)._replace(source=source)
    got = import_forest_files(store, files, corpus, reimport)
    return ParseOutcome(source, got.counts, tuple(got.notes),
                        got.summaries[0] if len(got.summaries) == 1 else None)


def source_format(source: str) -> str:
    """The bare registered name of a ``[parse] source`` (``"bllip/1"`` -> ``"bllip"``)."""
    from ...registries import SOURCES

    return SOURCES.resolve(source).partition("/")[0]
