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


def is_utf8(data) -> bool:
    """Whether ``data`` (bytes, or a mapped file) is UTF-8 text, decoded in slices so that no
    whole-file str is made."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for k in range(0, len(data), _CHECK_BYTES):
            decoder.decode(data[k:k + _CHECK_BYTES])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def check_utf8(data: bytes, source: str) -> None:
    """Raise :class:`ranker.textfiles.TextFileError` naming the first byte that is not UTF-8."""
    if not data.isascii() and not is_utf8(data):
        decode_text(data, source)          # raises with file:line:column


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


class InputFile:
    """One input of ``ranker evalb``, named as given; bytes that can be read only once are kept.

    A regular file is read twice, streaming (checked whole, then scored block by block, so memory
    stays flat). A pipe (``<(cat t.mrg)``, ``/dev/stdin``, a named FIFO) gives its bytes once: a
    second read would find it empty (no sentence scored) or, for a FIFO, wait for a writer that
    never comes. Those are read once, here, and both passes read the copy.
    """

    def __init__(self, path: str | Path):
        import os
        import stat

        self.path = path
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError:
            regular = True   # opened as a file, to fail as one (missing: "no such file")
        self.data = None if regular else _read_bytes(path)

    def __str__(self) -> str:
        return str(self.path)

    def open(self):
        """The bytes, as a binary file (read from the start)."""
        import io

        return open(self.path, "rb") if self.data is None else io.BytesIO(self.data)

    def read_bytes(self) -> bytes:
        return _read_bytes(self.path) if self.data is None else self.data


def _read_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None


def _input(p: str | Path | InputFile) -> InputFile:
    return p if isinstance(p, InputFile) else InputFile(p)


def check_files(gold_path: str | Path | InputFile, test_path: str | Path | InputFile) -> int:
    """:func:`check_pair` of two files read block by block (no whole file in memory); their line count.

    Raises
    ------
    FileNotFoundError
        Naming a missing file.
    ranker.textfiles.TextFileError, EvalbInputError
        As :func:`check_pair`.
    """
    import codecs

    counts = []
    for p in (gold_path, test_path):
        p = _input(p)
        n, last = 0, b"\n"
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            with p.open() as f:
                while block := f.read(_CHECK_BYTES):
                    n += block.count(b"\n")
                    last = block[-1:]
                    if not block.isascii() or decoder.getstate()[0]:
                        decoder.decode(block)
            decoder.decode(b"", final=True)
        except FileNotFoundError:
            raise FileNotFoundError(f"{p}: no such file") from None
        except UnicodeDecodeError:
            decode_text(p.read_bytes(), str(p))    # raises, naming line and column
            raise
        counts.append(n + (0 if last == b"\n" else 1))
    if counts[0] != counts[1]:
        raise EvalbInputError(f"{gold_path} has {counts[0]} lines but {test_path} has {counts[1]}; "
                              "EVALB pairs trees line by line")
    return counts[0]


class LineBlocks:
    """A file read in blocks of whole lines: by size (:meth:`take_bytes`) or by count (:meth:`take_lines`)."""

    def __init__(self, path: str | Path | InputFile):
        self._f = _input(path).open()
        self._buf = b""
        self._eof = False

    def __enter__(self) -> "LineBlocks":
        return self

    def __exit__(self, *exc) -> None:
        self._f.close()

    def _fill(self, size: int) -> None:
        block = self._f.read(size)
        if block:
            self._buf += block
        else:
            self._eof = True

    def take_bytes(self, size: int) -> bytes:
        """About ``size`` bytes ending at a line's end (more if one line is longer); b"" at the end."""
        while len(self._buf) < size and not self._eof:
            self._fill(size - len(self._buf))
        if len(self._buf) <= size and self._eof:
            cut = len(self._buf)
        else:
            cut = self._buf.rfind(b"\n", 0, size) + 1
            while cut == 0:                       # no line ends within size: a longer line
                k = self._buf.find(b"\n")
                if k >= 0:
                    cut = k + 1
                elif self._eof:
                    cut = len(self._buf)
                else:
                    self._fill(size)
        out, self._buf = self._buf[:cut], self._buf[cut:]
        return out

    def take_lines(self, n: int) -> bytes:
        """The next ``n`` lines (fewer at the end of the file)."""
        pos, found = 0, 0
        while True:
            while found < n:
                k = self._buf.find(b"\n", pos)
                if k < 0:
                    break
                pos, found = k + 1, found + 1
            if found == n or self._eof:
                break
            self._fill(_CHECK_BYTES)
        if found < n:
            pos = len(self._buf)
        out, self._buf = self._buf[:pos], self._buf[pos:]
        return out


def read_pair(gold_path: str | Path, test_path: str | Path) -> tuple[bytes, bytes]:
    """The bytes of both files; a missing one is ``FileNotFoundError`` naming it."""
    return _read_bytes(gold_path), _read_bytes(test_path)
