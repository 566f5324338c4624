"""Entry point of the ``ranker`` command.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``, which
registers the subcommand and sets ``func(args) -> int`` as its handler. A user error
(:class:`ranker.errors.RankerError`, a missing file) becomes one line on stderr and exit status 2,
never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
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
]


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
            return int(args.func(args) or 0)
    except (RankerError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
        print(f"ranker: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ranker: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
