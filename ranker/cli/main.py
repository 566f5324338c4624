"""Entry point of the ``ranker`` command.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``, which
registers the subcommand and sets ``func(args) -> int`` as its handler. A user error
(:class:`ranker.errors.RankerError`, a missing file) becomes one line on stderr and exit status 2,
never a traceback; so do failures of the machine (disk full, file too large, a damaged store).
A reader that leaves a pipe early (``ranker store stats S | head -1``) ends the command quietly,
for every command, here.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import sqlite3
import sys

from ..errors import RankerError
from ..gcpause import gc_paused

# Order is the order of ``ranker --help``.
SUBCOMMANDS = [
    "evalb",
    "evaluate",
    "parse",
    "importing",
    "annotate",
    "counts",
    "store",
    "score",
    "train",
    "select",
    "gold",
    "models",
    "run",
    "serve",
]


#: OSErrors that come from the machine, not from a bug: reported in one line like a user error.
_ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EDQUOT, errno.EIO, errno.EEXIST}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ranker",
        description="Store candidate parses, rank them, and evaluate the choice against treebanks.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        importlib.import_module(f"ranker.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with gc_paused():   # commands build millions of cycle-free tuples: see ranker.gcpause
            status = int(args.func(args) or 0)
            sys.stdout.flush()   # a closed pipe must show here, not in the interpreter's exit
            return status
    except BrokenPipeError:
        # `ranker store stats S | head -1`: the reader left, which is a normal end. Point stdout
        # at /dev/null so that the interpreter's final flush does not fail a second time.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):   # stdout is no real file (a test's capture)
            pass
        return 0
    except (RankerError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as e:
        print(f"ranker: error: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        if type(e) is not sqlite3.DatabaseError:   # OperationalError and the like: a bug, keep the traceback
            raise
        # a store damaged where the opening checks did not look (SQLite reads pages lazily)
        where = f"{args.store}: " if isinstance(getattr(args, "store", None), str) else ""
        print(f"ranker: error: {where}damaged store file ({e})", file=sys.stderr)
        return 2
    except OSError as e:
        if e.errno not in _ENVIRONMENT_ERRNOS:
            raise
        # Disk full, file too large, read-only file system: the system's word, and the file if known.
        where = f"{e.filename}: " if e.filename else ""
        print(f"ranker: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ranker: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
