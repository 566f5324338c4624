"""The data tables ranker ships and finds by name: head rules, EVALB parameters, K tables, ...

A name such as ``collins`` (head rules), ``COLLINS`` (EVALB) or ``penn`` (K table) stands for a
file ranker ships. In the repository these files are the folders of ``configs/`` (``heads``,
``flatten``, ``deps``, ``evalb``, ``k-tables``, ``features``, ``labels``), kept at the top so that
users read, cite and change them without touching code; installed, they are the package data of
``ranker.configs``, which ``pyproject.toml`` maps onto ``configs/``. Every lookup goes through
:mod:`importlib.resources` here, never through a path computed from a module's own location, so a
wheel installed anywhere, an editable install and a source checkout find the same tables, and a
table missing from the wheel is a failed lookup (``tests/test_wheel.py`` runs the installed
commands from another folder).

A path always wins over a name (each loader tries the path first), so a config or option that
names a file of its own, relative to the working directory, reads that file.
"""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from .errors import RankerError

#: The package whose data the tables are (``configs/`` in the repository).
PACKAGE = "ranker.configs"


def shipped_dir(kind: str) -> Path:
    """The folder of the shipped tables of one kind (``"heads"`` -> ``configs/heads``).

    Raises
    ------
    RankerError
        When ranker is installed in a form whose data are not plain files (a zip archive).
    """
    root = files(PACKAGE)
    if not isinstance(root, Path):   # a zipped install: every reader here opens plain files
        raise RankerError(f"ranker's data tables are not plain files ({root}); install ranker unzipped")
    return root / kind


def shipped_file(kind: str, name: str, suffix: str) -> Path | None:
    """The shipped table ``name`` of ``kind`` (``configs/<kind>/<name><suffix>``), or None."""
    path = shipped_dir(kind) / f"{name}{suffix}"
    return path if path.is_file() else None


def shipped_names(kind: str, suffix: str) -> list[str]:
    """The names of the shipped tables of ``kind``, sorted (for messages that list what exists)."""
    return sorted(p.name[:-len(suffix)] for p in shipped_dir(kind).glob(f"*{suffix}") if p.is_file())
