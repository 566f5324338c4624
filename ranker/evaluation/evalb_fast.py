"""EVALB over whole files at once: a columnar reader and vectorised counting, same semantics as :mod:`.evalb`.

The fallback of ``ranker evalb`` where the compiled kernel (:mod:`.evalb_native`) cannot be built,
and a second, independent implementation the tests hold to the reference. Reading tree by tree in
Python manages a few thousand trees a second; EVALB in C does fifty thousand pairs. So a file is
read as one byte array: tokens by byte class, bracket structure from
token kinds, depths by cumulative sum, open/close pairs by a stable sort on depth, word positions
by cumulative sum, labels packed into 8-byte integers, multiset matching by one sort of packed
(line, span, label) keys, and crossing by range-minimum/maximum queries over per-position tables.

This is not a second truth: :func:`.evalb.score_evalb` is. Every line this reader cannot decide
exactly (anything but plain ``(LABEL (TAG word) ...)`` structure, a tag or cut label longer than 8
bytes, a length difference when ``QUOTE_LABEL`` is set, a word difference when ``EQ_WORD`` is set,
a non-transitive ``EQ_LABEL`` relation, a parser's failure line such as ``(TOP)``) is read with
:func:`.evalb_line.read_evalb_line` and scored by :func:`.evalb.score_evalb`, which also raises the
file:line:column error for bad text. A test asserts identical counts on the whole WSJ sample and
on edge cases.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..textfiles import decode_text
from .crossing import range_query, range_tables
from .evalb import ERROR, OK, SKIP, EvalbSentence, score_evalb_lines
from .evalb_files import EvalbInputError, check_pair, line_count, read_pair
from .evalb_params import EvalbParams

_WS, _OPEN, _CLOSE, _CHAR = 0, 1, 2, 3
_LUT = np.full(256, _CHAR, dtype=np.uint8)
_LUT[[32, 9, 10, 11, 12, 13]] = _WS
_LUT[40] = _OPEN
_LUT[41] = _CLOSE
_PACK = 8  # labels and tags up to this many bytes are compared as one uint64


class EvalbColumns(NamedTuple):
    """Per-line EVALB results as integer arrays (one entry per line pair), plus error messages."""

    status: np.ndarray
    length: np.ndarray
    words: np.ndarray
    gold: np.ndarray
    test: np.ndarray
    matched: np.ndarray
    crossing: np.ndarray
    correct_tags: np.ndarray
    messages: dict[int, str]
    deferred: int  # how many lines went through the per-pair path

    @property
    def size(self) -> int:
        """Number of line pairs."""
        return len(self.status)

    def sentence(self, i: int) -> EvalbSentence:
        """Line ``i`` (0-based) as an :class:`EvalbSentence`."""
        return EvalbSentence(int(self.status[i]), int(self.length[i]), int(self.words[i]),
                             int(self.gold[i]), int(self.test[i]), int(self.matched[i]),
                             int(self.crossing[i]), int(self.correct_tags[i]),
                             self.messages.get(i, ""))


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(_PACK)] + [(1 << 64) - 1],
                      dtype=np.uint64)  # _LOW_BYTES[k] keeps the first k bytes of a packed word
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)


def _words_at(buf: np.ndarray) -> np.ndarray:
    """A view whose element ``i`` is the 8 bytes starting at byte ``i`` as a little-endian uint64."""
    return np.ndarray(shape=(len(buf) - _PACK + 1,), dtype="<u8", buffer=buf, strides=(1,))


def _pack(words_at: np.ndarray, pos: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The first ``length`` (<= 8) bytes at each ``pos`` as one uint64, zero padded."""
    return words_at[pos] & _LOW_BYTES[length]


def _first_byte(x: np.ndarray, byte: int) -> np.ndarray:
    """Index (0-7) of the first byte equal to ``byte`` in each packed word, 8 where there is none."""
    v = x ^ np.uint64(byte * 0x0101010101010101)
    hits = (v - _ONES) & ~v & _HIGHS  # the lowest flagged byte is exact (SWAR zero-byte test)
    low = hits & (~hits + np.uint64(1))
    out = np.full(len(x), _PACK, dtype=np.int64)
    nz = low != 0
    out[nz] = np.log2(low[nz].astype(np.float64)).astype(np.int64) >> 3
    return out


def _pack_str(s: str) -> int | None:
    b = s.encode("utf-8")
    if len(b) > _PACK:
        return None
    return int.from_bytes(b.ljust(_PACK, b"\0"), "little")


class _Side(NamedTuple):
    lines: int
    regular: np.ndarray        # bool per line: plain structure this reader decides
    long_label: np.ndarray     # bool per line: a tag or cut label over 8 bytes
    wn: np.ndarray             # kept terminals per line
    length: np.ndarray         # EVALB length (terminals not in DELETE_LABEL_FOR_LENGTH)
    w_line: np.ndarray         # kept terminals, in order: line, word byte position, byte length, tag
    w_pos: np.ndarray
    w_len: np.ndarray
    w_tag: np.ndarray
    b_line: np.ndarray         # non-terminal brackets: line, start, end, cut label (packed)
    b_start: np.ndarray
    b_end: np.ndarray
    b_label: np.ndarray
    words_at: np.ndarray       # the 8-byte view of the padded text, for comparing words


def _read_side(data: bytes, params: EvalbParams, delete_tags: np.ndarray,
               length_tags: np.ndarray) -> _Side:
    n_lines = line_count(data)
    buf = np.frombuffer(data + b"\0" * (_PACK + 1), dtype=np.uint8)
    words_at = _words_at(buf)
    nb = len(data)
    cls = _LUT[buf[:nb]]
    prev = np.empty_like(cls)
    prev[0] = _WS
    prev[1:] = cls[:-1]
    is_char = cls == _CHAR
    start_mask = (cls != _WS) & (~is_char | (prev != _CHAR))
    tok_pos = np.flatnonzero(start_mask)
    ntok = len(tok_pos)
    if ntok == 0:  # only empty lines
        e, z = np.zeros(0, dtype=np.int64), np.zeros(n_lines, dtype=np.int64)
        return _Side(n_lines, np.ones(n_lines, bool), np.zeros(n_lines, bool), z, z, e, e, e,
                     e.astype(np.uint64), e, e, e, e.astype(np.uint64), words_at)
    kind = np.zeros(ntok + 4, dtype=np.uint8)
    kind[:ntok] = cls[tok_pos]
    nxt = np.empty_like(cls)
    nxt[-1:] = _WS
    nxt[:-1] = cls[1:]
    str_end = np.flatnonzero(is_char & (nxt != _CHAR)) + 1
    tok_len = np.ones(ntok + 4, dtype=np.int64)
    str_idx = np.flatnonzero(kind[:ntok] == _CHAR)
    tok_len[str_idx] = str_end - tok_pos[str_idx]
    pos_pad = np.empty(ntok + 4, dtype=np.int64)
    pos_pad[:ntok] = tok_pos
    pos_pad[ntok:] = nb + 10

    # lines: token ranges [first[l], first[l+1])
    nl = np.flatnonzero(cls == _WS)
    nl = nl[buf[nl] == 10]
    line_starts = np.concatenate(([0], nl + 1))[:n_lines]
    first = np.searchsorted(tok_pos, line_starts)
    counts = np.diff(np.append(first, ntok))
    tok_line = np.repeat(np.arange(n_lines, dtype=np.int64), counts)

    # structure: every open is a terminal (LABEL word), a labelled or an unlabelled non-terminal
    opens = np.flatnonzero(kind[:ntok] == _OPEN)
    adjacent = pos_pad[opens + 1] == pos_pad[opens] + 1
    k1, k2, k3 = kind[opens + 1], kind[opens + 2], kind[opens + 3]
    has_label = (k1 == _CHAR) & adjacent
    terminal = has_label & (k2 == _CHAR) & (k3 == _CLOSE)
    nt_labeled = has_label & (k2 == _OPEN)
    nt_empty = k1 == _OPEN
    bad_line = np.zeros(n_lines, dtype=bool)
    bad_line[tok_line[opens[~(terminal | nt_labeled | nt_empty)]]] = True
    consumed = np.zeros(ntok + 4, dtype=bool)
    t_open = opens[terminal]
    consumed[t_open + 1] = True
    consumed[t_open + 2] = True
    consumed[t_open + 3] = True
    consumed[opens[nt_labeled] + 1] = True
    bad_line[tok_line[str_idx[~consumed[str_idx]]]] = True

    # depth: each non-empty line must be exactly one balanced tree
    delta = np.zeros(ntok, dtype=np.int32)
    delta[kind[:ntok] == _OPEN] = 1
    delta[kind[:ntok] == _CLOSE] = -1
    depth = np.cumsum(delta, dtype=np.int32)
    nonempty = counts > 0
    f = first[nonempty]
    last = np.append(f[1:], ntok) - 1
    base = np.where(f > 0, depth[np.maximum(f - 1, 0)], 0)
    d_excl = depth.copy()
    d_excl[last] = np.iinfo(np.int32).max
    seg_min = np.minimum.reduceat(d_excl, f) if len(f) else np.zeros(0, np.int32)
    balanced = (seg_min - base >= 1) & (depth[last] == base) & (kind[last] == _CLOSE)
    ne_lines = np.flatnonzero(nonempty)
    bad_line[ne_lines[~balanced]] = True
    regular = ~bad_line
    line_base = np.zeros(n_lines, dtype=np.int32)
    line_base[ne_lines] = base

    # terminals of regular lines: tags packed raw, deletion and length by exact tag
    t_open = t_open[regular[tok_line[t_open]]]
    t_line = tok_line[t_open]
    tag_len = tok_len[t_open + 1]
    long_label = np.zeros(n_lines, dtype=bool)
    long_label[t_line[tag_len > _PACK]] = True
    tags = _pack(words_at, pos_pad[t_open + 1], np.minimum(tag_len, _PACK))
    kept = ~np.isin(tags, delete_tags)
    length = np.bincount(t_line[~np.isin(tags, length_tags)], minlength=n_lines)
    kept_open = t_open[kept]
    w_line = t_line[kept]
    wn = np.bincount(w_line, minlength=n_lines)

    # word position before each token (kept terminals only)
    ind = np.zeros(ntok, dtype=np.int32)
    ind[kept_open] = 1
    before = np.cumsum(ind, dtype=np.int32) - ind  # kept terminals strictly before each token
    first_c = np.zeros(n_lines, dtype=np.int32)
    first_c[nonempty] = before[f]

    # non-terminal brackets: pair opens and closes by depth with a stable sort
    nt_mask = np.zeros(ntok, dtype=bool)
    nt_mask[opens[nt_labeled | nt_empty]] = True
    close_all = kind[:ntok] == _CLOSE
    close_all[t_open + 3] = False
    # closes of terminals on irregular lines are dropped with those lines below
    nt_mask |= close_all
    nt_mask &= regular[tok_line]
    nt_mask[opens[terminal]] = False
    nt_idx = np.flatnonzero(nt_mask)
    nt_line = tok_line[nt_idx]
    is_close = kind[nt_idx] == _CLOSE
    key = depth[nt_idx] - line_base[nt_line] + is_close
    key = key.astype(np.int16 if key.size == 0 or key.max() < 32000 else np.int32)
    order = np.argsort(key, kind="stable")
    o_idx, c_idx = nt_idx[order[0::2]], nt_idx[order[1::2]]
    if len(o_idx) != len(c_idx) or (kind[o_idx] != _OPEN).any() or (kind[c_idx] != _CLOSE).any():
        raise AssertionError("bracket pairing failed on lines judged regular")
    b_line = tok_line[o_idx]
    b_start = before[o_idx] - first_c[b_line]
    b_end = before[c_idx] - first_c[b_line]

    # labels: cut at the first '-' or '=', packed; longer than 8 bytes -> the line is deferred
    labeled = kind[o_idx + 1] == _CHAR
    lab_len = np.where(labeled, tok_len[o_idx + 1], 0)
    raw = words_at[pos_pad[o_idx + 1]]
    cut = np.minimum(_first_byte(raw, 45), _first_byte(raw, 61))  # '-' and '='
    cut = np.where(cut < np.minimum(lab_len, _PACK), cut, lab_len)
    long_label[b_line[cut > _PACK]] = True
    b_label = raw & _LOW_BYTES[np.minimum(cut, _PACK)]

    return _Side(n_lines, regular, long_label, wn, length, w_line, pos_pad[kept_open + 2],
                 tok_len[kept_open + 2], tags[kept], b_line, b_start, b_end, b_label, words_at)


class _LabelTable:
    """Exact, stable small ids for packed labels, with ``EQ_LABEL`` classes and ``DELETE_LABEL`` flags.

    Ids are found by binary search in the sorted distinct values seen so far; values not yet seen
    are added (new ids appended, so earlier ids stay valid), which avoids sorting millions of labels.
    """

    def __init__(self, params: EvalbParams):
        self.params = params
        self.sorted = np.zeros(0, dtype=np.uint64)
        self.slot_id = np.zeros(0, dtype=np.int64)
        self.names: list[str] = []
        self.cls = np.zeros(0, dtype=np.int64)
        self.deleted = np.zeros(0, dtype=bool)

    def ids(self, packed: np.ndarray) -> np.ndarray:
        if packed.size == 0:
            return np.zeros(0, dtype=np.int64)
        while True:
            if len(self.sorted):
                idx = np.minimum(np.searchsorted(self.sorted, packed), len(self.sorted) - 1)
                ok = self.sorted[idx] == packed
                if ok.all():
                    return self.slot_id[idx]
                new = np.unique(packed[~ok])
            else:
                new = np.unique(packed[:4096])
            self._add(new)

    def _add(self, new: np.ndarray) -> None:
        start = len(self.names)
        self.names += [int(v).to_bytes(_PACK, "little").rstrip(b"\0").decode("utf-8", "replace")
                       for v in new]
        values = np.concatenate((self.sorted, new))
        ids = np.concatenate((self.slot_id, np.arange(start, len(self.names))))
        order = np.argsort(values, kind="stable")
        self.sorted, self.slot_id = values[order], ids[order]
        cls = np.arange(len(self.names))
        index = {name: i for i, name in enumerate(self.names)}
        for a, b in self.params.eq_labels:
            if a in index and b in index:
                ca, cb = cls[index[a]], cls[index[b]]
                cls[cls == cb] = ca
        self.cls = cls
        self.deleted = np.array([self.params.deletes_bracket(x) for x in self.names], dtype=bool)


def _eq_labels_transitive(params: EvalbParams) -> bool:
    """True when the ``EQ_LABEL`` pairs form cliques, so greedy matching is matching by class."""
    comp: dict[str, set] = {}
    for a, b in params.eq_labels:
        s = comp.get(a, {a}) | comp.get(b, {b})
        for x in s:
            comp[x] = s
    pairs = {frozenset(p) for p in params.eq_labels}
    return all(frozenset((x, y)) in pairs for s in comp.values() for x in s for y in s if x != y)


def fast_path_usable(params: EvalbParams) -> bool:
    """Whether the vectorised reader can decide lines at all under these parameters."""
    labels = (params.delete_labels + params.delete_labels_for_length + params.quote_labels
              + tuple(x for p in params.eq_labels for x in p))
    return all(_pack_str(s) is not None for s in labels) and _eq_labels_transitive(params)


def score_evalb_bytes(gold: bytes, test: bytes, params: EvalbParams, *,
                      gold_source: str = "<gold>", test_source: str = "<test>") -> EvalbColumns:
    """Score every line pair of two EVALB input texts; identical in every count to :func:`score_evalb`.

    Parameters
    ----------
    gold, test
        The raw file contents, one tree (or an empty line) per line.
    params
        EVALB parameters.
    gold_source, test_source
        Names for error messages.

    Returns
    -------
    EvalbColumns

    Raises
    ------
    EvalbInputError
        When the files have different numbers of lines.
    ranker.trees.penn.TreeSyntaxError
        For a line that is not one well-formed tree.
    ranker.textfiles.TextFileError
        For a file that is not UTF-8 text (checked up front, so both paths refuse it alike).
    """
    check_pair(gold, test, gold_source, test_source)
    # chunks of lines keep every temporary array small: cache-friendly, and memory is reused
    # instead of freshly mapped for each multi-megabyte temporary
    g_ends = _chunk_ends(gold, _CHUNK_LINES)
    t_ends = _chunk_ends(test, _CHUNK_LINES)
    parts = []
    for k, ((g0, g1), (t0, t1)) in enumerate(zip(g_ends, t_ends)):
        parts.append(_score_chunk(gold[g0:g1], test[t0:t1], params, gold_source, test_source,
                                  k * _CHUNK_LINES))
    if not parts:
        e = np.zeros(0, dtype=np.int64)
        return EvalbColumns(e, e, e, e, e, e, e, e, {}, 0)
    messages = {}
    for k, c in enumerate(parts):
        messages.update({i + k * _CHUNK_LINES: m for i, m in c.messages.items()})
    arrays = [np.concatenate([getattr(c, f) for c in parts]) for f in EvalbColumns._fields[:8]]
    return EvalbColumns(*arrays, messages, sum(c.deferred for c in parts))


_CHUNK_LINES = 2000


def _chunk_ends(data: bytes, lines: int) -> list[tuple[int, int]]:
    """Byte ranges of consecutive blocks of ``lines`` lines (the last block may be shorter)."""
    nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    cuts = [0] + [int(x) + 1 for x in nl[lines - 1::lines]]
    if cuts[-1] < len(data):
        cuts.append(len(data))
    return list(zip(cuts[:-1], cuts[1:]))


def _score_chunk(gold: bytes, test: bytes, params: EvalbParams, gold_source: str,
                 test_source: str, line0: int) -> EvalbColumns:
    """Score one block of line pairs; ``line0`` is the number of lines before it in the files."""
    n = line_count(gold)
    if n == 0:
        e = np.zeros(0, dtype=np.int64)
        return EvalbColumns(e, e, e, e, e, e, e, e, {}, 0)
    zeros = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    status, words, gb, tb, matched, crossing, correct = (zeros() for _ in range(7))
    messages: dict[int, str] = {}
    if not fast_path_usable(params):
        return _per_pair(gold, test, params, np.arange(n), gold_source, test_source, line0,
                         EvalbColumns(status, zeros(), words, gb, tb, matched, crossing, correct,
                                      messages, 0))
    delete_tags = np.array([v for v in map(_pack_str, params.delete_labels) if v is not None],
                           dtype=np.uint64)
    length_tags = np.array([v for v in map(_pack_str, params.delete_labels_for_length)
                            if v is not None], dtype=np.uint64)
    g = _read_side(gold, params, delete_tags, length_tags)
    t = _read_side(test, params, delete_tags, length_tags)
    length = g.length.astype(np.int64)
    defer = ~g.regular | ~t.regular | g.long_label | t.long_label

    # status: skip, length error (deferred when quotes could mend it), then word comparison
    skip = t.wn == 0
    diff_len = ~skip & (g.wn != t.wn)
    if params.quote_labels:
        defer |= diff_len & ~defer
        diff_len &= ~defer
    same = ~defer & ~skip & ~diff_len
    g_sel = same[g.w_line]
    t_sel = same[t.w_line]
    w1_pos, w1_len, w_line = g.w_pos[g_sel], g.w_len[g_sel], g.w_line[g_sel]
    w2_pos, w2_len = t.w_pos[t_sel], t.w_len[t_sel]
    mismatch = w1_len != w2_len
    todo = np.flatnonzero(~mismatch)
    rest, p1, p2 = w1_len[todo], w1_pos[todo], w2_pos[todo]
    while len(todo):  # compare 8 bytes at a time; most words need one round
        low = _LOW_BYTES[np.minimum(rest, _PACK)]
        bad = (g.words_at[p1] & low) != (t.words_at[p2] & low)
        mismatch[todo[bad]] = True
        more = (rest > _PACK) & ~bad
        todo, rest, p1, p2 = todo[more], rest[more] - _PACK, p1[more] + _PACK, p2[more] + _PACK
    bad_word_lines = np.zeros(n, dtype=bool)
    bad_word_lines[w_line[mismatch]] = True
    if params.eq_words:
        defer |= bad_word_lines
        same &= ~bad_word_lines
        bad_word_lines[:] = False
    ok = same & ~bad_word_lines
    status[skip & ~defer] = SKIP
    status[(diff_len | bad_word_lines) & ~defer] = ERROR
    for i in np.flatnonzero(diff_len & ~defer):
        messages[int(i)] = f"Length unmatch ({int(g.wn[i])}|{int(t.wn[i])})"
    if bad_word_lines.any():
        mm = np.flatnonzero(mismatch)
        lines_mm, first_k = np.unique(w_line[mm], return_index=True)
        for li, k in zip(lines_mm, mm[first_k]):
            a = gold[w1_pos[k]:w1_pos[k] + w1_len[k]].decode("utf-8", "replace")
            b = test[w2_pos[k]:w2_pos[k] + w2_len[k]].decode("utf-8", "replace")
            messages[int(li)] = f"Words unmatch ({a}|{b})"

    # tags, on lines that are scored
    table = _LabelTable(params)
    # register every label first: adding a label may merge EQ_LABEL classes, changing class ids
    table.ids(np.concatenate((g.w_tag, t.w_tag, g.b_label, t.b_label)))
    tag_ok = ok[w_line]
    c1 = table.cls[table.ids(g.w_tag[g_sel][tag_ok])] if tag_ok.any() else np.zeros(0, np.int64)
    c2 = table.cls[table.ids(t.w_tag[t_sel][tag_ok])] if tag_ok.any() else np.zeros(0, np.int64)
    correct[:] = np.bincount(w_line[tag_ok][c1 == c2], minlength=n)
    words[ok] = g.wn[ok]

    # brackets kept: non-empty span, label not deleted; only on scored lines
    def kept(side: _Side):
        sel = ok[side.b_line] & (side.b_end > side.b_start)
        ids = table.ids(side.b_label[sel])
        keep = ~table.deleted[ids]
        cls_ = table.cls[ids][keep] if params.labeled else np.zeros(int(keep.sum()), np.int64)
        return side.b_line[sel][keep], side.b_start[sel][keep], side.b_end[sel][keep], cls_

    gl, gs, ge, gc = kept(g)
    tl, ts, te, tc = kept(t)
    gb[:] = np.bincount(gl, minlength=n)
    tb[:] = np.bincount(tl, minlength=n)

    # multiset matching of (line, start, end, label class)
    width = int(max(g.wn.max(initial=0), t.wn.max(initial=0))) + 1
    ncls = int(table.cls.max(initial=0)) + 1
    if n * width * width * ncls >= (1 << 61):
        return _per_pair(gold, test, params, np.arange(n), gold_source, test_source, line0,
                         EvalbColumns(status, length, words, gb, tb, matched, crossing, correct,
                                      messages, 0))
    gkey = ((gl * width + gs) * width + ge) * ncls + gc
    tkey = ((tl * width + ts) * width + te) * ncls + tc
    merged = np.sort(np.concatenate((gkey * 2, tkey * 2 + 1)))
    if len(merged):
        k = merged >> 1
        run_start = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
        run_len = np.diff(np.append(run_start, len(k)))
        n_test = np.add.reduceat(merged & 1, run_start)
        m_run = np.minimum(run_len - n_test, n_test)
        run_line = k[run_start] // (width * width * ncls)
        matched[:] = np.bincount(run_line, weights=m_run, minlength=n).astype(np.int64)

    # crossing: a test bracket (s, e) is crossed if a gold bracket starts inside and ends after
    # it, or ends inside and starts before it; range max/min over per-position tables
    offset = np.zeros(n, dtype=np.int64)
    offset[1:] = np.cumsum(g.wn + 1)[:-1]
    size = int(offset[-1] + g.wn[-1] + 1) if n else 0
    gl32, gs32, ge32 = gl.astype(np.int32), gs.astype(np.int32), ge.astype(np.int32)
    max_end = np.full(size, -1, dtype=np.int32)
    np.maximum.at(max_end, offset[gl] + gs, ge32)
    min_start = np.full(size, np.iinfo(np.int32).max, dtype=np.int32)
    np.minimum.at(min_start, offset[gl] + ge, gs32)
    q = te - ts >= 2
    ql, qs, qe = tl[q], ts[q], te[q]
    if len(ql):
        levels = int(np.floor(np.log2(max(int((qe - qs - 1).max()), 1)))) + 1
        lo, hi = offset[ql] + qs + 1, offset[ql] + qe - 1
        later = range_query(range_tables(max_end, levels, np.maximum, -1), lo, hi, np.maximum)
        earlier = range_query(range_tables(min_start, levels, np.minimum,
                                           np.iinfo(np.int32).max), lo, hi, np.minimum)
        crossed = (later > qe) | (earlier < qs)
        crossing[:] = np.bincount(ql[crossed], minlength=n)

    cols = EvalbColumns(status, length, words, gb, tb, matched, crossing, correct, messages, 0)
    return _per_pair(gold, test, params, np.flatnonzero(defer), gold_source, test_source, line0,
                     cols)


def _per_pair(gold: bytes, test: bytes, params, lines, gold_source, test_source, line0: int,
              cols: EvalbColumns) -> EvalbColumns:
    """Score the given (0-based) lines with the reference per-pair path, in place."""
    if len(lines) == 0:
        return cols
    glines = decode_text(gold, gold_source, line0).split("\n")
    tlines = decode_text(test, test_source, line0).split("\n")
    for i in lines:
        i = int(i)
        s = score_evalb_lines(glines[i], tlines[i], params, gold_source, test_source, line0 + i + 1)
        for name in ("status", "length", "words", "gold", "test", "matched", "crossing",
                     "correct_tags"):
            getattr(cols, name)[i] = getattr(s, name)
        if s.message:
            cols.messages[i] = s.message
        else:
            cols.messages.pop(i, None)
    return cols._replace(deferred=cols.deferred + len(lines))


def score_evalb_files(gold_path: str | Path, test_path: str | Path,
                      params: EvalbParams) -> EvalbColumns:
    """Read two EVALB input files and score them with :func:`score_evalb_bytes`."""
    data = read_pair(gold_path, test_path)
    return score_evalb_bytes(data[0], data[1], params, gold_source=str(gold_path),
                             test_source=str(test_path))
