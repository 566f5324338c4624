"""Errors the store raises for files it cannot use; all are user errors (one-line message)."""
from ..errors import RankerError


class StoreError(RankerError):
    """A store file that cannot be used as asked (not a store, missing sentence, missing checks)."""


class SchemaVersionError(StoreError):
    """A store written by another schema version: reading it could silently give wrong answers."""
