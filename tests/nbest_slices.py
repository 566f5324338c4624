"""Slices of the real BLLIP n-best lists for tests: a few documents of a split, in the parser's own format."""
from __future__ import annotations

import gzip
from pathlib import Path


def cut_lists(lists_dir: Path, split: str, docs: tuple[str, str], out: Path) -> int:
    """Write the split's lists of documents ``docs[0]``..``docs[1]`` (inclusive) to ``out``; returns how many."""
    first, last = docs
    with gzip.open(Path(lists_dir) / f"nbest-{split}.txt.gz", "rt") as f:
        blocks = [b for b in f.read().split("\n\n") if b.strip()]
    kept = [b for b in blocks if first <= b.split("\t", 1)[1].split(".")[0].strip() <= last]
    out.write_text("\n\n".join(kept) + "\n\n")
    return len(kept)
