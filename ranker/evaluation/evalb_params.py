"""EVALB parameter (``.prm``) files, read as EVALB reads them, but strict about what EVALB only warns on.

EVALB's ``read_parameter_file``: each line has trailing white space removed; a line starting with
``#`` or shorter than three characters is ignored; the first white-space-delimited word is the key
and the rest of the line (after the white space) is the value, kept whole. ``DELETE_LABEL`` and
``DELETE_LABEL_FOR_LENGTH`` are distinct keys (a key matches only when followed by white space or
the end of line).

Where EVALB prints a warning and carries on (an unknown key, an ``EQ_LABEL`` with other than two
values, an empty value), we raise :class:`EvalbParamError` naming the file and line: a misspelt
key silently changes every score, which is worse than stopping. Likewise for numbers: EVALB reads
them with C's ``atoi``, so ``LABELED yes`` is 0 (unlabelled scoring) and ``MAX_ERROR ten`` is 0;
we require a whole non-negative integer (``LABELED`` 0 or 1) and name the line otherwise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import RankerError
from ..shipped import shipped_file, shipped_names
from ..textfiles import read_text

_INTEGER = re.compile(r"\+?\d+")
_KEYS = ("DEBUG", "MAX_ERROR", "CUTOFF_LEN", "LABELED", "DELETE_LABEL", "DELETE_LABEL_FOR_LENGTH",
         "QUOTE_LABEL", "EQ_LABEL", "EQ_WORD")


class EvalbParamError(RankerError, ValueError):
    """A parameter file EVALB would misread; the message reads ``file:line: what``."""


@dataclass(frozen=True)
class EvalbParams:
    """The settings of one EVALB run; the defaults are EVALB's when no ``-p`` file is given.

    Label lists keep file order; ``eq_labels`` and ``eq_words`` are non-directional pairs.
    """

    debug: int = 0
    max_error: int = 10
    cutoff_len: int = 40
    labeled: bool = True
    delete_labels: tuple[str, ...] = ()
    delete_labels_for_length: tuple[str, ...] = ()
    quote_labels: tuple[str, ...] = ()
    eq_labels: tuple[tuple[str, str], ...] = ()
    eq_words: tuple[tuple[str, str], ...] = ()

    def label_equal(self, a: str, b: str) -> bool:
        """EVALB's ``label_comp``: equal strings or a declared ``EQ_LABEL`` pair (either way round)."""
        if a == b:
            return True
        return any((a == x and b == y) or (a == y and b == x) for x, y in self.eq_labels)

    def word_equal(self, a: str, b: str) -> bool:
        """EVALB's ``word_comp``: equal strings or a declared ``EQ_WORD`` pair."""
        if a == b:
            return True
        return any((a == x and b == y) or (a == y and b == x) for x, y in self.eq_words)

    def deletes_bracket(self, label: str) -> bool:
        """True when a (function-tag-stripped) bracket label matches a ``DELETE_LABEL`` via ``label_comp``."""
        return any(self.label_equal(label, d) for d in self.delete_labels)


def _integer(key: str, value: str, source: str, lineno: int) -> int:
    """A numeric value, whole: where EVALB's ``atoi`` would read a word as 0, we stop."""
    if not _INTEGER.fullmatch(value):
        raise EvalbParamError(f"{source}:{lineno}: {key} needs a non-negative integer, got {value!r}")
    number = int(value)
    if key == "LABELED" and number not in (0, 1):
        raise EvalbParamError(f"{source}:{lineno}: LABELED is 0 (unlabelled) or 1 (labelled), "
                              f"got {value!r}")
    if key == "CUTOFF_LEN" and number < 1:
        raise EvalbParamError(f"{source}:{lineno}: {_BELOW_ONE}, got {value!r}")
    return number


_BELOW_ONE = "CUTOFF_LEN needs a positive integer (every sentence has a word: 0 would leave none)"


def check_override(key: str, value: int | None) -> int | None:
    """An option that overrides ``key`` (``ranker evalb -e`` MAX_ERROR, ``-c`` CUTOFF_LEN), checked as
    the parameter file's value is: a non-negative integer, a positive one for CUTOFF_LEN."""
    option = {"MAX_ERROR": "-e", "CUTOFF_LEN": "-c"}[key]
    if value is not None and value < 0:
        raise EvalbParamError(f"{option} {value}: {key} needs a non-negative integer")
    if value is not None and key == "CUTOFF_LEN" and value < 1:
        raise EvalbParamError(f"{option} {value}: {_BELOW_ONE}")
    return value


def parse_params(text: str, source: str = "<string>") -> EvalbParams:
    """Read the text of an EVALB parameter file.

    Parameters
    ----------
    text
        The file's contents.
    source
        Name used in error messages.

    Returns
    -------
    EvalbParams

    Raises
    ------
    EvalbParamError
        For an unknown key, an empty value, a number that is not a whole non-negative integer
        (``LABELED`` 0 or 1), or an ``EQ_LABEL``/``EQ_WORD`` without exactly two values.
    """
    values: dict[str, object] = {}
    lists: dict[str, list] = {k: [] for k in ("DELETE_LABEL", "DELETE_LABEL_FOR_LENGTH",
                                              "QUOTE_LABEL", "EQ_LABEL", "EQ_WORD")}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if line.startswith("#") or len(line) < 3:
            continue
        parts = line.split(None, 1)
        key = parts[0] if not line[0].isspace() else ""
        value = parts[1] if len(parts) > 1 and key else ""
        if key not in _KEYS:
            raise EvalbParamError(f"{source}:{lineno}: unknown key {key or line.strip()!r} "
                                  f"(known: {', '.join(_KEYS)})")
        if not value:
            raise EvalbParamError(f"{source}:{lineno}: {key} has no value")
        if key in ("EQ_LABEL", "EQ_WORD"):
            pair = value.split()
            if len(pair) != 2:
                raise EvalbParamError(f"{source}:{lineno}: {key} requires two values, got {value!r}")
            lists[key].append((pair[0], pair[1]))
        elif key in lists:
            lists[key].append(value)
        else:
            values[key] = _integer(key, value, source, lineno)
    return EvalbParams(
        debug=int(values.get("DEBUG", 0)),
        max_error=int(values.get("MAX_ERROR", 10)),
        cutoff_len=int(values.get("CUTOFF_LEN", 40)),
        labeled=int(values.get("LABELED", 1)) != 0,
        delete_labels=tuple(lists["DELETE_LABEL"]),
        delete_labels_for_length=tuple(lists["DELETE_LABEL_FOR_LENGTH"]),
        quote_labels=tuple(lists["QUOTE_LABEL"]),
        eq_labels=tuple(lists["EQ_LABEL"]),
        eq_words=tuple(lists["EQ_WORD"]),
    )


def read_params(path: str | Path) -> EvalbParams:
    """Read an EVALB parameter file from disk (see :func:`parse_params`)."""
    return parse_params(read_text(path, "parameter file"), str(path))


def load_params(name_or_path: str | Path) -> EvalbParams:
    """A shipped parameter set by name (``"COLLINS"`` -> ``configs/evalb/COLLINS.prm``) or a file path."""
    p = Path(name_or_path)
    if p.suffix == ".prm" or p.exists() or len(p.parts) > 1:
        return read_params(p)
    shipped = shipped_file("evalb", str(name_or_path), ".prm")
    if shipped is None:
        known = shipped_names("evalb", ".prm")
        raise EvalbParamError(f"no EVALB parameter set {str(name_or_path)!r} "
                              f"(shipped: {', '.join(known)}; or give a path to a .prm file)")
    return read_params(shipped)
