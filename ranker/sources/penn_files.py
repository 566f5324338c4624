"""A treebank on disk: Penn-bracketed files in any layout, one document per file (``[data] corpus = "penn"``).

``[data] path`` names a folder (searched below for tree files), a glob (``trees/*.mrg``) or one
file. Tree files end in ``.mrg``, ``.ptb``, ``.tree``, ``.trees`` or ``.penn``, each maybe
gzipped (``.gz``). Trees follow one another, separated by blank lines or simply balanced one after
another as in the LDC's ``.mrg`` files, under any root convention (``( (S ...))``, ``(ROOT ...)``,
``(TOP ...)``), with the Penn Treebank's function tags and empty elements. Gold trees are stored
as NLTK's treebank reader gives them to the rest of ranker: empty elements removed, the pseudo-root
removed (:func:`ranker.trees.transforms.normalize_root`), so the WSJ files read this way are the
NLTK sample's sentences exactly.

Document ids are the file names without ``.gz`` (``wsj_0001.mrg``, ``GUM_news_iodine.ptb``): the
LDC layout ``parsed/mrg/wsj/SS/wsj_SSNN.mrg`` gives the ids NLTK's sample has, so the standard
split is written as document ranges (``wsj_0200-2199``). Sentence ids are
``<name>/<document>/<index>``; ``name`` is ``[data] name``, else the folder's name.
"""
from __future__ import annotations

import errno
import glob
import gzip
import hashlib
import os
import zlib
from pathlib import Path
from typing import Iterator

from ..errors import RankerError
from ..store.records import Sentence
from ..textfiles import decode_text
from ..trees.penn import TreeSyntaxError, iter_trees
from ..trees.transforms import normalize_root, remove_empty_elements
from .corpus import CorpusItem, CorpusReader, check_encoding

#: What a tree file's name ends in (before an optional ``.gz``).
TREE_SUFFIXES = (".mrg", ".ptb", ".tree", ".trees", ".penn")


def document_id(path: Path) -> str:
    """A tree file's document id: its name without ``.gz``."""
    return path.name[:-3] if path.name.endswith(".gz") else path.name


def _is_tree_file(path: Path) -> bool:
    """Whether ``path`` is named as a tree file; one that cannot be read as a file is refused, named.

    A dangling or looping symbolic link (or a socket, a pipe) named ``x.mrg`` was passed over in
    silence, and its document was simply missing from the corpus.
    """
    if not document_id(path).endswith(TREE_SUFFIXES):
        return False
    _refuse_unreadable(path)
    return path.is_file()


def _refuse_unreadable(path: Path) -> None:
    """Refuse, named, a path of the corpus that is neither a file nor a folder."""
    if not path.is_file() and not path.is_dir():
        raise RankerError(f"{path}: {_unreadable(path)}: document {document_id(path)} cannot be read; "
                          "fix or remove it (or leave it out with a glob as [data] path / --path)")


def _unreadable(path: Path) -> str:
    """Why a path named as a tree file is no file: a dangling or looping link, or a special file."""
    if path.is_symlink():
        try:
            path.stat()
        except OSError as e:
            if e.errno == errno.ELOOP:
                return "a symbolic link that loops"
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
    return "not a regular file"


def _walk(folder: Path) -> Iterator[Path]:
    """Every file name below ``folder``, through linked folders too (each real folder once: a link
    back up is no endless walk); ``os.walk`` alone passed over a linked folder of trees in silence."""
    seen: set[str] = set()
    for root, dirs, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        yield from (Path(root) / name for name in names)


def tree_files(spec: str, where: str = "[data] path") -> list[Path]:
    """The tree files ``spec`` names, in document order; each document in one file.

    Raises
    ------
    RankerError
        When nothing is there, no tree file is found, or two files hold the same document.
    """
    if not spec:
        raise RankerError(f"{where}: a penn corpus needs the folder, glob or file of its trees")
    path = Path(spec)
    if any(c in spec for c in "*?["):
        found = [Path(p) for p in glob.glob(spec, recursive=True)]
        for p in found:
            _refuse_unreadable(p)   # a file the glob names that cannot be read is no missing document
        files = [p for p in found if p.is_file()]
    elif path.is_dir():
        files = [p for p in _walk(path) if _is_tree_file(p)]
    elif path.is_file():
        files = [path]
    else:
        raise RankerError(f"{where}: no such file or folder {spec}")
    if not files:
        raise RankerError(f"{spec}: no tree files ({', '.join(TREE_SUFFIXES)}, maybe .gz) found")
    by_doc: dict[str, Path] = {}
    for p in sorted(files):
        doc = document_id(p)
        if doc in by_doc:
            raise RankerError(f"{p}: document {doc} is also in {by_doc[doc]}: one document, one file")
        by_doc[doc] = p
    return [by_doc[d] for d in sorted(by_doc)]


def read_file_text(path: Path, encoding: str) -> str:
    """A file's text in ``encoding`` (through gzip for ``.gz``), errors naming the file and line."""
    try:
        if path.name.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                data = f.read()
        else:
            data = path.read_bytes()
    except (OSError, EOFError, zlib.error) as e:   # zlib.error: damaged compressed bytes
        raise RankerError(f"{path}: cannot be read ({e})") from None
    text = decode_text(data, str(path), encoding=encoding)
    return text[1:] if text.startswith("\ufeff") else text   # a byte-order mark is no text


def file_trees(path: Path, encoding: str = "utf-8"):
    """Every gold tree of one file in order, as stored (empty elements and pseudo-root removed).

    Raises
    ------
    RankerError
        Naming the file and line of an unbalanced tree, text outside brackets, or a tree with no
        word once its empty elements are removed; a file holding no tree.
    """
    text = read_file_text(path, encoding)
    try:   # lines are found only for an error: finding each tree's line costs more than reading it
        found = list(iter_trees(text, str(path)))
    except TreeSyntaxError as e:
        raise RankerError(str(e)) from None
    if not found:
        raise RankerError(f"{path}: holds no bracketed tree")
    out = []
    for k, tree in enumerate(found):
        kept = remove_empty_elements(tree)
        if kept is None:
            line = list(iter_trees(text, str(path), with_lines=True))[k][0]
            raise RankerError(f"{path}:{line}: a tree with no words (nothing but empty elements)")
        out.append(normalize_root(kept))
    return out


class PennFiles(CorpusReader):
    """Penn-bracketed tree files on disk as a corpus with gold trees."""

    has_gold = True
    reads_files = True

    def __init__(self, path: str, name: str = "", encoding: str = "utf-8", where: str = "[data]"):
        self.spec = path
        self.encoding = check_encoding(encoding, f"{where} encoding")
        self.files = tree_files(path, f"{where} path")
        base = Path(path.split("*")[0].rstrip("/") or ".")
        self.name = name or (base.name if base.is_dir() else base.parent.name) or "penn"

    @classmethod
    def from_section(cls, data) -> "PennFiles":
        return cls(data.path, data.name, data.encoding)

    def documents(self) -> list[str]:
        return [document_id(p) for p in self.files]

    def items(self) -> Iterator[CorpusItem]:
        for path in self.files:
            doc = document_id(path)
            for i, tree in enumerate(file_trees(path, self.encoding)):
                tags = tuple(tag or "" for tag in tree.tags())
                yield CorpusItem(Sentence(f"{self.name}/{doc}/{i}", self.name, doc, i, tree.words, tags), tree)

    def marker(self) -> str:
        h = hashlib.sha256(self.encoding.encode())
        for path in self.files:
            h.update(document_id(path).encode() + b"\0")
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        return f"{self.name}@penn/{h.hexdigest()[:20]}"
