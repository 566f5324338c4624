"""The two input files of ``ranker evalb``, read as bytes and checked before any line is scored.

One implementation for the compiled path (:mod:`.evalb_native`) and the numpy path
(:mod:`.evalb_fast`), so both refuse the same input with the same words: a file that is not UTF-8
text (file:line:column of the first bad byte) and files of different line counts (EVALB pairs
trees line by line).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import RankerError
from ..textfiles import decode_text

_CHECK_BYTES = 1 << 20   # UTF-8 is checked in slices of this size, so no whole-file str is made


class EvalbInputError(RankerError, ValueError):
    """Gold and test files that EVALB cannot pair line by line."""


def line_count(data: bytes) -> int:
    """Lines of a text, the last one counted whether or not it ends in a newline."""
    n = data.count(b"\n")
    return n + (1 if data and not data.endswith(b"\n") else 0)


def check_utf8(data: bytes, source: str) -> None:
    """Raise :class:`ranker.textfiles.TextFileError` naming the first byte that is not UTF-8."""
    if data.isascii():
        return
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for k in range(0, len(data), _CHECK_BYTES):
            decoder.decode(data[k:k + _CHECK_BYTES])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        decode_text(data, source)          # raises with file:line:column
        raise


def check_pair(gold: bytes, test: bytes, gold_source: str, test_source: str) -> int:
    """Check both texts and return their common number of lines.

    Raises
    ------
    ranker.textfiles.TextFileError
        For a text that is not UTF-8.
    EvalbInputError
        When the numbers of lines differ.
    """
    check_utf8(gold, gold_source)
    check_utf8(test, test_source)
    n1, n2 = line_count(gold), line_count(test)
    if n1 != n2:
        raise EvalbInputError(f"{gold_source} has {n1} lines but {test_source} has {n2}; "
                              "EVALB pairs trees line by line")
    return n1


def read_pair(gold_path: str | Path, test_path: str | Path) -> tuple[bytes, bytes]:
    """The bytes of both files; a missing one is ``FileNotFoundError`` naming it."""
    data = []
    for p in (gold_path, test_path):
        try:
            data.append(Path(p).read_bytes())
        except FileNotFoundError:
            raise FileNotFoundError(f"{p}: no such file") from None
    return data[0], data[1]
