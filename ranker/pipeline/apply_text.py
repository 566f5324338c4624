"""Plain text for ``ranker apply --text``, read a chunk of lines at a time.

A large text is applied a chunk at a time (parsed, its features extracted, ranked and its trees
written before the next chunk is read), so memory is bounded by the chunk, not by the text; this
module reads the chunks. A line that cannot be decoded in the stated encoding is not the end of
the job: it stands as an empty line in its chunk and its own message (file, line, what is wrong),
as an empty line does, and the output keeps one line per input line.
"""
from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Iterator, NamedTuple


class TextChunk(NamedTuple):
    """Lines ``first .. first + len(lines) - 1`` of the file, and the messages of those that could not be decoded."""

    first: int
    lines: list[str]
    bad: dict[int, str]


def text_chunks(path: Path, encoding: str, size: int) -> Iterator[TextChunk]:
    """The file's lines (through gzip for ``.gz``) in chunks of ``size``, a leading byte-order mark dropped.

    Raises
    ------
    RankerError
        When the file cannot be opened or its compressed bytes are damaged (naming the file).
    """
    from ..errors import RankerError

    raw = gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")
    lines: list[str] = []
    bad: dict[int, str] = {}
    first = no = 1
    try:
        with raw, io.TextIOWrapper(raw, encoding=encoding, errors="surrogateescape", newline=None) as f:
            for no, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if no == 1 and line.startswith("\ufeff"):
                    line = line[1:]
                if any("\udc80" <= ch <= "\udcff" for ch in line):   # bytes the encoding cannot decode
                    bad[no] = f"{path}:{no}: not {encoding} text"
                    line = ""
                lines.append(line)
                if len(lines) == size:
                    yield TextChunk(first, lines, bad)
                    first, lines, bad = no + 1, [], {}
    except (OSError, EOFError) as e:
        raise RankerError(f"{path}: cannot be read after line {no} ({e})") from None
    if lines:
        yield TextChunk(first, lines, bad)
