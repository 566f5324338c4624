"""WSJ documents with their BLLIP lists in a store, for the tests of training rows built from real matrices."""
import gzip

from ranker.sources.nbest import import_file
from ranker.sources.treebank import store_nltk_files


def load_documents(st, folder, bllip_lists, docs=("wsj_0175", "wsj_0176")) -> None:
    """Each of ``docs``'s treebank sentences and its test-split BLLIP lists (written to ``folder``) into ``st``."""
    text = gzip.open(bllip_lists / "nbest-test.txt.gz", "rt", encoding="utf-8").read()
    for doc in docs:
        kept = [b for b in text.split("\n\n") if b.strip() and b.split()[1].startswith(doc + ".")]
        (folder / f"{doc}.nbest").write_text("\n\n".join(kept) + "\n")
        store_nltk_files(st, "treebank", f"{doc}.mrg")
        assert import_file(st, folder / f"{doc}.nbest", "bllip").errors == ()
