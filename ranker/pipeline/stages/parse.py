"""The ``parse_or_import`` stage: the candidates parsed with Link Grammar or imported from files.

Each ``[parse] source`` is an object of :mod:`ranker.pipeline.candidate_sources` (the registry's
entry) that names its candidates and obtains them; this stage asks it.
"""
from __future__ import annotations

from typing import Sequence

from ...errors import RankerError
from ...store.records import Sentence
from ..candidate_sources import ParseOutcome, check_parse_options, file_sources, link_grammar_options, source_of
from ..config import ParseSection
from ..reparse import reparse
from .context import StageContext

__all__ = ["ParseOutcome", "candidate_source", "check_parse_options", "import_forests", "link_grammar_options",
           "parse_or_import", "parse_statuses", "reparse", "source_format"]


def candidate_source(parse: ParseSection, where: str = "<config>", name: str | None = None,
                     check: bool = True, section: str = "[parse]") -> str:
    """The store's name for the candidates ``[parse]`` asks for (checked, nothing read yet).

    Forests read from files are named ``<format>:<file name>`` (``<format>:<file>+<file>...`` when
    the splits name files of their own, :mod:`.forest_files`) unless ``name`` is given;
    ``check=False`` does not look for the files (a recorded run's sources, read back). ``section``
    is the config section errors name (``[evidence]`` for :func:`.evidence.evidence_parse`'s).
    """
    return source_of(parse.source, f"{where}: {section} source").store_name(parse, where, name, check, section)


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
    source = candidate_source(parse, ctx.where, name, section=section)
    return source_of(parse.source).obtain(ctx, parse, sentences, corpus, batch_size, source, reimport, section)


def import_forests(ctx: StageContext, fmt: str, files: Sequence, source: str, corpus: str | None,
                   new_corpus: str | None = None, reimport: bool = True):
    """Import n-best ``files`` of format ``fmt`` named on the command line, as ``source``: an ``ImportOutcome``.

    ``ranker import`` and ``ranker apply --lists --store`` read files the user names (always
    read again: ``reimport``), where :func:`parse_or_import` reads those of ``[parse]``; both ask
    the format's candidate source (:mod:`ranker.pipeline.candidate_sources`). ``corpus``: match
    forests to its sentences only; ``new_corpus``: forests of sentences not stored add them to it.
    """
    got = source_of(fmt, "--format")
    if not got.reads_files:
        raise RankerError(f"--format {fmt}: not a format of n-best files ({', '.join(file_sources())})")
    return got.import_files(ctx, files, source, corpus, reimport, new_corpus)


def source_format(source: str) -> str:
    """The bare registered name of a ``[parse] source`` (``"bllip/1"`` -> ``"bllip"``)."""
    return source_of(source).name


def parse_statuses(ctx: StageContext, sentences: Sequence[Sentence]) -> dict[str, dict[str, int]]:
    """Link Grammar's parse statuses of ``sentences`` by length bin, as the store logged them (the
    report's table; empty when the candidates were read from files, which log no parse)."""
    from ...sources.link_grammar import SOURCE
    from ...sources.parse_statuses import stored_statuses_by_length

    if ctx.source != SOURCE:
        return {}
    return stored_statuses_by_length(ctx.store, SOURCE, [s.id for s in sentences])
