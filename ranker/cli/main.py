"""Entry point of the ``ranker`` command.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``, which
registers the subcommand and sets ``func(args) -> int`` as its handler. A user error
(:class:`ranker.errors.RankerError`, a missing file) becomes one line on stderr and exit status 2,
never a traceback; so do failures of the machine (disk full, file too large, a damaged store).
A reader that leaves a pipe early (``ranker store stats S | head -1``) ends the command quietly,
for every command, here; so do Ctrl-C and SIGTERM, in one line (:mod:`ranker.cli.signals`).
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys

from ..errors import RankerError
from ..gcpause import gc_paused

# argparse passes each of its own words ("usage:", "options", ...) through gettext, and every such
# call looks for a message catalogue anew: it imports locale and stats a dozen locale paths per
# word (about 40 stats, 5-15 ms for `ranker --help`, where the whole budget above a bare
# interpreter is 12 ms). CPython ships no catalogue for argparse and ranker's own texts are
# English, so the lookup can only return the text it was given: argparse is asked to skip it.
argparse._ = lambda text: text
argparse.ngettext = lambda singular, plural, n: singular if n == 1 else plural

#: Subcommand -> (its module in this package, its one-line help), in the order of ``ranker --help``.
#: The help is repeated here so that ``ranker --help`` lists the commands without importing them, and
#: ``ranker CMD`` imports only CMD's module: start-up is part of every command's time, and ``ranker
#: evalb`` is held to the C evalb's (tests/cli/test_evalb.py checks each module registers these words).
SUBCOMMANDS = {
    "evalb": ("evalb", "score bracketings exactly as EVALB does (same report)"),
    "evaluate": ("evaluate", "score test parses against gold under EVALB, PARSEVAL, MPH, flat keys or "
                             "dependencies"),
    "parse": ("parse", "parse corpus sentences with Link Grammar into the store"),
    "import": ("importing", "import candidate forests from Penn or BLLIP n-best files"),
    "annotate": ("annotate", "derive or read partial bracketings and compute X(y, z)"),
    "counts": ("counts_command", "compute per-candidate counts against gold (every metric)"),
    "store": ("store", "store statistics and export"),
    "score": ("score", "score trees with Heidorn's metric (lower is better)"),
    "train": ("train", "train the log-linear ranker from an annotation kind (partial bracketings; full "
              "trees with --kind best_f)"),
    "select": ("select", "pick one parse per sentence with a ranker"),
    "gold": ("gold", "write the gold trees of a split (for ranker evaluate / evalb)"),
    "models": ("models", "list, export or retrain the models kept in a store"),
    "run": ("run", "run a whole experiment from a TOML config"),
    "apply": ("apply", "apply a trained model to new text or parser lists: best tree each"),
    "serve": ("serve", "web page: browse forests, compare rankers, disambiguate by discriminants"),
}


#: OSErrors that come from the machine, not from a bug: reported in one line like a user error.
_ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EDQUOT, errno.EIO, errno.EEXIST}


class _NeverRaised(Exception):
    """Stands for sqlite3.DatabaseError while no command has loaded sqlite3 (then none was raised)."""


def _DatabaseError() -> type[Exception]:
    """sqlite3.DatabaseError once a command has imported sqlite3: start-up does not import it."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3.DatabaseError if sqlite3 is not None else _NeverRaised


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its errors in ranker's form: one ``ranker: error:`` line, then one line
    naming the command's ``--help`` (argparse printed the usage and ``ranker CMD: error:`` on 2-3 lines)."""

    def error(self, message: str):
        self.exit(2, f"ranker: error: {message}\ntry '{self.prog} --help' for the usage and every option\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``ranker`` parser: every command, or, given the command line, only what it needs.

    With ``argv``, only the command it names is registered (its module imported); when it names
    none (``ranker --help``, a typo), every command is listed by name and help alone.
    """
    parser = _Parser(
        prog="ranker",
        description="Store candidate parses, rank them, and evaluate the choice against treebanks.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    named = None if argv is None else next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_) in SUBCOMMANDS.items():
        if argv is None or name == named:
            importlib.import_module(f"ranker.cli.{module}").add_parser(sub)
        elif named not in SUBCOMMANDS:
            sub.add_parser(name, help=help_)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from .signals import terminated_as_interrupt

    try:
        # SIGTERM stops a command as Ctrl-C does; gc: commands build millions of cycle-free tuples
        with terminated_as_interrupt(), gc_paused():
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
        # the system's own errors ("[Errno 21] Is a directory: 'x'") read as file: what
        why = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) and e.filename and e.strerror else e
        print(f"ranker: error: {why}", file=sys.stderr)
        return 2
    except _DatabaseError() as e:
        if type(e) is not _DatabaseError():   # OperationalError and the like: a bug, keep the traceback
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
    except KeyboardInterrupt as e:   # Ctrl-C, or SIGTERM (signals.Terminated)
        from .signals import status_of, stopped_line

        print(stopped_line(e), file=sys.stderr)
        return status_of(e)


if __name__ == "__main__":
    sys.exit(main())
