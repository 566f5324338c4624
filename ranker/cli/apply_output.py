"""What ``ranker apply`` writes however its input is read: the output file, its closing messages and exit status.

Shared by the input ranked in a store (:mod:`.apply_in_store`) and lists streamed without one
(:mod:`.apply_streamed`), so every path writes the same bytes (a ``.gz`` output with no time in its
header) and ends with the same rule for its status (:func:`finish`); a module of its own so that
neither path imports the other or the command (:mod:`.apply`).
"""
from __future__ import annotations

import sys
from contextlib import contextmanager


#: Skipped lines named one by one on stderr; the others are counted.
SHOWN = 20



def output_stream(path):
    """The output as a text stream: standard output for ``-``, else the file, written whole (:func:`output`)."""
    from contextlib import nullcontext

    return nullcontext(sys.stdout) if path == "-" else output(path)



@contextmanager
def output(path):
    """The output file as a text stream, written whole or not at all; gzip-compressed when its name
    ends in ``.gz`` (a large corpus's trees take a tenth of the room), with no time in the gzip
    header and no name (the temporary file's would be), so one input and model give the same bytes
    whenever and however they are applied."""
    import gzip
    import io

    from ..atomicfile import atomic_write

    if not str(path).endswith(".gz"):
        with atomic_write(path) as f:
            yield f
        return
    with atomic_write(path, binary=True) as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as z, \
            io.TextIOWrapper(z, encoding="utf-8") as f:
        yield f



def finish(args, shown: list[str], skipped: int, refused: int, written: int, empty: int,
            broken: list[str]) -> int:
    """Say what an apply did and give its exit status: the first skipped inputs (``shown``; ``skipped``
    of them in all), the lines without a tree, the trees written, the breaks (a file that could not
    be read on). The one rule of every input and path: 1 when an input could not be read (a bad list,
    a line not in the encoding or the text format: ``refused``) or a file broke off, as ``ranker
    import`` says of a bad forest; 0 when every input was read, even if some have no tree (an empty
    line, a sentence too long or without a parse)."""
    where = "standard output" if args.out == "-" else args.out
    for line in shown[:SHOWN]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if empty:
        print(f"ranker: {empty} of {written + empty} input sentences have no tree (empty lines in {where}): "
              f"{skipped} skipped input, {empty - skipped} without a parse", file=sys.stderr)
    print(f"wrote {written} trees to {where} ({written + empty} input sentences)",
          file=sys.stderr if args.out == "-" else sys.stdout)
    before = "lines" if args.text else "lists"
    for b in broken:   # the trees of what was read are written; the rest of that input is not there
        print(f"ranker: error: {b}; the trees of the {before} before it are written", file=sys.stderr)
    return 1 if broken or refused else 0
