"""``ranker gold``: write a selection's gold trees, one per line, in the order ``ranker select`` writes."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    from .options import add_selection, add_store

    p = subparsers.add_parser("gold", help="write the gold trees of a split (for ranker evaluate / evalb)",
                              description="Write the gold tree of every sentence of the selection, one "
                              "per line in the order of ranker select's output.")
    add_store(p)
    add_selection(p, "test")
    p.add_argument("--out", required=True, help="output .mrg file")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..atomicfile import check_not_store
    from ..pipeline import stages
    from ..store import Store
    from .options import selection

    check_not_store(args.out, args.store, "--out")
    with Store.open(args.store, readonly=True) as st:   # writing the gold trees reads the store only
        n = stages.write_gold(st, selection(st, args), args.out)
    print(f"wrote {n} gold trees to {args.out}")
    return 0
