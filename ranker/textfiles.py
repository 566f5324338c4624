"""Reading user files as UTF-8 text, with an error that names the file, line and column of a bad byte.

Every reader of user input (trees, EVALB parameter files, rule tables) decodes through here, so a
binary or Latin-1 file is one ``ranker: error:`` line pointing at the offending byte, never a
traceback and never an error blaming another file.
"""
from __future__ import annotations

from pathlib import Path

from .errors import RankerError


#: The UTF-8 byte order mark (U+FEFF encoded), which some editors put at the start of a file.
BOM = b"\xef\xbb\xbf"


class TextFileError(RankerError, ValueError):
    """A file that is not UTF-8 text; ``str()`` reads ``file:line:column: not UTF-8 text ...``."""


def decode_text(data: bytes, source: str, line_offset: int = 0, encoding: str = "utf-8") -> str:
    """Decode ``data`` (UTF-8 unless told), or raise :class:`TextFileError` at the first undecodable byte.

    A UTF-8 file's leading byte order mark (U+FEFF, as Windows editors write) is dropped: it is no
    character of the text (a TOML parser or a tree reader would stop at it).

    Parameters
    ----------
    data
        The raw bytes.
    source
        The file name used in the message.
    line_offset
        Lines before ``data`` in its file, for callers that decode a slice.
    encoding
        The encoding the file is stated to be in (a corpus's ``[data] encoding``).
    """
    utf8 = encoding.replace("_", "-").lower() in ("utf-8", "utf8")
    skip = len(BOM) if utf8 and line_offset == 0 and data.startswith(BOM) else 0   # Notepad's mark
    try:
        return data[skip:].decode(encoding)
    except UnicodeDecodeError as e:
        start = e.start + skip
        line = data.count(b"\n", 0, start) + 1 + line_offset
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        name = "UTF-8" if utf8 else encoding
        raise TextFileError(f"{source}:{line}:{column}: not {name} text "
                            f"(byte 0x{data[start]:02x}: {e.reason})") from None


def read_text(path: str | Path, what: str = "file") -> str:
    """The contents of ``path`` as UTF-8 text; a missing file says ``no such {what}``.

    Raises
    ------
    FileNotFoundError, TextFileError
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such {what}") from None
    return decode_text(data, str(path))
