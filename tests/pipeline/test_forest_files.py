"""The parse stage for n-best files: one file per split or one for all, imported once per content."""
import dataclasses
import gzip

import pytest

from ranker.errors import RankerError
from ranker.pipeline.config import ParseSection, config_from_dict
from ranker.pipeline.forest_files import forest_files, import_forest_files
from ranker.pipeline.run_counts import SourceCounts
from ranker.sources.treebank import store_nltk_files
from ranker.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def lists(tmp_path, bllip_lists):
    """The real lists of wsj_0001 (train) and wsj_0170 (test), each in a gzip file of its own."""
    out = {}
    for split, doc in (("train", "wsj_0001"), ("test", "wsj_0170")):
        text = gzip.open(bllip_lists / f"nbest-{split}.txt.gz", "rt", encoding="utf-8").read()
        kept = [b for b in text.split("\n\n") if b.strip() and b.split()[1].startswith(doc + ".")]
        out[split] = tmp_path / f"{split}.txt.gz"
        with gzip.open(out[split], "wt", encoding="utf-8") as f:
            f.write("\n\n".join(kept) + "\n")
    return out


def test_one_file_for_all_splits_keeps_the_old_source_name(lists):
    ff = forest_files(ParseSection(source="bllip", forests=str(lists["train"])), "c.toml")
    assert ff.files == (lists["train"],) and ff.source == "bllip:train.txt.gz"


def test_each_split_may_name_its_file(lists):
    doc = {"parse": {"source": "bllip", "forests": str(lists["train"]), "test_forests": str(lists["test"])}}
    cfg = config_from_dict(doc, "c.toml")
    ff = forest_files(cfg.parse, cfg.source)
    assert ff.files == (lists["train"], lists["test"])
    assert ff.source == "bllip:train.txt.gz+test.txt.gz"


def test_a_missing_file_names_the_key(lists, tmp_path):
    with pytest.raises(RankerError, match=r"c.toml: \[parse\] heldout_forests: no such file"):
        forest_files(ParseSection(source="bllip", forests=str(lists["train"]),
                                  heldout_forests=str(tmp_path / "nope.gz")), "c.toml")
    with pytest.raises(RankerError, match="needs forests"):
        forest_files(ParseSection(source="bllip", train_forests=str(lists["train"])), "c.toml")


def test_files_are_imported_once_per_content(lists, tmp_path):
    parse = ParseSection(source="bllip", train_forests=str(lists["train"]),
                         heldout_forests=str(lists["train"]), test_forests=str(lists["test"]))
    ff = forest_files(parse, "c.toml")
    with Store.open(tmp_path / "s.sqlite") as st:
        store_nltk_files(st, "treebank", ["wsj_0001.mrg", "wsj_0170.mrg"])
        counts, notes, summaries = import_forest_files(st, ff, "treebank")
        n = len(st.sentences("treebank"))
        assert counts.imported_forests == n and notes == [] and len(summaries) == 2
        assert counts.imported_candidates == sum(len(st.candidate_texts(s.id, ff.source))
                                                    for s in st.sentences("treebank"))
        again, _, read = import_forest_files(st, ff, "treebank")
        assert again == SourceCounts(imported_forests=0, imported_candidates=0) and read == ()
        assert len(import_forest_files(st, ff, "treebank", reimport=True).summaries) == 2
        # new bytes under the same name are imported again
        text = gzip.open(lists["test"], "rt").read()
        with gzip.open(lists["test"], "wt") as f:
            f.write(text.split("\n\n")[0] + "\n")
        third, _, _ = import_forest_files(st, ff, "treebank")
        assert third.imported_forests == len(st.sentences("treebank", fileids="wsj_0001.mrg")) + 1
        ff2 = dataclasses.replace(parse)   # same section, same answer: no hidden state
        assert forest_files(ff2, "c.toml") == ff
