"""Names a package exports but loads on first use, so that importing the package stays cheap.

``ranker`` and ``ranker.evaluation`` both keep a table of public name -> defining module and
answer ``module.name`` through a module ``__getattr__`` made here: ``ranker evalb`` and ``ranker
--help`` then import neither numpy nor the modules they do not run.
"""
from __future__ import annotations

from importlib import import_module
from typing import Callable


def lazy_getattr(package: str, table: dict[str, str], namespace: dict,
                 prefix: str = "") -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: ``table[name]`` (after ``prefix``) is imported on the
    first access of ``name`` and the value kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str):
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(prefix + module), name)
        namespace[name] = value
        return value

    return __getattr__
