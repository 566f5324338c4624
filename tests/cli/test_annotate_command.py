"""``ranker annotate --kind chunks`` and ``--kind file`` store what the run's annotate stage stores."""
import shutil

import pytest

from ranker.cli.main import main
from ranker.pipeline import stages
from ranker.pipeline.config import AnnotationSection
from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """A store with Link Grammar forests for the first two conll2000 documents (20 sentences)."""
    store = tmp_path_factory.mktemp("conll") / "s.sqlite"
    assert main(["parse", "--store", str(store), "--corpus", "conll2000", "--split", "train", "--limit", "2",
                 "--linkage-limit", "20", "--no-progress"]) == 0
    return store


def _copies(parsed, tmp_path):
    by_cli, by_stage = tmp_path / "cli.sqlite", tmp_path / "stage.sqlite"
    shutil.copy(parsed, by_cli)
    shutil.copy(parsed, by_stage)
    return by_cli, by_stage


def _stored(store, kind):
    """The annotations of ``kind`` and X(y, z) under the run's default rule, as plain values."""
    rule = AnnotationSection().rule
    with Store.open(store) as st:
        anns = {sid: a.brackets for sid, a in st.annotations(kind).items()}
        sets = {sid: cs.weights for sid, cs in st.consistent_sets(kind, corpus=None, rule=rule).items()}
    return anns, sets


def test_chunks_through_the_cli_is_the_stage(parsed, tmp_path, capsys):
    by_cli, by_stage = _copies(parsed, tmp_path)
    assert main(["annotate", "--store", str(by_cli), "--kind", "chunks", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    with Store.open(by_stage) as st:
        got = stages.annotate(stages.StageContext(st, None, 1), AnnotationSection(kind="chunks"), st.sentences("conll2000"))
    anns, sets = _stored(by_cli, "chunks")
    assert (anns, sets) == _stored(by_stage, "chunks")
    assert len(anns) == 8936 and len(sets) == 20          # every chunked sentence; those with forests
    assert got.kind == "chunks" and got.checked.sentences == 20
    assert f"checked {got.checked.candidates} candidates of 20 sentences" in out
    # fewest violations: some candidates are kept, not all (the set is proper somewhere)
    assert any(0 < sum(w) < len(w) for w in sets.values())


def test_file_through_the_cli_is_the_stage(parsed, tmp_path, capsys):
    by_cli, by_stage = _copies(parsed, tmp_path)
    brackets = tmp_path / "b.tsv"
    brackets.write_text("# two sentences, one unlabelled bracket\n"
                        "conll2000/train.txt/0\tNP\t0\t2\n"
                        "conll2000/train.txt/0\t*\t2\t5\n"
                        "conll2000/train.txt/1\tNP\t0\t1\n")
    assert main(["annotate", "--store", str(by_cli), "--kind", "file", "--file", str(brackets),
                 "--name", "mine", "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("mine: 2 sentences annotated; checked ")
    with Store.open(by_stage) as st:
        got = stages.annotate(stages.StageContext(st, None, 1), AnnotationSection(kind="mine"), [], brackets=brackets)
    assert got.annotated == 2
    anns, sets = _stored(by_cli, "mine")
    assert (anns, sets) == _stored(by_stage, "mine")
    assert sorted(anns) == ["conll2000/train.txt/0", "conll2000/train.txt/1"]
    assert anns["conll2000/train.txt/0"][1].label is None
    assert set(sets) == set(anns)


def test_file_kind_without_a_file_is_a_one_line_error(parsed, tmp_path, capsys):
    by_cli, _ = _copies(parsed, tmp_path)
    assert main(["annotate", "--store", str(by_cli), "--kind", "file"]) == 2
    assert capsys.readouterr().err == "ranker: error: --kind file needs --file BRACKETS.tsv\n"


def test_a_kind_with_no_source_of_brackets_is_an_error(parsed, tmp_path):
    from ranker.errors import RankerError

    with Store.open(parsed) as st, pytest.raises(RankerError, match="'mine' is neither derived from gold trees"):
        stages.annotate(stages.StageContext(st, None, 1, where="here"), AnnotationSection(kind="mine"), [])
