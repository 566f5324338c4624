"""``ranker apply --lists`` without a store: chunks of lists ranked in memory, or partitions applied by an executor.

Read one file after another by this process (standard input, one partition, ``--workers 1``), or
cut into partitions on list boundaries and applied as tasks of the executor (``--executor``), each
writing its part, the parts joined in input order (:func:`stream_lists`); ``--parts DIR`` keeps the
finished parts for a rerun. Apart from :mod:`.apply_in_store` because nothing is stored: the
lists are ranked by :mod:`ranker.pipeline.apply.lists`, which holds the model in memory.
"""
from __future__ import annotations

import sys

from .apply_output import finish, output_stream


def stream_lists(args, model) -> int:
    """``--lists`` without a store: chunks of lists read, ranked in memory and written in input order.

    One process reads the files in turn (standard input, one partition, or ``--workers 1``);
    otherwise the partitions go to the executor's workers (:func:`_partitioned`).
    """
    from pathlib import Path

    from ..errors import RankerError
    from ..pipeline.apply.lists import ListRanker, apply_stream
    from ..pipeline.stages import resolve_workers
    from ..sources.partitions import Partition, plan, read_bytes

    saved, fs = model
    families = fs.build()
    if any(f.needs_fit for f in families):
        raise RankerError(f"{args.model}: the model's features fit tables on a training store "
                          f"({', '.join(f.name for f in families if f.needs_fit)}); apply it with --store")
    from ..registries import EXECUTORS

    executor = EXECUTORS.get(args.executor, "--executor")   # an unknown name is refused before any work
    if not executor.available():
        try:
            executor.check()
        except RankerError as e:
            raise RankerError(f"--executor {args.executor}: {e}") from None
    workers = resolve_workers(args.workers)
    if args.parts is not None:
        if Path(args.parts).exists() and not Path(args.parts).is_dir():
            raise RankerError(f"--parts {args.parts}: not a folder")
    if args.lists != ["-"]:
        for name in args.lists:
            path = Path(name)
            if "://" not in name and not path.is_file():
                raise RankerError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        parts = plan(args.lists, max(1, int(args.partition_mb * (1 << 20))))
        if not executor.forked or args.parts is not None or (workers > 1 and len(parts) > 1):
            if executor.forked:   # the forked workers inherit the loaded model
                from ..pipeline.apply.lists import preload

                preload(ListRanker(str(args.model), saved, families))
            results = _partitioned(args, parts, workers)
            return _lists_finish(args, results)
    ranker = ListRanker(args.model, saved, families, workers)
    results = []
    with output_stream(args.out) as out:
        if args.lists == ["-"]:
            results.append(apply_stream(ranker, sys.stdin.buffer, "<stdin>", args.format, out, args.chunk,
                                        flush=True))
        for name in (n for n in args.lists if n != "-"):
            with read_bytes(Partition(name)) as raw:
                results.append(apply_stream(ranker, raw, name, args.format, out, args.chunk,
                                            flush=args.out == "-"))
    return _lists_finish(args, results)



def _partitioned(args, parts, workers: int) -> list:
    """The partitions applied as tasks of the executor, each writing its part; the parts joined in order."""
    import tempfile
    import uuid
    from contextlib import ExitStack, nullcontext

    from ..errors import RankerError
    from ..parallel import ordered_map, use_executor
    from ..pipeline.apply.lists import Applied, apply_partition, count_partition
    from ..pipeline.apply.parts import (finished_parts, hold_folder, join_parts, make_folder, part_key,
                                        remove_folder, remove_parts)
    from ..registries import EXECUTORS
    from ..sources.nbest import file_digest
    from ..sources.partitions import number_lines

    cls = EXECUTORS.get(args.executor, "--executor")
    with cls(scheduler=args.scheduler, workers=workers) as executor, use_executor(executor), \
            (tempfile.TemporaryDirectory(prefix="ranker-apply-") if args.out == "-" else nullcontext()) as tmp, \
            ExitStack() as held:
        cut = [p for p in parts if p.start or p.end is not None]   # their first lines are counted first
        counts = dict(zip(cut, ordered_map(count_partition, cut, workers, state={})))
        parts = number_lines(parts, counts)
        state = {"model": str(args.model), "format": args.format, "chunk": args.chunk}
        done: dict = {}
        if args.parts is not None:   # the user's folder, kept until the output is whole
            folder = state["parts"] = args.parts
            make_folder(folder, exist_ok=True)
            held.enter_context(hold_folder(folder))   # a second run on it is refused, not left to remove it
            model = file_digest(args.model)
            keys = state["keys"] = [part_key(model, args.format, p) for p in parts]
            done = finished_parts(folder, keys)
            if done:
                print(f"ranker: {len(done)} of {len(parts)} partitions were finished in {folder} by an "
                      f"earlier run: applying the other {len(parts) - len(done)}", file=sys.stderr)
        else:   # a name of this run's own beside the output: an older folder of that name is never touched
            folder = state["parts"] = f"{tmp}/parts" if tmp else f"{args.out}.parts-{uuid.uuid4().hex[:12]}"
            make_folder(folder)
        whole = False
        try:
            todo = [(k, p) for k, p in enumerate(parts) if k not in done]
            got = dict(zip((k for k, _ in todo), ordered_map(apply_partition, todo, workers,
                                                              "apply" if not args.no_progress else None,
                                                              state=state)))
            results = [got[k] if k in got else Applied.from_record(done[k]) for k in range(len(parts))]
            with output_stream(args.out) as out:
                join_parts(folder, len(parts), out)
            whole = not any(r.broken for r in results)
        except OSError as e:   # a part gone or unwritable: the folder is at fault, not the output
            where = f"--parts {folder}" if args.parts is not None else f"the partitions' folder {folder}"
            raise RankerError(f"{where}: {e.strerror or e}: {e.filename} (was the folder removed or changed "
                              "while the run used it?)") from None
        finally:
            if args.parts is None:
                remove_folder(folder)
            elif whole:
                remove_parts(folder)
            else:
                print(f"ranker: the finished partitions stay in {folder}: a rerun with --parts {folder} "
                      "applies only the others", file=sys.stderr)
    return results



def _lists_finish(args, results: list) -> int:
    """Messages and exit status of streamed lists (:func:`finish`): each stream's or partition's :class:`Applied`."""
    skipped = [line for r in results for line in r.skipped]
    return finish(args, skipped, len(skipped), len(skipped), sum(r.written for r in results),
                   sum(r.empty for r in results), [r.broken for r in results if r.broken])
