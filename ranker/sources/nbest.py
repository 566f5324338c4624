"""Candidate forests from files users bring: Penn bracketed trees and BLLIP/Charniak n-best lists.

Both formats are read as blocks separated by blank lines, one block per sentence, so one bad block
is reported with its file and line and skipped while the rest are stored:

* ``penn``: one or more bracketed trees per block (a tree may span lines); each tree is a
  candidate in file order.
* ``bllip``: the first line holds the candidate count and the sentence id, then for each
  candidate a line with its log probability and a line with its tree (the Charniak parser's and
  BLLIP reranker's n-best output).

A forest is matched to a stored sentence by id (BLLIP ids that name a stored sentence, with or
without the ``treebank/`` prefix, or the parser's ``wsj_0001.0`` for ``treebank/wsj_0001.mrg/0``) or
else by its tokens. A forest whose trees' leaves are not exactly its sentence's tokens is an error
and nothing of it is stored. Files ending in ``.gz`` are read through gzip.

A file is imported in one transaction and refused whole when it is not a list of forests at all
(not UTF-8, not gzip, empty, one sentence twice, nothing storable): see :func:`import_files`.

Roots: a candidate's pseudo-root (``S1``, ``TOP``, ``ROOT`` or the empty wrapper) is removed on
import by :func:`ranker.trees.transforms.normalize_root`, the rule gold trees are stored by, so
both sides have the same root convention and no user renames labels.
"""
from __future__ import annotations

import gzip
import hashlib
import math
import re
from collections import defaultdict, deque
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

from ..errors import RankerError
from ..trees.penn import TreeSyntaxError, iter_trees
from ..trees.transforms import normalize_root
from ..trees.tree import Tree

if TYPE_CHECKING:   # the store loads where forests are stored: listing the formats (--help) needs none of it
    from ..store.records import Candidate, Sentence

class NbestError(RankerError):
    """One forest of an n-best file that cannot be stored; ``str()`` reads ``file:line: what``."""


class RefusedFile(RankerError):
    """An n-best file that is not imported at all (unreadable, empty, a sentence twice, nothing storable)."""


class ForestBlock(NamedTuple):
    """One sentence's candidates as read from a file, before matching it to a stored sentence."""

    line: int                        # where the block starts (1-based)
    sentence_key: str | None         # the id the file gives, if any
    trees: tuple[Tree, ...]
    scores: tuple[dict, ...]


class ImportSummary(NamedTuple):
    """What one import stored and what it skipped."""

    forests: int
    candidates: int
    errors: tuple[str, ...]          # "file:line: message", one per skipped forest
    new_sentences: int = 0           # sentences added with their forests (no stored sentence matched)
    order: tuple = ()                # per block of the file, in file order: its sentence's id, or None (skipped)


def _blocks(text, first_line: int = 1) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks as (first line number, lines), of a text or an iterable of lines."""
    start, lines = 0, []
    for no, line in enumerate(text.splitlines() if isinstance(text, str) else text, first_line):
        line = line.rstrip("\n")
        if line.strip():
            if not lines:
                start = no
            lines.append(line)
        elif lines:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _penn_block(path: str, start: int, lines: list[str]) -> ForestBlock:
    # one block's candidates share their equal subtrees (as the store's reader makes them share)
    trees = tuple(iter_trees("\n".join(lines), path, line_offset=start - 1, shared={}))
    return ForestBlock(start, None, trees, tuple({} for _ in trees))


def empty_list(name, line: int) -> str:
    """The message of a list that holds no candidate (a BLLIP header ``0<TAB>ID``: the parser found no parse)."""
    return f"{name}:{line}: the list holds no candidate (its header says 0)"


def _bllip_block(path: str, start: int, lines: list[str]) -> ForestBlock:
    head = lines[0].split()
    if len(head) != 2 or not head[0].isdigit():
        raise NbestError(f"{path}:{start}: expected '<count> <sentence id>', found {lines[0][:60]!r}")
    count, key = int(head[0]), head[1]
    body = lines[1:]
    if len(body) != 2 * count:
        raise NbestError(f"{path}:{start}: header says {count} candidates but the block has "
                         f"{len(body)} lines after it (expected {2 * count}: log probability, tree)")
    trees, scores = [], []
    shared: dict = {}   # one block's candidates share their equal subtrees
    for k in range(count):
        no = start + 1 + 2 * k
        try:
            logprob = float(body[2 * k])
        except ValueError:
            raise NbestError(f"{path}:{no}: expected a log probability, found {body[2 * k][:60]!r}") from None
        if not math.isfinite(logprob):
            # inf, nan and numbers past the float range (1e400 reads as inf) would be stored and
            # break a ranker or a report much later, far from this file
            raise NbestError(f"{path}:{no}: log probability {body[2 * k].strip()[:40]!r} is not a finite number")
        if logprob > 0:
            # a probability above 1: not a BLLIP score (a column mixed up, or a sign lost)
            raise NbestError(f"{path}:{no}: log probability {body[2 * k].strip()[:40]!r} is positive "
                             "(a probability above 1)")
        found = list(iter_trees(body[2 * k + 1], path, line_offset=no, shared=shared))
        if len(found) != 1:
            raise NbestError(f"{path}:{no + 1}: expected one tree, found {len(found)}")
        trees.append(found[0])
        scores.append({"logprob": logprob})
    return ForestBlock(start, key, tuple(trees), tuple(scores))


def read_blocks(path: str | Path, fmt: str) -> Iterator[ForestBlock | NbestError]:
    """Every forest block of an n-best file; a malformed block is yielded as its error."""
    separate = nbest_format(fmt).separate
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                text = f.read().decode("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise RefusedFile(f"{path}: not UTF-8 text ({e})") from None
    except (OSError, EOFError) as e:     # gzip: not a gzip file, or cut short
        raise RefusedFile(f"{path}: cannot be read as gzip ({e})") from None
    yield from parse_blocks(separate(text), str(path), fmt)


def parse_blocks(blocks, name: str, fmt: str) -> Iterator[ForestBlock | NbestError]:
    """Each ``(first line, lines)`` block read as a forest of ``fmt``; a malformed block as its error."""
    read = nbest_format(fmt).read
    for start, lines in blocks:
        try:
            yield read(name, start, lines)
        except TreeSyntaxError as e:
            yield NbestError(str(e))
        except NbestError as e:
            yield e


def stream_blocks(lines, name: str, fmt: str, first_line: int = 1) -> Iterator[ForestBlock | NbestError]:
    """The forest blocks of an n-best stream, read as its lines arrive (``ranker apply``: one block in
    memory at a time, whatever the input's length); a malformed block is yielded as its error.

    ``first_line`` is the number of the stream's first line in its file (a partition of a file
    begins further on), so that messages name the file's own lines.
    """
    yield from parse_blocks(nbest_format(fmt).separate(lines, first_line), name, fmt)


_FILE_DOT_INDEX = re.compile(r"(?P<file>[^/]+?)\.(?P<index>\d+)")


def _parser_ids(key: str) -> tuple[str, ...]:
    """Store ids a BLLIP-style ``wsj_0001.0`` (file stem, sentence index from 0) may stand for."""
    m = _FILE_DOT_INDEX.fullmatch(key)
    if not m:
        return ()
    return (f"treebank/{m['file']}.mrg/{m['index']}",)


class SentenceMatcher:
    """Finds the stored sentence of a forest: by the id the file gives, else by tokens in corpus order."""

    def __init__(self, sentences):
        self._by_id = {s.id: s for s in sentences}
        self._by_tokens: dict[tuple, deque] = defaultdict(deque)
        for s in sentences:
            self._by_tokens[s.tokens].append(s)

    def match(self, key: str | None, tokens: tuple[str, ...]):
        if key is not None:
            for k in (key, f"treebank/{key}", *_parser_ids(key)):
                if k in self._by_id:
                    return self._by_id[k]
        queue = self._by_tokens.get(tokens)
        if queue:
            # identical token sequences are taken in corpus order, one forest each
            return queue.popleft() if len(queue) > 1 else queue[0]
        return None


def import_file(store, path: str | Path, fmt: str, source: str | None = None, corpus: str | None = None,
                batch_size: int = 200) -> ImportSummary:
    """Store every well-formed forest of an n-best file, reporting (not raising) bad ones.

    The file is one transaction with its source's provenance row (``{"format", "file"}``): a
    refused file leaves the store as it was. :func:`import_files` says what is refused and what
    is skipped.

    Parameters
    ----------
    store
        An open store holding the sentences the file parses.
    path, fmt
        The file and its format (``penn`` or ``bllip``).
    source
        Source name for the candidates (default ``<fmt>:<file name>``).
    corpus
        Match only sentences of this corpus (all stored sentences when None).

    Returns
    -------
    ImportSummary

    Raises
    ------
    RefusedFile
        When the file is refused whole; nothing of it is stored.
    """
    path = Path(path)
    source = source or f"{fmt}:{path.name}"
    with store.batch():
        summary, = import_files(store, [path], fmt, source, corpus, batch_size)
        notes = [f"{len(summary.errors)} forests of {path} were rejected, e.g. {summary.errors[0]}"] \
            if summary.errors else []
        store.add_source(source, provenance(store.source_options().get(source) or {}, fmt, [path],
                                            [file_digest(path)], notes))
    return summary


def file_digest(path) -> str:
    """The sha256 of a file's bytes, read in blocks: the provenance of an imported file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def provenance(stored: dict, fmt: str, files, digests, notes) -> dict:
    """The source's provenance row after importing ``files``: the stored files kept, these added.

    A source can be filled by several imports (``ranker import`` of one split's file, later of
    another's): candidates of the earlier files stay stored, so their names and digests must stay
    in the record too. A file imported again replaces its own entry and its own notes.

    Raises
    ------
    RankerError
        When the source holds candidates read from files of another format.
    """
    files = [str(p) for p in files]
    if stored and stored.get("format", fmt) != fmt:
        raise RankerError(f"{files[0]}: source holds candidates read from {stored['format']} files, not {fmt}; "
                          f"import into another source (--source NAME)")
    kept = [(f, d) for f, d in zip(stored.get("files", ()), stored.get("sha256", ())) if f not in files]
    old_notes = [n for n in stored.get("notes", ()) if not any(f" of {f} " in n for f in files)]
    return {"format": fmt, "files": [f for f, _ in kept] + files,
            "sha256": [d for _, d in kept] + list(digests), "notes": old_notes + list(notes)}


def import_files(store, paths, fmt: str, source: str, corpus: str | None = None,
                 batch_size: int = 200, new_corpus: str | None = None) -> tuple[ImportSummary, ...]:
    """Store the forests of ``paths`` as candidates of ``source``, in one transaction, or nothing.

    A single bad forest is *skipped*: it is reported in its summary's ``errors`` (``file:line:
    what``) and the rest is stored. These are the problems of one forest: a malformed block (a
    bad header, log probability or tree), no stored sentence matching its id or tokens, or leaves
    other than its sentence's tokens. A file is *refused* (:class:`RefusedFile`; the transaction
    is rolled back, so the store, the source's provenance row included, stays as it was) when it
    cannot be read as UTF-8 text (through gzip for ``.gz``), holds no forest, gives one sentence
    a second forest (in it or in an earlier file of ``paths``: the second would silently replace
    the first), or has no forest that can be stored. The caller writes the source's provenance
    row in the same transaction (:meth:`Store.batch` nests), so it is never written for a refused
    file. Returns one summary per file.

    With ``new_corpus``, a forest that matches no stored sentence is not skipped: its sentence is
    added to the store as a sentence of corpus ``new_corpus``, its tokens (and tags) the first
    candidate's leaves (and preterminals), its id ``<new_corpus>/<file>/<block>`` (the block's
    number in the file, from 0), and the other candidates must have the same leaves.
    """
    sentences = store.sentences(corpus)
    if not sentences and new_corpus is None:
        stored = store.stats().corpora
        raise RankerError(
            f"{store.path}: no sentence of corpus {corpus or 'any'!r} is stored (stored: "
            f"{', '.join(f'{c} {n}' for c, n in stored.items()) or 'none'}); forests are matched to stored "
            f"sentences: name a stored corpus, or one ranker loads itself (ranker import --corpus treebank "
            f"or conll2000)")
    matcher = SentenceMatcher(sentences)
    first_at: dict[str, str] = {}     # sentence id -> "file:line" of its forest in these files
    with store.batch():
        return tuple(_import_one(store, Path(p), fmt, source, matcher, first_at, batch_size, new_corpus)
                     for p in paths)


def new_sentence(corpus: str, path: Path, block_number: int, tree: Tree) -> Sentence:
    """The sentence a forest no stored sentence matches stands for: its first candidate's words and tags."""
    from ..store.records import Sentence

    doc = path.name[:-3] if path.name.endswith(".gz") else path.name
    return Sentence(f"{corpus}/{doc}/{block_number}", corpus, doc, block_number, tuple(tree.words),
                    tuple(t or "" for t in tree.tags()))


def _import_one(store, path: Path, fmt: str, source: str, matcher: SentenceMatcher, first_at: dict,
                batch_size: int, new_corpus: str | None = None) -> ImportSummary:
    """One file of :func:`import_files`, inside its transaction."""
    from ..store.records import Candidate

    errors: list[str] = []
    blocks = forests = cands = added = 0
    pending: list[tuple[str, list[Candidate]]] = []
    new: list[Sentence] = []
    order: list[str | None] = []

    def flush():
        if new:
            store.add_sentences(new)
            new.clear()
        for sid, cs in pending:
            store.replace_forest(sid, source, cs)
        pending.clear()

    for block in read_blocks(path, fmt):
        blocks += 1
        order.append(None)
        if isinstance(block, NbestError):
            errors.append(str(block))
            continue
        first = block.trees[0].words if block.trees else ()
        sent = matcher.match(block.sentence_key, first)
        if sent is None and new_corpus is not None and not block.trees:   # no words to make a sentence of
            errors.append(empty_list(path, block.line))
            continue
        if sent is None and new_corpus is not None and block.trees:
            sent = new_sentence(new_corpus, path, blocks - 1, normalize_root(block.trees[0]))
            new.append(sent)
            added += 1
        if sent is None:
            where = f"id {block.sentence_key!r} and tokens" if block.sentence_key else "tokens"
            errors.append(f"{path}:{block.line}: {where} match no stored sentence "
                          f"(first tokens: {' '.join(first[:8])})")
            continue
        bad = next((k for k, t in enumerate(block.trees) if t.words != sent.tokens), None)
        if bad is not None:
            if new and new[-1] is sent:   # a new sentence's candidates disagree on its words
                new.pop()
                added -= 1
            got = block.trees[bad].words
            at = next((i for i, (a, b) in enumerate(zip(got, sent.tokens)) if a != b), min(len(got), len(sent.tokens)))
            errors.append(f"{path}:{block.line}: candidate {bad} of {sent.id} has {len(got)} tokens, the sentence "
                          f"{len(sent.tokens)}; first difference at token {at}: "
                          f"{got[at] if at < len(got) else '<end>'!r} vs "
                          f"{sent.tokens[at] if at < len(sent.tokens) else '<end>'!r}; forest not stored")
            continue
        here = f"{path}:{block.line}"
        if sent.id in first_at:
            raise RefusedFile(f"{here}: a second forest of sentence {sent.id}, whose forest starts at "
                              f"{first_at[sent.id]}; one forest per sentence: nothing of {path} was imported")
        first_at[sent.id] = here
        order[-1] = sent.id
        cs = [Candidate(sent.id, source, k, normalize_root(t), "full", dict(sc))
              for k, (t, sc) in enumerate(zip(block.trees, block.scores))]
        pending.append((sent.id, cs))
        forests += 1
        cands += len(cs)
        if len(pending) >= batch_size:
            flush()
    if not blocks:
        raise RefusedFile(f"{path}: holds no forest (an empty file); nothing was imported")
    if not forests:
        raise RefusedFile(f"{path}: no forest of it can be stored ({len(errors)} skipped, the first: "
                          f"{errors[0]}); nothing was imported")
    flush()
    return ImportSummary(forests, cands, tuple(errors), added, tuple(order))


class NbestFormat(NamedTuple):
    """One n-best file format: how its text divides into sentences' lists, how a list is read, its scores.

    An entry of :data:`NBEST_FORMATS` is all a new format needs: the table is registered as
    candidate sources (:data:`ranker.registries.SOURCES`), so ``[parse] source``, ``ranker import
    --format`` and ``ranker apply --lists --format`` offer it.
    """

    #: ``read(file name, first line, lines) -> ForestBlock``: one sentence's list (raises NbestError).
    read: Callable[[str, int, list[str]], ForestBlock]
    #: The separator: ``separate(text or lines, first_line=1)`` yields each list's ``(first line,
    #: lines)``; both formats here are separated by blank lines (:func:`_blocks`), as
    #: :mod:`.partitions` assumes when it cuts a large file.
    separate: Callable[..., Iterator[tuple[int, list[str]]]]
    #: The native scores each candidate carries (its ``scores``' keys), as the feature families read them.
    score_names: tuple[str, ...] = ()


#: Every n-best file format by its name (``[parse] source``, ``ranker import --format``, ``--lists``).
NBEST_FORMATS: dict[str, NbestFormat] = {
    "penn": NbestFormat(_penn_block, _blocks),
    "bllip": NbestFormat(_bllip_block, _blocks, ("logprob",)),
}


def nbest_format(fmt: str) -> NbestFormat:
    """The format ``fmt`` names; an unknown name raises, listing the known."""
    if fmt not in NBEST_FORMATS:
        raise RankerError(f"unknown n-best format {fmt!r} (known: {', '.join(NBEST_FORMATS)})")
    return NBEST_FORMATS[fmt]
