"""README "Rank your own parser's output": the block is a bash script of ``ranker`` commands alone.

The block itself runs in ``test_workflow_whole_split.py``, once, as printed, on the shared lists
whole, and every check of its outputs reads that run (issue 47, item 5: a second run of the same
commands on a few documents of each list checked what the whole run shows too). This module keeps
what the other imports: where the block and its lists are.
"""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# beside the corpora: ../shared/nltk_data and ../shared/nbest (README, "Set up and run")
SHARED = Path(os.environ["NLTK_DATA"]).parent if "NLTK_DATA" in os.environ else ROOT.parent / "shared"
NBEST = Path(os.environ.get("RANKER_NBEST", SHARED / "nbest" / "bllip-wsj-sample"))


def readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Rank your own parser's output", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_only_ranker_commands_in_the_block():
    lines = [ln.strip() for ln in readme_block().splitlines()]
    for ln in lines:
        if ln and not ln.startswith(("LISTS=", "S=", "for ", "done", "mkdir ")):
            assert ln.startswith("ranker "), ln
