"""The output stages: the test split's gold trees and each ranker's chosen trees, as files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...store import Store
from ..splits import SplitSelection


def write_gold(store: Store, sel: SplitSelection, path: str | Path) -> int:
    """Write the split's gold trees, one per line in split order; returns how many."""
    from ...trees.penn import write_trees

    write_trees(path, (store.gold(s.id) for s in sel.sentences))
    return len(sel.sentences)


def write_selected(path: Path, sel: SplitSelection, texts: dict[str, list[str]],
                   choice: np.ndarray) -> None:
    """One chosen tree per line in split order (an empty line for a sentence without candidates)."""
    from ...atomicfile import atomic_write

    with atomic_write(path) as f:   # a full disk leaves an old file as it was
        for s, c in zip(sel.sentences, choice.tolist()):
            f.write((texts[s.id][c] if c >= 0 else "") + "\n")
