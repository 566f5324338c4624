"""README "Rank your own parser's output", run as a bash script of ``ranker`` commands on real n-best lists.

The BLLIP 50-best lists of the WSJ sample are cut to a few documents per split (the split names
become document ranges) and written, gzipped under the shared lists' own names, to a folder the
block is given as ``LISTS``; the block runs in another temporary folder, as from any folder. Every
command of the README block runs, and each output is checked against what the pipeline's own
stages say.
"""
import gzip
import os
import re
import subprocess
from pathlib import Path

import pytest
from nbest_slices import cut_lists

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# beside the corpora: ../shared/nltk_data and ../shared/nbest (README, "Set up and run")
SHARED = Path(os.environ["NLTK_DATA"]).parent if "NLTK_DATA" in os.environ else ROOT.parent / "shared"
NBEST = Path(os.environ.get("RANKER_NBEST", SHARED / "nbest" / "bllip-wsj-sample"))
DOCS = {"train": ("wsj_0001", "wsj_0003"), "heldout": ("wsj_0140", "wsj_0141"),
        "test": ("wsj_0170", "wsj_0171")}


def readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Rank your own parser's output", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_only_ranker_commands_in_the_block():
    lines = [ln.strip() for ln in readme_block().splitlines()]
    for ln in lines:
        if ln and not ln.startswith(("LISTS=", "S=", "for ", "done", "mkdir ")):
            assert ln.startswith("ranker "), ln


@pytest.fixture(scope="module")
def workflow(tmp_path_factory):
    work = tmp_path_factory.mktemp("workflow")
    lists = tmp_path_factory.mktemp("lists")   # named as the shared lists are: nbest-SPLIT.txt.gz
    sizes = {}
    for split in DOCS:
        cut = lists / f"{split}.nbest"
        sizes[split] = cut_lists(NBEST, split, DOCS[split], cut)
        (lists / f"nbest-{split}.txt.gz").write_bytes(gzip.compress(cut.read_bytes()))
        cut.unlink()
    env = {**os.environ, "LISTS": str(lists), "TRAIN": "wsj_0001-0003", "HELDOUT": "wsj_0140-0141",
           "TEST": "wsj_0170-0171", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # the README's test command gives NLTK_DATA relative to the project; the block runs elsewhere
    if env.get("NLTK_DATA"):
        env["NLTK_DATA"] = os.pathsep.join(os.path.abspath(p) for p in env["NLTK_DATA"].split(os.pathsep))
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", readme_block()], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "have no candidate" not in proc.stderr   # select's warning: the lists cover these ranges
    return work, sizes, proc.stdout


def test_every_ranker_wrote_one_line_per_test_sentence(workflow):
    work, sizes, _ = workflow
    gold = (work / "gold.mrg").read_text().splitlines()
    assert len(gold) == sizes["test"] == 17
    for r in ("loglinear", "heidorn", "native", "random", "oracle", "exported"):
        lines = (work / "selected" / f"{r}.mrg").read_text().splitlines()
        assert len(lines) == len(gold) and all(lines), r


def test_scores_are_ordered_as_bounds_say_and_match_the_stages(workflow):
    work, _, out = workflow
    f1 = [float(x) for x in re.findall(r"^F1:?\s+([\d.]+)", out, re.M)] or \
        [float(x) for x in re.findall(r"f1\s+([\d.]+)", out)]
    assert len(f1) == 5, out
    loglinear, heidorn, native, random, oracle = f1
    assert oracle >= max(loglinear, heidorn, native, random)
    assert oracle > 90 and native > 80   # BLLIP's own first parse is good; its 50-best better
    # the exported model (chosen on held-out, carrying its feature config) selects exactly as the trained one
    assert (work / "selected" / "exported.mrg").read_text() == (work / "selected" / "loglinear.mrg").read_text()
    assert "chosen on heldout evalb_unlabeled" in out   # the record says on what
