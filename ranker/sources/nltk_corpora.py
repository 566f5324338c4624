"""Finding NLTK's corpora under ``NLTK_DATA``, and one error naming a corpus that is missing or damaged.

Every reader of an NLTK corpus (the treebank sample and CoNLL-2000 in :mod:`.treebank`, the
dependency gold in :mod:`.dependencies`) checks through here first: nothing downloads, and a
missing corpus is one line with the command that installs it.
"""
from __future__ import annotations

import zipfile
import zlib
from contextlib import contextmanager
from typing import Iterator

from ..errors import RankerError


def require_corpus(name: str, member: str | None = None) -> None:
    """Fail with the command that installs an NLTK corpus when it is not under ``NLTK_DATA``.

    Raises
    ------
    RankerError
        Naming the corpus, the folders searched and the ``nltk.downloader`` command, or the
        corpus file when it is damaged.
    """
    import nltk

    tail = f"/{member}" if member else ""
    with reading_corpus(name):
        for path in (f"corpora/{name}{tail}", f"corpora/{name}.zip/{name}/{member or ''}"):
            try:
                nltk.data.find(path)
                return
            except LookupError:
                pass
    where = ", ".join(nltk.data.path[:4])
    raise RankerError(
        f"NLTK corpus {name!r} not found (searched {where}); install it with: "
        f"python -m nltk.downloader -d $NLTK_DATA {name}") from None


def corpus_location(name: str) -> str:
    """The file or folder NLTK reads corpus ``name`` from (for messages), or its bare name."""
    import os

    import nltk

    for root in nltk.data.path:
        for candidate in (os.path.join(root, "corpora", f"{name}.zip"), os.path.join(root, "corpora", name)):
            if os.path.exists(candidate):
                return candidate
    return name


@contextmanager
def reading_corpus(name: str) -> Iterator[None]:
    """Turn a damaged corpus file (truncated zip, bad member, bad text) into one error naming it."""
    try:
        yield
    except (zipfile.BadZipFile, zlib.error, EOFError, UnicodeDecodeError, ValueError, IndexError) as e:
        raise RankerError(f"{corpus_location(name)}: damaged NLTK corpus {name!r} ({type(e).__name__}: "
                          f"{str(e)[:200]}); install it again with: python -m nltk.downloader -d $NLTK_DATA "
                          f"{name}") from None
