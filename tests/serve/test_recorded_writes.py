"""The page's writes of what it derives are recorded runs, as every command's are (issue 47, item 1).

``ranker serve`` wrote the choices cache, the model ``--model`` names and the tables its features
fit outside any ``runs`` row, so ``ranker store stats`` could not say what had written them. They
are now written in recorded runs (``serve``, ``serve choices``, ``serve retrain``), the page's
stores refuse an artifact or a model written outside one (:mod:`ranker.serve.writes`), and the
team's own work (a decision) stays no run, for the reasons that module gives. A real store and
the page through Flask's test client; every check reads the store back.
"""
import hashlib
import io
import re
import tokenize
from pathlib import Path

import pytest

from ranker.store import Store
from ranker.store.errors import StoreError

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _runs(path):
    with Store.open(path, readonly=True) as st:
        return st.runs()


def _sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_a_start_with_a_stored_model_records_it_in_a_run(store_path):
    from ranker.serve.app import create_app
    from ranker.serve.model import SERVED_KIND, remembered_served, stored_model_keys

    with Store.open(store_path, readonly=True) as st:
        key = stored_model_keys(st)[-1]   # not the default: the start records it as the served model
    before = _runs(store_path)
    app = create_app(store_path, model=key)
    served = app.extensions["ranker"]
    after = _runs(store_path)
    assert len(after) == len(before) + 1
    run = after[-1]
    assert run.command == "serve" and run.outcome == "ok"
    assert run.settings["model"] == key and run.settings["source"] == served.source
    with Store.open(store_path, readonly=True) as st:
        assert remembered_served(st, served.source)["model"] == key
        assert st.get_artifact(SERVED_KIND, served.source) is not None
    # a start that writes nothing (the default model, nothing to fit) records no run
    create_app(store_path)
    assert len(_runs(store_path)) == len(after)


def test_the_choices_cache_is_written_in_a_run_and_only_when_it_grows(store_path):
    from ranker.serve.app import create_app
    from ranker.serve.choices import CHOICES_KIND

    app = create_app(store_path)
    served = app.extensions["ranker"]
    with Store.open(store_path, readonly=True) as st:
        assert st.artifact_keys(CHOICES_KIND) == []   # no list of this module's store asked before
    before = _runs(store_path)
    query = "/sentences?corpus=treebank&split=test&disagree=1"
    assert app.test_client().get(query).status_code == 200
    after = _runs(store_path)
    grown = after[len(before):]
    assert [r.command for r in grown] == ["serve choices"]
    assert grown[0].outcome == "ok"
    assert grown[0].settings["model"] == served.model.key and grown[0].settings["sentences"] > 0
    # the same list again reads the table: nothing written, no run
    assert app.test_client().get(query).status_code == 200
    assert len(_runs(store_path)) == len(after)


def test_a_decision_is_the_teams_record_not_a_run(store_path, test_sentence):
    from ranker.serve.app import create_app

    app = create_app(store_path)
    client = app.test_client()
    html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    key = re.search(r'data-key="([^"]+)"', html).group(1)
    before = _runs(store_path)
    client.post("/who", data={"who": "rec", "token": token})
    assert client.post("/decide", data={"id": test_sentence, "key": key, "accept": "1",
                                        "token": token}).status_code == 302
    with Store.open(store_path, readonly=True) as st:
        assert [d.who for d in st.decisions(test_sentence)] == ["rec"]
    assert _runs(store_path) == before
    client.post("/undo", data={"id": test_sentence, "token": token})


def test_the_pages_store_refuses_an_artifact_or_model_written_outside_a_run(store_path):
    from ranker.serve.writes import page_store

    with page_store(store_path, False) as st:
        st.checkpoint()
    digest, before = _sha(store_path), _runs(store_path)
    with Store.open(store_path, readonly=True) as st:
        model = st.model_records()[0]
    with page_store(store_path, False) as st:
        for write in (lambda: st.put_artifact("serve-test", "k", b"x"),
                      lambda: st.delete_artifact("serve-test", "k"),
                      lambda: st.put_model(model, b"{}"),
                      lambda: st.choose_model(model.key, "a test's choice")):
            with pytest.raises(StoreError, match="outside a recorded run"):
                write()
        st.checkpoint()
    assert _sha(store_path) == digest and _runs(store_path) == before
    # the same write in a recording is kept, with its run
    with page_store(store_path, False) as st:
        with st.recording("serve", {"test": True}):
            st.put_artifact("serve-test", "k", b"x")
        assert st.get_artifact("serve-test", "k")[0] == b"x"
        with st.recording("serve", {"test": True}):
            st.delete_artifact("serve-test", "k")
    assert [r.command for r in _runs(store_path)[len(before):]] == ["serve", "serve"]


def _calls(path: Path, name: str) -> list[int]:
    text = path.read_text(encoding="utf-8")
    toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]
    return [toks[i].start[0] for i in range(len(toks) - 2)
            if toks[i].string == "Store" and toks[i + 1].string == "." and toks[i + 2].string == name]


def test_the_page_opens_its_stores_one_way():
    # a module of the page opening a store by itself would write outside the guard of .writes
    opened = [f"{p.relative_to(ROOT)}:{line}" for p in sorted((ROOT / "ranker" / "serve").rglob("*.py"))
              if p.name != "writes.py" for name in ("open", "writing") for line in _calls(p, name)]
    assert not opened, f"open the page's stores with ranker.serve.writes.page_store: {opened}"
