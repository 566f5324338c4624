"""Finding and reading the linguistic rule tables in ``configs/`` (head rules, flattening, labels).

The tables are data files so that a user can read, cite and change them without touching code.
A name is a shipped table (``configs/<kind>/<name>.txt``, found through :mod:`ranker.shipped`);
a path to any other file works as well.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import RankerError
from ..shipped import shipped_file, shipped_names
from ..textfiles import read_text


class RuleFileError(RankerError, ValueError):
    """A malformed rule table; ``str()`` reads ``file:line: message``."""

    def __init__(self, source: str, line: int, message: str):
        super().__init__(f"{source}:{line}: {message}")
        self.source, self.line, self.message = source, line, message


def config_path(kind: str, path_or_name: str | Path) -> Path:
    """Resolve a table name (``"collins"`` -> ``configs/heads/collins.txt``) or pass a path through.

    Raises
    ------
    FileNotFoundError
        When neither a file of that path nor a table of that name exists (the message lists the
        tables that do).
    """
    p = Path(path_or_name)
    if p.is_file():
        return p
    named = shipped_file(kind, str(path_or_name), ".txt")
    if named is not None:
        return named
    known = shipped_names(kind, ".txt")
    raise FileNotFoundError(f"{path_or_name}: no such file and no {kind} table of that name "
                            f"(known: {', '.join(known) or 'none'})")


def rule_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line that is neither blank nor a comment.

    Comments are whole lines starting with ``#``: ``#`` is also a PTB tag (the pound sign), so a
    ``#`` inside a rule is data. A file that is not UTF-8 text is a
    :class:`~ranker.textfiles.TextFileError` naming this file, line and column.
    """
    for number, raw in enumerate(read_text(path).splitlines(), 1):
        text = raw.strip()
        if text.startswith("#"):
            continue
        if text:
            yield number, text
