"""A trained model applied to a stream of n-best lists: chunks read, ranked in memory and written in input order.

What ``ranker apply --lists`` does without a store, for one stream (a file or standard input) in
one process, or for one partition of the input in one task of an executor (a forked pool or a Dask
cluster: :func:`apply_partition`). Nothing is stored: each chunk's candidates are read, their
features the model has weights for extracted straight into its columns
(:class:`ranker.features.applying.ModelColumns`), scored, and the chosen trees written before the
next chunk is read, so memory is bounded by the chunk and the model whatever the input's length.

A bad list (a bad header or tree, candidates that disagree on their words) is an empty line and a
``file:line`` message; a stream that cannot be read on (a truncated ``.gz``) ends its part with
the lists read before it written, and a message naming the file and the list after which it broke.
"""
from __future__ import annotations

import gc
import io
from typing import NamedTuple


class Applied(NamedTuple):
    """What one stream or partition gave: trees written, empty lines, skipped lists' messages, a break."""

    written: int
    empty: int
    skipped: tuple[str, ...]
    broken: str = ""

    @classmethod
    def from_record(cls, fields: list) -> "Applied":
        """The fields as a finished part's record keeps them (:func:`~.parts.record_part`)."""
        written, empty, skipped, *rest = fields
        return cls(int(written), int(empty), tuple(str(x) for x in skipped), *map(str, rest))


class ListRanker:
    """The model, its families and its columns, ready to rank chunks of lists.

    Parameters
    ----------
    model_path : str
        The model file (named in messages).
    saved : SavedModel
        The loaded model (:func:`ranker.models.load_model`).
    families : list of Family
        Its feature set's built families (none needing a fit on a training store).
    workers : int
        Processes to extract each chunk in (one stream in one process: ``parser | ranker apply``).
    """

    def __init__(self, model_path: str, saved, families: list, workers: int = 1):
        from ...features.applying import ModelColumns

        self.model_path = model_path
        self.saved = saved
        self.columns = ModelColumns(families, saved.feature_names)
        self.workers = workers   # processes each chunk's extraction is shared among

    def rank(self, chunk: list, first: int, name: str, skipped: list) -> list[str]:
        """The chosen tree's text (or ``""``) for each block of ``chunk``, in order; bad blocks go to ``skipped``."""
        import numpy as np

        from ...models.persistence import applying
        from ...store.encoding import penn_text
        from ..stages import column_features, rank, ranker_inputs

        forests, trees_of = [], []
        for k, block in enumerate(chunk):
            forest = block_forest(block, first + k, name)
            if isinstance(forest, str):
                skipped.append(forest)
                trees_of.append(None)
                continue
            forests.append(forest)
            trees_of.append([c.tree for c in forest.candidates])
        if not forests:
            return ["" for _ in chunk]
        m = column_features(self.columns, forests, self.workers if len(forests) > 1 else 1)
        X, groups = m.X, m.groups()
        with applying(self.model_path, self.saved):
            picks = np.asarray(rank({"model": self.saved.ranker},
                                    ranker_inputs(groups, features=lambda: (X, groups)))["model"]).tolist()
        chosen = dict(zip(m.sentence_ids, picks))
        out = []
        for k, trees in enumerate(trees_of):   # only the chosen tree is written out as text
            c = chosen.get(f"lists/{first + k}", -1) if trees is not None else -1
            out.append(penn_text(trees[c]) if c >= 0 else "")
        return out


def block_forest(block, number: int, name: str):
    """The forest of one list block (roots normalised as on import), or the message why it has none.

    Its sentence is ``lists/NUMBER`` of corpus ``lists``; ``name`` (the input) places messages.
    """
    from ...sources.nbest import NbestError, empty_list
    from ...store.records import Candidate, Forest, Sentence
    from ...trees.transforms import normalize_root

    if isinstance(block, NbestError):
        return str(block)
    if not block.trees:   # as ranker apply --store says of it (it makes no sentence)
        return empty_list(name, block.line)
    words = block.trees[0].words
    bad = next((i for i, t in enumerate(block.trees) if t.words != words), None)
    if bad is not None:
        return (f"{name}:{block.line}: candidate {bad} has other words than candidate 0 "
                f"({len(block.trees[bad].words)} tokens against {len(words)}); list not ranked")
    trees = [normalize_root(t) for t in block.trees]
    sid = f"lists/{number}"
    sentence = Sentence(sid, "lists", name, number, tuple(words), tuple(t or "" for t in trees[0].tags()))
    return Forest(sentence, None, tuple(Candidate(sid, "lists", r, t, "full", dict(sc))
                                        for r, (t, sc) in enumerate(zip(trees, block.scores))))


def apply_stream(ranker: ListRanker, raw, name: str, fmt: str, out, chunk: int, first_line: int = 1,
                 flush: bool = False) -> Applied:
    """Rank the lists of the binary stream ``raw`` (gzip is recognised by its first bytes) into ``out``.

    ``name`` and ``first_line`` (the number of the stream's first line in its file) place every
    message; ``out`` is a text stream, written a chunk at a time (``flush``: flushed after each).
    """
    import gzip
    import zlib

    from ...sources.nbest import stream_blocks

    try:   # a .gz is already being decompressed: its first block is read here
        if hasattr(raw, "peek") and raw.peek(2)[:2] == b"\x1f\x8b":
            raw = gzip.GzipFile(fileobj=raw, mode="rb")
    except (OSError, EOFError, zlib.error) as e:   # zlib.error: damaged compressed bytes (a traceback)
        return Applied(0, 0, (), f"{name}: cannot be read before its first list ({e})")
    blocks = stream_blocks(io.TextIOWrapper(raw, encoding="utf-8"), name, fmt, first_line)
    written = empty = number = 0
    skipped: list[str] = []
    broken = ""
    more = True
    while more:
        got = []
        try:   # a damaged stream ends the input: the lists read before it are still ranked
            for block in blocks:
                got.append(block)
                if len(got) >= chunk:
                    break
            else:
                more = False
        except (UnicodeDecodeError, OSError, EOFError, zlib.error) as e:
            read = number + len(got)   # the lists read whole before the damage ("3th", "0th list" were said)
            broken = (f"{name}: cannot be read after list {read} ({e})" if read else
                      f"{name}: cannot be read before its first list ({e})")
            more = False
        if not got:
            break
        for text in ranker.rank(got, number, name, skipped):
            out.write(text + "\n")
            written += bool(text)
            empty += not text
        number += len(got)
        if flush:
            out.flush()
        # Commands run with the cyclic collector paused (ranker.gcpause); a chunk leaves about 28,000
        # objects in cycles (50 BLLIP lists), which a stream of a million lists would keep. The
        # young generations hold little but the chunk's leftovers: 10 ms a chunk of 1.7 s.
        gc.collect(1)
    return Applied(written, empty, tuple(skipped), broken)


def apply_partition(state: dict, task) -> Applied:
    """One executor task: partition ``task = (number, partition)`` of the input ranked into its own part file.

    ``state`` holds the model file's path, the list format, the chunk size, the folder of the
    parts and, when that folder is kept between runs, each part's key. The part is written under a
    name of its own and renamed when complete, so a task run again (its worker died) replaces it
    whole: no list is lost or written twice. A partition that cannot be opened is a break (its
    lists are missing from the output, and the run says so); a part with a break is not recorded
    as finished, so a resumed run tries it again.
    """
    from ...sources.partitions import read_bytes
    from .parts import record_part, write_part

    number, part = task
    ranker = _ranker_of(state["model"])
    try:
        raw = read_bytes(part)
    except OSError as e:
        return Applied(0, 0, (), f"{part.path}: cannot be read ({e})")
    with raw, write_part(state["parts"], number) as out:
        got = apply_stream(ranker, raw, part.path, state["format"], out, state["chunk"], part.first_line)
    if state.get("keys") and not got.broken:
        record_part(state["parts"], number, state["keys"][number], got)
    return got


_RANKERS: dict = {}


def preload(ranker: ListRanker) -> None:
    """Keep ``ranker`` for its model file, so that forked workers inherit it instead of loading the model again."""
    _RANKERS[ranker.model_path] = ranker


def _ranker_of(model_path: str) -> ListRanker:
    """The :class:`ListRanker` of a model file, loaded once per process (a worker runs many partitions)."""
    got = _RANKERS.get(model_path)
    if got is None:
        from ...features.feature_sets import feature_set_from_dict
        from ...models import load_model

        saved = load_model(model_path, kind="loglinear")
        got = _RANKERS[model_path] = ListRanker(model_path, saved,
                                                feature_set_from_dict(saved.feature_config, model_path).build())
    return got


def count_partition(state: dict, part) -> int:
    """One executor task: the line ends of a partition (so that the ones after it know their first line)."""
    from ...sources.partitions import count_lines

    return count_lines(part)
