"""The parse stage for forests users bring: one n-best file per split (or one for all), imported once.

``[parse] forests`` names one file for every split; ``train_forests``, ``heldout_forests`` and
``test_forests`` override it split by split (the BLLIP lists of the WSJ sample come as three
files). All files' candidates form one source, named after the files, so every later stage keys
its caches by it. A store that already holds exactly these files (same names, same bytes) is not
imported again: a warm rerun reads nothing but the files' digests.
"""
from __future__ import annotations

from .run_counts import SourceCounts

from pathlib import Path
from typing import NamedTuple

from ..errors import RankerError


class ForestFiles(NamedTuple):
    """The n-best files of an experiment, distinct, in split order, and their source name."""

    fmt: str
    files: tuple[Path, ...]
    source: str


def forest_files(parse, where: str, fmt: str | None = None, check: bool = True,
                 section: str = "[parse]") -> ForestFiles:
    """The files a ``[parse]`` section names for its splits, checked to exist.

    ``fmt`` is the file format (default ``parse.source``); it names the source, ``<fmt>:<file>``
    or ``<fmt>:<file>+<file>...`` for several files. ``check=False`` names them without looking
    for the files (reading back a recorded run's sources, from wherever the reader runs).
    ``section`` is the config section the messages name (``[evidence]`` reads its files here too).

    Raises
    ------
    RankerError
        When no file is named for some split, or (``check``) a named file does not exist.
    """
    files: list[Path] = []
    for split in ("train", "heldout", "test"):
        name = getattr(parse, f"{split}_forests") or parse.forests
        if not name:
            raise RankerError(f"{where}: {section} source {parse.source!r} needs forests = \"FILE\" "
                              f"(or {split}_forests = \"FILE\"): the n-best file to read")
        path = Path(name)
        if check and not path.is_file():
            key = f"{split}_forests" if getattr(parse, f"{split}_forests") else "forests"
            raise RankerError(f"{where}: {section} {key}: no such file {name}")
        if path not in files:
            files.append(path)
    fmt = fmt or parse.source
    return ForestFiles(fmt, tuple(files), f"{fmt}:{'+'.join(p.name for p in files)}")


class ImportOutcome(NamedTuple):
    """What importing the files did: report counts, notes, and one summary per file read now."""

    counts: SourceCounts              # forests and candidates read now (0 and 0 when the store held them)
    notes: list[str]                  # rejected forests, one note per file with any
    summaries: tuple                  # ImportSummary of each file read now (none when cached)


def import_forest_files(store, ff: ForestFiles, corpus: str | None, reimport: bool = False,
                        new_corpus: str | None = None) -> ImportOutcome:
    """Import every file of ``ff`` into ``store`` unless it holds exactly these files already.

    ``reimport`` reads them even then (``ranker import``: the user asked for it). All files and
    the source's provenance row (format, files, digests, notes: :func:`ranker.sources.nbest.provenance`) are one
    transaction: a file refused whole (:func:`ranker.sources.nbest.import_files`) leaves the store
    as it was. With ``new_corpus``, forests of sentences not stored add them to that corpus
    (:func:`ranker.sources.nbest.import_files`).
    """
    from ..sources.nbest import file_digest, import_files, provenance

    digests = [file_digest(p) for p in ff.files]
    notes: list[str] = []
    stored = store.source_options().get(ff.source) or {}
    held = dict(zip(stored.get("files", ()), stored.get("sha256", ())))
    if not reimport and stored.get("format") == ff.fmt \
            and all(held.get(str(p)) == d for p, d in zip(ff.files, digests)):
        mine = [n for n in stored.get("notes", ()) if any(f" of {p} " in n for p in ff.files)]
        return ImportOutcome(SourceCounts.imported(), mine, ())
    with store.batch():
        summaries = import_files(store, ff.files, ff.fmt, ff.source, corpus, new_corpus=new_corpus)
        for path, got in zip(ff.files, summaries):
            if got.errors:
                notes.append(f"{len(got.errors)} forests of {path} were rejected, e.g. {got.errors[0]}")
        store.add_source(ff.source, provenance(stored, ff.fmt, ff.files, digests, notes))
    return ImportOutcome(SourceCounts.imported(summaries), notes, summaries)
