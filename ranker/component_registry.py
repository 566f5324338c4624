"""Registries of components by versioned name (``"heidorn/1"``), one per component kind.

As with the feature families (:mod:`ranker.features.registry`), a config or command names a component by
``name/version`` so that an old config keeps meaning the same thing: a component whose behaviour
changes is registered under a new version and the old one stays. A bare ``name`` means its
highest version. An item may be registered as ``"module:attribute"`` (or ``"module:table:key"``),
imported on first :meth:`Registry.get`, so that listing names (``--help``, argument choices)
imports nothing heavy; a whole table (``"module:table"``, a dict by bare name) may stand for its
entries (:meth:`Registry.register_table`), read when a name is first asked for and read again at
each use, so the names are written once, in the table, and an entry added to the table (a plug-in,
a test's toy) is registered with no second line anywhere.

An entry builds its component from the config (:meth:`Registry.build`): a class entry through its
``from_config(config)`` class method, which reads its own sections of the
:class:`~ranker.pipeline.config.ExperimentConfig`, so no caller picks a class by its name.
"""
from __future__ import annotations

from importlib import import_module
from typing import Generic, TypeVar

from .errors import RankerError

T = TypeVar("T")


class Registry(Generic[T]):
    """Components of one kind (rankers, sources, corpora, metrics) by versioned name."""

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}
        self._tables: list[tuple[str, int]] = []
        self._from_tables: set[str] = set()

    def register_table(self, spec: str, version: int = 1) -> None:
        """Register every entry of the dict ``"module:table"`` as ``"key/version"``, on first use.

        The table stays the definition: an entry added to it later is registered at the next
        use, one removed is gone, and :meth:`get` reads the entry from the table each time.
        """
        self._tables.append((spec, version))

    def _load_tables(self) -> None:
        current: set[str] = set()
        for spec, version in self._tables:
            module, attr = spec.split(":")
            for key in getattr(import_module(module), attr):
                name = f"{key}/{version}"
                current.add(name)
                if name not in self._from_tables:
                    self.register(name, f"{spec}:{key}")
        for name in self._from_tables - current:   # taken out of its table
            del self._items[name]
        self._from_tables = current

    def register(self, name: str, item: T) -> T:
        """Add ``item`` under ``name`` (``"name/version"``); a name is registered once."""
        base, _, version = name.partition("/")
        if not base or not version.isdigit():
            raise ValueError(f"{self.kind} name {name!r} needs a version, as '{base or 'name'}/1'")
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._items[name] = item
        return item

    def resolve(self, name: str, where: str = "") -> str:
        """The full versioned name ``name`` stands for (a bare name: its highest version)."""
        self._load_tables()
        if name in self._items:
            return name
        versions = sorted((int(k.partition("/")[2]), k) for k in self._items
                          if k.partition("/")[0] == name)
        if not versions:
            raise RankerError(f"{where + ': ' if where else ''}unknown {self.kind} {name!r} "
                              f"(known: {', '.join(self.names())})")
        return versions[-1][1]

    def get(self, name: str, where: str = "") -> T:
        """The component registered as ``name`` (or a bare name's highest version)."""
        full = self.resolve(name, where)
        item = self._items[full]
        if isinstance(item, str) and ":" in item:   # registered lazily: import it now
            module, attr, *key = item.split(":")
            item = getattr(import_module(module), attr)
            if key:   # "module:table:key", an entry of a table: read from the table at each use
                return item[key[0]]
            self._items[full] = item
        return item

    def build(self, name: str, config, where: str = ""):
        """The component ``name`` stands for, made from ``config`` by the entry's ``from_config``."""
        return self.get(name, where).from_config(config)

    def name_of(self, item) -> str:
        """The newest versioned name ``item`` is registered under (loading lazy entries as needed)."""
        for full in sorted(self.names(), key=lambda k: -int(k.partition("/")[2])):
            if self.get(full) is item:
                return full
        raise RankerError(f"{item!r} is not a registered {self.kind}")

    def names(self, bare: bool = False) -> list[str]:
        """Every registered name, sorted (``bare``: without versions, each once)."""
        self._load_tables()
        if bare:
            return sorted({k.partition("/")[0] for k in self._items})
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        try:
            self.resolve(name)
        except RankerError:
            return False
        return True
