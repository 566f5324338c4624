"""The first BLLIP lists of the WSJ sample's test and held-out splits as forests, for the extraction tests."""
import gzip
import io

from ranker.pipeline.apply.lists import block_forest
from ranker.sources.nbest import stream_blocks


def first_lists(bllip_lists, n: int) -> list:
    """The first ``n`` lists of the test split, then of the held-out split (50 candidates each)."""
    out = []
    for split in ("test", "heldout"):
        with gzip.open(bllip_lists / f"nbest-{split}.txt.gz", "rb") as raw:
            for k, block in enumerate(stream_blocks(io.TextIOWrapper(raw, encoding="utf-8"), split, "bllip")):
                if k == n:
                    break
                out.append(block_forest(block, len(out), split))
    return out
