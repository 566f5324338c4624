"""The caches ``ranker serve`` keeps in memory between requests (forests, scores, statuses, agreement).

A module of its own, below the application (:mod:`.app`) and its pages (:mod:`.views`,
:mod:`.team`), so that each reads the cache class from here and none imports another for it.
"""
from __future__ import annotations

import threading
from collections import OrderedDict


class LRU:
    """A small thread-safe least-recently-used cache: a page reloaded after each decision reads no forest again."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._items

    def get(self, key, compute):
        """The cached value of ``key``, computing (outside the lock) and keeping it when absent."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
