"""``ranker evaluate`` under every scheme in compiled code (``schemes_kernel.c``).

Why: the reference scorers (:mod:`.schemes`) read every tree into Python objects and rebuild it
for each transform, 0.3-1 ms a pair, where users score whole development sets in loops. The
kernel reads both files' lines into flat arrays and counts in one pass; it is built and cached
like the EVALB kernel (:mod:`.kernels`).

Nothing here is a second definition of a scheme. What depends on label strings is decided by
the reference's own functions once per distinct label and handed to the kernel as tables
(:class:`_Tables`): base labels and function tags (:mod:`ranker.trees.transforms`), the head
table's passes and categories (:class:`~ranker.trees.heads.HeadRules`), each relation-label
pattern's verdict on each label (:func:`ranker.trees.dependencies._matches`), EVALB's parameter
lists and label cut (:mod:`.evalb_params`, :func:`.evalb.cut_label`), Black et al.'s word forms
and tag classes (:mod:`ranker.trees.black`), the flattening rules
(:class:`~ranker.trees.flatten.FlattenRules`). What depends on structure is the kernel's, and
tests compare its counts with the reference's on real data. Pairs the kernel does not decide
alone (anything but one well-formed Penn tree per line, different words, see the kernel's notes)
are scored by the reference, pair by pair; if one of them is an error, the whole file pair goes
to the reference, which reports the error exactly as it always does (the first one in file
order).

The fast path applies to one-tree-per-line GOLD and TEST files in Penn notation (not a ``.dp``
gold, not ``--notation black``, no EVALB ``EQ_WORD``); :func:`evaluate_native` returns ``None``
otherwise, and the caller runs the reference.
"""
from __future__ import annotations

import ctypes
from array import array
from collections import Counter

from .kernels import load_kernel
from .schemes import SCHEMES

#: The schemes the kernel counts (those with a ``native`` number in :data:`.schemes.SCHEMES`), in
#: the order of ``schemes_kernel.c``'s SCHEME_* numbers.
NATIVE_SCHEMES = tuple(name for _, name in sorted((s.native, name) for name, s in SCHEMES.items()
                                                  if s.native is not None))
REC = 8                      # int32 fields of one record, as schemes_kernel.c lays them out
_DEFER = 2
CHUNK_LINES = 1 << 11        # pairs scored per kernel call: the records stay small whatever the file size
TWO_THREADS_BYTES = 2 << 20  # a gold file larger than this is scored on two threads
SCAN_BYTES = 4 << 20         # bytes counted at a time before their pages are let go
RELEASE_MARGIN = 2 << 20     # bytes before a released range released again (see _Mapped.release)

# label flags, as schemes_kernel.c numbers them
F_NONE, F_PUNCT, F_HEADPUNCT, F_COORD, F_PP, F_SBJ, F_CCONJ, F_EMPTY = 1, 2, 4, 8, 16, 32, 64, 128
F_EVDEL, F_EVLEN, F_EVQUOTE, F_EVBDEL = 256, 512, 1024, 2048
F_PTB, F_VERB, F_ADVTAG, F_ADVPFX, F_VPFX, F_MD, F_TO, F_POS, F_BPUNCT = (1 << k for k in range(12, 21))
W_AUX, W_NOT, W_TO, W_ZERO, W_POSS = 1, 2, 4, 8, 16

_DIRECTIONS = {"left": 0, "right": 1, "leftdis": 2, "rightdis": 3, "leftexcept": 4, "rightexcept": 5}
_PSEUDO = {"@tag": -1, "@phrase": -2, "@node": -3, "@word": -4, "@same": -5}

_lib: ctypes.CDLL | None | bool = False
#: A relation pattern's verdict on a label, by pattern and label: the tables are rebuilt as labels
#: come and each thread has its own, so each verdict is worked out once.
_VERDICTS: dict = {}


def kernel() -> ctypes.CDLL | None:
    """The compiled kernel with its functions declared; ``None`` without one."""
    global _lib
    if _lib is not False:
        return _lib
    lib = _lib = load_kernel("schemes_kernel.c")
    if lib is None:
        return None
    p, i32, lng = ctypes.c_void_p, ctypes.c_int32, ctypes.c_long
    lib.sk_new.restype = p
    lib.sk_new.argtypes = []
    lib.sk_free.argtypes = [p]
    lib.sk_label.restype = i32
    lib.sk_label.argtypes = [p, ctypes.c_char_p, i32]
    lib.sk_form.restype = i32
    lib.sk_form.argtypes = [p, ctypes.c_char_p, i32, i32]
    lib.sk_punct_char.restype = None
    lib.sk_punct_char.argtypes = [p, i32]
    lib.sk_labels.restype = i32
    lib.sk_labels.argtypes = [p, ctypes.POINTER(p), ctypes.POINTER(p), ctypes.POINTER(p)]
    lib.sk_score.restype = lng
    lib.sk_score.argtypes = [p, ctypes.c_int, p, lng, p, lng, lng, p, i32,
                             p, p, p, p, p, p, i32, i32, p, i32, p, p, i32, i32, p, p, i32, i32, i32, p]
    lib.sk_totals.restype = lng
    lib.sk_totals.argtypes = [p, lng, p]
    lib.sk_scan.restype = None
    lib.sk_scan.argtypes = [p, lng, p]
    lib.sk_skip_lines.restype = lng
    lib.sk_skip_lines.argtypes = [p, lng, lng]
    return lib


def _ptr(a: array) -> int:
    return a.buffer_info()[0] if len(a) else 0


class _Tables:
    """The kernel's handle and the label tables of one run, grown as new labels are read."""

    def __init__(self, lib, scheme, args):
        """``scheme``: the :class:`~.schemes.Scheme` counted; what it reads (``options``,
        ``head_rules``, ``erasure``) says which tables to build."""
        from ..trees.transforms import PUNCT_TAGS

        self.lib, self.scheme = lib, scheme
        self.handle = lib.sk_new()
        if not self.handle:
            raise MemoryError("evaluation kernel: out of memory")
        self.punct = PUNCT_TAGS
        self.names: list[str] = []
        self.params = self.rules = self.relations = None
        self.eq = array("i")
        if "param" in scheme.options:
            from .evalb_params import load_params
            from .schemes import DEFAULTS

            self.params = load_params(args.param or DEFAULTS.evalb_param)
            self.eq = array("i", [self.intern(x) for pair in self.params.eq_labels for x in pair])
        elif scheme.head_rules is not None:
            from ..trees.heads import HeadRules
            from .schemes import DEFAULTS

            self.rules = HeadRules.load(args.head_rules or scheme.head_rules)
            self.categories = {c: self.intern(c) for passes in self.rules.rules.values()
                               for p in passes for c in p.categories if c not in _PSEUDO}
            if "relation_labels" in scheme.options:
                from ..trees.dependencies import RelationLabels

                self.relations = RelationLabels.load(args.relation_labels or DEFAULTS.relation_labels)
        self.black = scheme.erasure
        if self.black:
            self._black_forms()
        self.frules, self.fpats, self.flat_opts = array("i"), array("i"), 0
        self.none = self.intern("-NONE-")
        if "flatten_rules" in scheme.options:
            self._flatten_rules(args)
        self.size = -1
        self._ids: dict[str, int] = {}
        self._programs: dict = {}
        self.flags, self.base, self.cut = array("i"), array("i"), array("i")
        self.hoff, self.hprog = array("i"), array("i")
        self.rl, self.pat, self.patword, self._patterns = array("i"), bytearray(), bytearray(), []
        self.empty_rel = self.root_rel = 0
        if self.relations is not None:
            self._relation_rules()
        self.sync(0)                          # the rule files' labels need their base labels too

    def _flatten_rules(self, args) -> None:
        """The flattening rules (trees/flatten.py) as the kernel reads them, and the options."""
        self.flat_opts = (not args.omit_root) | 2 * bool(args.keys_as_given)
        if args.keys_as_given:
            return
        from ..trees.flatten import FlattenRules
        from .schemes import DEFAULTS

        rules = FlattenRules.load(args.flatten_rules or DEFAULTS.flatten_rules)
        codes = {"_": -1, "*": -2}
        for r in rules.rules:
            form = 3 if r.children is None else 2 if r.marked < 0 else 1
            pats = r.children or ()
            self.frules.extend([self.intern(r.parent), form, r.marked, len(pats), len(self.fpats)])
            self.fpats.extend(codes[c] if c in codes else self.intern(c) for c in pats)

    def _black_forms(self) -> None:
        """Black et al.'s word forms and punctuation characters (trees/black.py) for the kernel."""
        from ..trees import black

        kinds: dict[str, int] = {}
        for forms, kind in ((black._AUX_FORMS, W_AUX), (black._NOT_FORMS, W_NOT), (("to",), W_TO),
                            (("0",), W_ZERO), (("'s", "'"), W_POSS)):
            for f in forms:
                kinds[f] = kinds.get(f, 0) | kind
        for f, kind in kinds.items():
            b = f.encode("utf-8")
            if self.lib.sk_form(self.handle, b, len(b), kind) < 0:
                raise MemoryError("evaluation kernel: out of memory")
        for ch in black._PUNCT_CHARS:
            if ch.isascii():                  # the kernel defers sentences with other words
                self.lib.sk_punct_char(self.handle, ord(ch))

    def intern(self, s: str) -> int:
        b = s.encode("utf-8")
        i = self.lib.sk_label(self.handle, b, len(b))
        if i < 0:
            raise MemoryError("evaluation kernel: out of memory")
        return i

    def close(self) -> None:
        self.lib.sk_free(self.handle)
        self.handle = None

    def _read_names(self) -> int:
        text, off, length = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        n = self.lib.sk_labels(self.handle, ctypes.byref(text), ctypes.byref(off), ctypes.byref(length))
        if n > len(self.names):
            offs = (ctypes.c_int32 * n).from_address(off.value)
            lens = (ctypes.c_int32 * n).from_address(length.value)
            for i in range(len(self.names), n):
                self.names.append(ctypes.string_at(text.value + offs[i], lens[i]).decode("utf-8"))
        return n

    def sync(self, done: int | None = None) -> None:
        """Tables for every label interned so far (the derived base and cut labels interned too).

        ``done``: how many labels already have theirs (by default those read before).
        """
        from ..trees.transforms import base_label

        from .evalb import cut_label

        done = len(self.names) if done is None else done
        while self._read_names() > done:
            new = self.names[done:]
            done = len(self.names)
            for name in new:                 # derived labels are labels too (ids for the tables)
                self.intern(base_label(name))
                if self.params is not None:
                    self.intern(cut_label(name))
        if len(self.names) != self.size:
            self._arrays()

    def _arrays(self) -> None:
        """Extend the per-label tables to every label interned so far.

        Only the new labels are worked out: a file's labels arrive a few at a time, each stopping
        the kernel, so rebuilding every table each time cost more than the counting.
        """
        from ..trees.dependencies import _matches
        from ..trees.transforms import base_label, function_tags
        from ..trees.tree import Node

        from .evalb import cut_label

        self._read_names()
        names, ids = self.names, self._ids
        start = max(self.size, 0)
        for i in range(len(ids), len(names)):
            ids[names[i]] = i
        p = self.params
        for i in range(start, len(names)):
            n = names[i]
            b = base_label(n)
            self.base.append(ids.get(b, i))
            f = (F_NONE * (n == "-NONE-") | F_PUNCT * (n in self.punct) | F_PP * (n == "PP")
                 | F_EMPTY * (n == "") | F_CCONJ * (b in ("CC", "CONJP"))
                 | F_SBJ * ("SBJ" in function_tags(n)))
            if self.rules is not None:
                f |= F_HEADPUNCT * (n in self.rules.punctuation) | F_COORD * (n in self.rules.coordination)
            c = 0
            if p is not None:
                cl = cut_label(n)
                c = ids.get(cl, i)
                f |= (F_EVDEL * (n in p.delete_labels) | F_EVLEN * (n in p.delete_labels_for_length)
                      | F_EVQUOTE * (n in p.quote_labels)
                      | F_EVBDEL * bool(p.delete_labels and p.deletes_bracket(cl)))
            self.cut.append(c)
            if self.black:
                f |= self._black_flags(b)
            self.flags.append(f)
            self.hoff.append(self._head_program(b) if self.rules is not None else 0)
            if self.relations is not None:       # each pattern's verdict on the label: a row
                for alts in self._patterns:
                    verdict = _VERDICTS.setdefault(alts, {})
                    if n not in verdict:
                        verdict[n] = _matches(alts, Node(n, (0,), 0, 1))
                    self.pat.append(verdict[n])
        self.size = len(names)

    @staticmethod
    def _black_flags(b: str) -> int:
        from ..trees import black

        return (F_PTB * (b in black._PTB_TAGS) | F_VERB * (b in black._VERB_TAGS)
                | F_ADVTAG * (b in black._ADVERB_TAGS) | F_ADVPFX * b.startswith("ADV")
                | F_VPFX * b.startswith("V") | F_MD * (b == "MD") | F_TO * (b == "TO")
                | F_POS * (b == "POS") | F_BPUNCT * (b in black._PUNCT_TAGS))

    def _head_program(self, base: str) -> int:
        """Where the head rules of a label with base label ``base`` start in ``hprog`` (added once)."""
        from ..trees.heads import HeadRule

        rules = self.rules.rules
        passes = rules.get(base) or rules.get("*") or (HeadRule("left", ()),)
        at = self._programs.get(passes)
        if at is None:
            at = self._programs[passes] = len(self.hprog)
            self.hprog.append(len(passes))
            for p in passes:
                self.hprog.extend([_DIRECTIONS[p.direction], len(p.categories)])
                self.hprog.extend(_PSEUDO[c] if c in _PSEUDO else self.categories[c] for c in p.categories)
        return at

    def _relation_rules(self) -> None:
        """The relation-label rules as the kernel reads them (``rl``, ``patword``); the verdicts
        of their patterns on labels (``pat``, a row of 3 x rules per label) grow in :meth:`_arrays`."""
        from ..trees.dependencies import _matches

        relation_ids = {"": 0, "root": 1}
        self.empty_rel, self.root_rel = 0, 1
        for k, r in enumerate(self.relations.rules):
            rel = relation_ids.setdefault(r.relation, len(relation_ids))
            self.rl.extend([rel, {None: 0, "before": 1, "after": 2}[r.side], r.nth, int(r.coord),
                            int(r.nosubj), 3 * k, 3 * k + 1, 3 * k + 2])
            for alts in (r.parent, r.head, r.dependent):
                self._patterns.append(alts)
                self.patword.append(_matches(alts, 0))

    def score(self, gold: int, glen: int, test: int, tlen: int, lines: int, rec: array) -> array:
        """Records of the next ``lines`` line pairs (REC int32 each, into ``rec``) of the texts at
        addresses ``gold`` and ``test``; returns ``state``: lines done, gold and test bytes read.

        The kernel stops at a line with a label new to the tables; they are extended and it goes on.
        """
        lib = self.lib
        state = array("q", [0, 0, 0])
        while True:
            pat, patword = bytes(self.pat), bytes(self.patword)
            done = lib.sk_score(self.handle, self.scheme.native, gold, glen, test, tlen,
                                lines, _ptr(state), self.size, _ptr(self.flags),
                                _ptr(self.base), _ptr(self.hoff), _ptr(self.hprog), _ptr(self.cut),
                                _ptr(self.eq), len(self.eq) // 2,
                                int(self.params.labeled) if self.params is not None else 1,
                                _ptr(self.rl), len(self.rl) // 8, pat, patword,
                                self.empty_rel, self.root_rel, _ptr(self.frules), _ptr(self.fpats),
                                len(self.frules) // 5, self.flat_opts, self.none, _ptr(rec))
            if done < 0:
                raise MemoryError("evaluation kernel: out of memory")
            if done == lines:
                return state
            self.sync()


class _Mapped:
    """A file's bytes mapped into memory (never written), with their address for the kernel.

    Why a map: the kernel reads the pages where they are, so no block of the file is copied into
    a Python object, and two threads can start anywhere in it.
    """

    def __init__(self, path):
        import mmap

        with open(path, "rb") as f:            # copy-on-write: writable for ctypes, never written
            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        self._view = (ctypes.c_char * len(self.map)).from_buffer(self.map)
        self.address, self.size = ctypes.addressof(self._view), len(self.map)

    def release(self, start: int, end: int) -> None:
        """Let the pages of bytes [start, end) go from this process's memory (they are read from the
        page cache again if touched), so a large file never stays resident as a whole.

        The pages just before ``start`` go too: a page fault maps its neighbours in the page cache
        (the kernel's fault-around), among them pages released before, which would otherwise stay.
        """
        import mmap

        start = max(0, start - RELEASE_MARGIN)
        start -= start % mmap.PAGESIZE
        if end > start and hasattr(mmap, "MADV_DONTNEED"):
            self.map.madvise(mmap.MADV_DONTNEED, start, end - start)

    def close(self) -> None:
        del self._view
        self.map.close()


def _lines(lib, m: _Mapped) -> int | None:
    """The lines of a mapped file (the last counted whether or not it ends in a newline), or None
    when it is not UTF-8 text (the reference then names the bad byte). Keeps the newlines of each
    SCAN_BYTES slice in ``m.newlines`` for :func:`_line_offset`."""
    out, part = array("q", [0, 0]), array("q", [0, 0])
    m.newlines = []
    for k in range(0, m.size, SCAN_BYTES):
        n = min(SCAN_BYTES, m.size - k)
        lib.sk_scan(m.address + k, n, _ptr(part))
        m.newlines.append(part[0])
        out[0] += part[0]
        out[1] |= part[1]
        m.release(k, k + n)
    if out[1]:
        from .evalb_files import is_utf8

        if not is_utf8(m.map):
            return None
    return out[0] + (m.map[m.size - 1] != 10)


def _first_line(path) -> str | None:
    """The first non-blank line of a file (decoded), or None if it has none."""
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.strip():
                return line
    return None


def evaluate_native(args) -> dict | None:
    """``ranker evaluate``'s figures for ``args`` from the kernel, or ``None`` where it does not apply.

    ``None`` also when the files cannot be paired or a pair is an error: the reference then
    raises its error, word for word. Files that cannot be mapped (empty, not regular files) go
    to the reference too.
    """
    from ..errors import RankerError

    from ..registries import SCHEMES as REGISTERED

    scheme = REGISTERED.get(args.scheme, "--scheme")
    if scheme.native is None or args.notation != "penn":
        return None
    lib = kernel()
    if lib is None:
        return None
    from .inputs import is_conll_path, one_tree_per_line

    if scheme.dependency_gold and is_conll_path(args.gold):
        return None
    maps = []
    try:
        try:
            maps = [_Mapped(p) for p in (args.gold, args.test)]
            firsts = [_first_line(p) for p in (args.gold, args.test)]
        except (OSError, ValueError):
            return None
        lines = [_lines(lib, m) for m in maps]
        if None in lines or lines[0] != lines[1]:
            return None
        if firsts[0] is None or not all(f is None or one_tree_per_line(f) for f in firsts):
            return None
        try:
            tables = _Tables(lib, scheme, args)
        except (RankerError, OSError, ValueError):
            return None                   # a bad rule or parameter file: the reference says so
        if tables.params is not None and tables.params.eq_words:
            tables.close()
            return None
        return _figures(args, scheme, *_score_files(tables, args, *maps, lines[0]))
    finally:
        for m in maps:
            m.close()


def _line_offset(lib, m: _Mapped, line: int) -> int:
    """The byte offset where 0-based line ``line`` starts, reading only the slice that holds it."""
    before = 0
    for i, count in enumerate(m.newlines):
        if before + count >= line:
            k = i * SCAN_BYTES
            n = min(SCAN_BYTES, m.size - k)
            off = k + lib.sk_skip_lines(m.address + k, n, line - before)
            m.release(k, k + n)
            return off
        before += count
    return m.size


def _score_range(tables: _Tables, g: _Mapped, t: _Mapped, line0: int, goff: int, toff: int, n: int):
    """Sums (as ``sk_totals``), deferred pairs and (parseval) sentence counts of ``n`` line pairs
    from line ``line0`` (0-based) at byte offsets ``goff``, ``toff``: CHUNK_LINES at a time."""
    lib = tables.lib
    sums, chunk = array("q", bytes(8 * 18)), array("q", bytes(8 * 18))
    deferred, sentences = [], Counter()
    rec = array("i", bytes(4 * REC * max(1, min(n, CHUNK_LINES))))
    done = 0
    while done < n:
        k = min(CHUNK_LINES, n - done)
        state = tables.score(g.address + goff, g.size - goff, t.address + toff, t.size - toff, k, rec)
        if lib.sk_totals(_ptr(rec), k, _ptr(chunk)):
            gl = g.map[goff:goff + state[1]].split(b"\n")
            tl = t.map[toff:toff + state[2]].split(b"\n")
            deferred += [(line0 + done + i + 1, gl[i], tl[i]) for i in range(k) if rec[i * REC] == _DEFER]
        for j in range(18):
            sums[j] += chunk[j]
        if tables.scheme.erasure:
            sentences.update(tuple(rec[i * REC + 1:i * REC + 5]) for i in range(k) if rec[i * REC] != _DEFER)
        g.release(goff, goff + state[1])
        t.release(toff, toff + state[2])
        done, goff, toff = done + k, goff + state[1], toff + state[2]
    return sums, deferred, sentences


def _score_files(tables: _Tables, args, g: _Mapped, t: _Mapped, lines: int):
    """Every pair scored: on both cores when the gold file is large (the second half of the lines
    on a thread of its own, with its own handle and tables; ctypes releases the interpreter lock)."""
    import os

    try:
        if g.size <= TWO_THREADS_BYTES or (os.cpu_count() or 1) < 2 or lines < 2:
            return _score_range(tables, g, t, 0, 0, 0, lines)
        import threading

        half = lines // 2
        lib = tables.lib
        goff, toff = _line_offset(lib, g, half), _line_offset(lib, t, half)
        second: list = []

        def run_second():
            other = _Tables(lib, tables.scheme, args)
            try:
                second.append(_score_range(other, g, t, half, goff, toff, lines - half))
            except BaseException as e:          # re-raised in the caller's thread
                second.append(e)
            finally:
                other.close()

        worker = threading.Thread(target=run_second)
        worker.start()
        try:
            first = _score_range(tables, g, t, 0, 0, 0, half)
        finally:
            worker.join()
        if isinstance(second[0], BaseException):
            raise second[0]
        sums, deferred, sentences = first
        for j in range(18):
            sums[j] += second[0][0][j]
        sentences.update(second[0][2])
        return sums, deferred + second[0][1], sentences
    finally:
        tables.close()


def _figures(args, scheme, sums, deferred, sentences) -> dict | None:
    """The scheme's figures: the kernel's sums plus the deferred pairs scored by the reference."""
    from ..errors import RankerError
    from .inputs import tree_of_line

    pairs = []
    try:
        for n, g, t in deferred:
            pairs.append((n, tree_of_line(g.decode("utf-8"), args.gold, n, allow_no_parse=False), n,
                          tree_of_line(t.decode("utf-8"), args.test, n)))
        acc = scheme.totals(sums)
        if scheme.erasure:
            from .parseval import BracketCounts, ParsevalAccumulator

            black = ParsevalAccumulator()
            for counts, times in sentences.items():
                black.add(BracketCounts(*counts), times)
            return scheme.score(args, pairs, acc, black)
        return scheme.score(args, pairs, acc)
    except (RankerError, ValueError):
        return None                   # an error among them: the reference reports the first one
