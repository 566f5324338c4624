"""The lines of a text of one sentence a line: the one reading of them, whole or a chunk at a time.

A line is what stands between two ``\\n`` (a ``\\r`` before the ``\\n`` dropped, as Windows ends
lines). A form feed, a vertical tab or a Unicode line separator (U+2028) within a line is a
character of that line (white space between its tokens), not the end of it: ``str.splitlines``
cuts at those too, which made a text read whole (``ranker apply --store``) longer than the same
text read a chunk at a time, and every tree after such a line stood against the wrong input line
(issue 44, item 4). :func:`split_lines` (a decoded text) and :func:`text_chunks` (a file, as it is
read) are the two ways in, and they cut alike.

A large text is applied a chunk at a time (parsed, its features extracted, ranked and its trees
written before the next chunk is read), so memory is bounded by the chunk, not by the text;
:func:`text_chunks` reads the chunks. A line that cannot be decoded in the stated encoding is not
the end of the job: it stands as an empty line in its chunk with its own message (file, line,
column, what is wrong), and the output keeps one line per input line.
"""
from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Iterator, NamedTuple


def split_lines(text: str) -> list[str]:
    """The lines of a decoded text: cut at ``\\n`` alone, a ``\\r`` before it dropped, no last empty line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [_line_text(line) for line in lines]


def _line_text(line: str) -> str:
    """A line as read with its end (``\\n``, ``\\r\\n``, or none at the end of a file) taken off."""
    if line.endswith("\n"):
        line = line[:-1]
    return line[:-1] if line.endswith("\r") else line


class TextChunk(NamedTuple):
    """Lines ``first .. first + len(lines) - 1`` of the file, and the messages of those that could not be decoded."""

    first: int
    lines: list[str]
    bad: dict[int, str]


def text_chunks(path: Path, encoding: str, size: int | None) -> Iterator[TextChunk]:
    """The file's lines (through gzip for ``.gz``) in chunks of ``size`` (``None``: one chunk of all),
    a leading byte-order mark dropped.

    When the compressed bytes are damaged, the lines read before the damage come as a last chunk
    first, so that their trees are written (issue 44, item 6: with the default chunk they were
    read and lost), and then the error.

    Raises
    ------
    RankerError
        When the file cannot be opened or read on (damaged compressed bytes), naming the file and
        the last line read.
    """
    from ..errors import RankerError

    lines: list[str] = []
    bad: dict[int, str] = {}
    first = no = 1
    error = None
    try:
        raw = gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")
        # newline="\n": lines end at "\n" alone (None, the default, also cuts at a lone "\r")
        with raw, io.TextIOWrapper(raw, encoding=encoding, errors="surrogateescape", newline="\n") as f:
            no = 0
            for no, line in enumerate(f, 1):
                line = _line_text(line)
                if no == 1 and line.startswith("\ufeff"):
                    line = line[1:]
                if any("\udc80" <= ch <= "\udcff" for ch in line):   # bytes the encoding cannot decode
                    bad[no] = _undecodable(line, path, no, encoding)
                    line = ""
                lines.append(line)
                if size is not None and len(lines) == size:
                    yield TextChunk(first, lines, bad)
                    first, lines, bad = no + 1, [], {}
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
        error = RankerError(f"{path}: cannot be read after line {no} ({e})")
    if lines or (size is None and error is None):   # an empty file read whole: one chunk of no line
        yield TextChunk(first, lines, bad)
    if error is not None:
        raise error


def _undecodable(line: str, path: Path, no: int, encoding: str) -> str:
    """The message of line ``no``, read with undecodable bytes escaped: ``file:line:column: not ... text``."""
    from ..textfiles import TextFileError, decode_text

    try:
        decode_text(line.encode(encoding, "surrogateescape"), str(path), no - 1, encoding)
    except TextFileError as e:
        return str(e)
    except (UnicodeError, LookupError):
        pass
    return f"{path}:{no}: not {encoding} text"
