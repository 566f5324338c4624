"""EVALB over whole files in compiled code: ``evalb_kernel.c``, built once by the C compiler and cached.

Why: users call evalb in loops (a development set at every epoch, one file per system of a shared
task), so ``ranker evalb`` is held to the C evalb's time as a whole process. A Python process that
imports numpy already takes longer than ``evalb.c`` needs for a whole file, and numba's import
alone takes longer still; a small C kernel called through :mod:`ctypes` costs a few milliseconds
to load. The kernel is compiled on first use and cached (:mod:`.kernels`). Without a working
compiler :func:`kernel` returns ``None`` and callers use the numpy path (:mod:`.evalb_fast`):
slower, same counts. ``RANKER_EVALB_KERNEL=numpy`` forces that path (tests compare the two).

This is not a second truth: lines the kernel does not decide alone (see ``evalb_kernel.c``) are
scored by :func:`.evalb.score_evalb_lines`, the reference, which also raises the file:line:column
error for text EVALB reports an error on.
"""
from __future__ import annotations

import ctypes
from typing import Iterator

from .evalb_params import EvalbParams
from .evalb_totals import ERROR, EvalbSentence, EvalbTotals
from .kernels import cache_dir, load_kernel  # noqa: F401  (cache_dir: where the kernels are kept)

REC = 13         # int32 fields of one record, as evalb_kernel.c lays them out
_DEFER, _A = 8, 9
_REFERENCE, _LENGTH, _WORDS = 1, 2, 3   # evalb_kernel.c's DEFER_* codes
_LINE_BYTES = 160  # evalb_format's room for one printed line
CHUNK_BYTES = 1 << 20   # gold bytes scored at a time (a block): memory stays flat whatever the file size
FIRST_CHUNK_BYTES = 1 << 16   # the first block; blocks double up to CHUNK_BYTES, so a run that
                              # stops at MAX_ERROR early (as EVALB does) scores little beyond it

_kernel: ctypes.CDLL | None | bool = False   # False: not looked for yet


def kernel() -> ctypes.CDLL | None:
    """The compiled kernel, built on first use; ``None`` when it cannot be built or is switched off."""
    global _kernel
    if _kernel is not False:
        return _kernel
    _kernel = lib = load_kernel("evalb_kernel.c")
    if lib is None:
        return None
    lib.evalb_score.restype = ctypes.c_long
    lib.evalb_score.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_char_p, ctypes.c_long,
                                ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_long]
    lib.evalb_format.restype = ctypes.c_long
    lib.evalb_format.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_long, ctypes.c_char_p]
    lib.evalb_totals.restype = None
    lib.evalb_totals.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_long, ctypes.c_void_p]
    _kernel = lib
    return lib


def _param_blob(params: EvalbParams) -> tuple[ctypes.Array, bytes]:
    """The parameter lists as the kernel takes them: counts, then NUL-terminated strings."""
    strings = (list(params.delete_labels) + list(params.delete_labels_for_length)
               + [x for pair in params.eq_labels for x in pair]
               + [x for pair in params.eq_words for x in pair])
    counts = (ctypes.c_int32 * 6)(int(params.labeled), len(params.delete_labels),
                                  len(params.delete_labels_for_length), len(params.eq_labels),
                                  len(params.eq_words), int(bool(params.quote_labels)))
    return counts, b"".join(s.encode("utf-8") + b"\0" for s in strings)


class EvalbRecords:
    """Per-line EVALB counts of consecutive line pairs, held as the kernel's int32 records.

    Lines the kernel deferred are scored by the reference when the records are made, so every
    record is final; :attr:`messages` holds the stderr text of error sentences by 0-based line
    within the block, whose first line is line ``line0 + 1`` of the files.
    """

    def __init__(self, lib: ctypes.CDLL, records: ctypes.Array, size: int, line0: int,
                 messages: dict[int, str], deferred: int):
        self._lib = lib
        self._rec = records
        self.size = size
        self.line0 = line0
        self.messages = messages
        self.deferred = deferred   # how many lines the reference scored

    def sentence(self, i: int) -> EvalbSentence:
        """Line ``i`` (0-based, within the block) as an :class:`EvalbSentence`."""
        r = self._rec[i * REC:i * REC + 8]
        return EvalbSentence(*r, self.messages.get(i, ""))

    def table(self, start: int, stop: int) -> bytes:
        """EVALB's per-sentence lines for block lines ``start`` to ``stop`` (``stop`` excluded)."""
        n = max(stop - start, 0)
        buf = ctypes.create_string_buffer(n * _LINE_BYTES + 1)
        used = self._lib.evalb_format(ctypes.byref(self._rec, start * REC * 4), n,
                                      self.line0 + start + 1, buf)
        return buf.raw[:used]

    def totals(self, cutoff_len: int) -> tuple[EvalbTotals, EvalbTotals]:
        """EVALB's running totals of the block: every sentence, and those of length <= ``cutoff_len``."""
        out = (ctypes.c_int64 * 24)()
        self._lib.evalb_totals(self._rec, self.size, cutoff_len, out)
        return EvalbTotals(*out[:12]), EvalbTotals(*out[12:])


def score_evalb_native(gold: bytes, test: bytes, params: EvalbParams, lines: int, *,
                       gold_source: str = "<gold>", test_source: str = "<test>",
                       line0: int = 0) -> EvalbRecords | None:
    """Score ``lines`` line pairs of two EVALB input texts with the kernel; ``None`` without one.

    The texts must have been checked (UTF-8, equal line counts) by the caller; ``line0`` lines
    of the files come before them (for line numbers in errors and in the table).

    Raises
    ------
    ranker.trees.penn.TreeSyntaxError
        For a line that EVALB reports an error on (from the reference, which reads deferred lines).
    MemoryError
        When the kernel runs out of memory.
    """
    lib = kernel()
    if lib is None:
        return None
    records = (ctypes.c_int32 * (REC * max(lines, 1)))()
    counts, blob = _param_blob(params)
    done = lib.evalb_score(gold, len(gold), test, len(test), counts, blob, records, lines)
    if done < 0:
        raise MemoryError("EVALB kernel: out of memory")
    if done != lines:
        raise AssertionError(f"EVALB kernel read {done} line pairs of {lines}")
    messages: dict[int, str] = {}
    view = memoryview(records).cast("B").cast("i")
    flagged = [i for i, d in enumerate(view[_DEFER::REC]) if d]
    deferred = [i for i in flagged if view[i * REC + _DEFER] == _REFERENCE]
    for i in flagged:
        a, b, c, d = view[i * REC + _A:i * REC + _A + 4]
        if view[i * REC + _DEFER] == _LENGTH:
            messages[i] = f"Length unmatch ({a}|{b})"
        elif view[i * REC + _DEFER] == _WORDS:
            messages[i] = (f"Words unmatch ({gold[a:a + b].decode('utf-8')}|"
                           f"{test[c:c + d].decode('utf-8')})")
    if deferred:
        from .evalb import score_evalb_lines

        glines, tlines = _lines_at(gold, deferred), _lines_at(test, deferred)
        for i, g, t in zip(deferred, glines, tlines):
            s = score_evalb_lines(g.decode("utf-8"), t.decode("utf-8"), params, gold_source,
                                  test_source, line0 + i + 1)
            records[i * REC:i * REC + 8] = list(s[:8])
            if s.status == ERROR:
                messages[i] = s.message
    return EvalbRecords(lib, records, lines, line0, messages, len(deferred))


def score_evalb_file_blocks(gold_path: str, test_path: str, params: EvalbParams,
                            chunk_bytes: int | None = None) -> Iterator[EvalbRecords] | None:
    """Score two EVALB input files block by block with the kernel; ``None`` without one.

    Both files are first read through once to check them (UTF-8, equal line counts: nothing is
    scored otherwise, as nothing is printed), then scored in blocks of about ``chunk_bytes`` of
    gold text (:data:`CHUNK_BYTES` by default), so memory stays flat whatever the files' size. An
    input that can be read only once (a pipe, ``/dev/stdin``, a FIFO) is read into memory once.

    Raises
    ------
    FileNotFoundError, ranker.textfiles.TextFileError, .evalb_files.EvalbInputError
        Before the first block, for files that cannot be paired.
    """
    from .evalb_files import InputFile, check_files

    if kernel() is None:
        return None
    # checked, then scored: two passes, so a pipe's bytes are read once and kept (InputFile)
    gold, test = InputFile(gold_path), InputFile(test_path)
    check_files(gold, test)
    return _blocks(gold, test, params, chunk_bytes or CHUNK_BYTES)


def _block_sizes(largest: int) -> Iterator[int]:
    size = min(FIRST_CHUNK_BYTES, largest)
    while True:
        yield size
        size = min(2 * size, largest)


def _blocks(gold_path, test_path, params, chunk_bytes) -> Iterator[EvalbRecords]:
    from .evalb_files import LineBlocks

    line0 = 0
    sizes = _block_sizes(chunk_bytes)
    with LineBlocks(gold_path) as gold, LineBlocks(test_path) as test:
        while True:
            g = gold.take_bytes(next(sizes))
            if not g:
                return
            n = g.count(b"\n") + (0 if g.endswith(b"\n") else 1)
            t = test.take_lines(n)
            block = score_evalb_native(g, t, params, n, gold_source=str(gold_path),
                                       test_source=str(test_path), line0=line0)
            yield block
            line0 += n


def _lines_at(data: bytes, wanted: list[int]) -> list[bytes]:
    """The lines (without newline) of ``data`` at the given sorted 0-based indices."""
    out, line, pos = [], 0, 0
    for i in wanted:
        while line < i:
            pos = data.index(b"\n", pos) + 1
            line += 1
        end = data.find(b"\n", pos)
        out.append(data[pos:] if end < 0 else data[pos:end])
    return out
