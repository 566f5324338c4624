"""Named splits now live in :mod:`ranker.store.splits` (the store selects by them); this name stays for old imports."""
from ..store.splits import SPLITS, Split, document_filter, get_split  # noqa: F401
