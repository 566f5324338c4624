"""Work assignment (issue 37): the plan, the store's table, the adjudicator's page, the annotator's
list (their assignment first, their own progress) and ``ranker serve assign``, on a real store."""
import re

import pytest

from serve_team import team_users

from ranker.errors import RankerError
from ranker.sources.assignment import plan_assignment
from ranker.store import Store

pytestmark = [pytest.mark.slow]


def _token(html) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


# ---------------------------------------------------------------------------------- the plan
def test_the_plan_gives_contiguous_stretches_and_spreads_the_double_share():
    ids = [f"s{i}" for i in range(10)]
    pairs = plan_assignment(ids, ["ann", "bob"], 0.2)
    first = [w for sid, w in pairs if pairs.index((sid, w)) == min(k for k, p in enumerate(pairs) if p[0] == sid)]
    assert first == ["ann"] * 5 + ["bob"] * 5          # one stretch each, in the order named
    doubled = sorted({sid for sid, _ in pairs if sum(p[0] == sid for p in pairs) == 2})
    assert doubled == ["s2", "s7"]                      # 20% of 10, one in each half
    assert ("s2", "bob") in pairs and ("s7", "ann") in pairs   # the next annotator, the last's to the first
    assert plan_assignment(ids, ["ann", "bob"], 0.2) == pairs   # no randomness


@pytest.mark.parametrize("ids, names, share, said", [
    ([], ["ann"], 0, "no sentence"),
    (["s"], [], 0, "at least one annotator"),
    (["s"], ["ann", "ann"], 0, "named twice"),
    (["s"], ["ann", "bob"], 1.5, "between 0 and 1"),
    (["s"], ["ann"], 0.5, "needs two annotators"),
])
def test_a_plan_that_cannot_be_made_says_why(ids, names, share, said):
    with pytest.raises(RankerError, match=said):
        plan_assignment(ids, names, share)


# ---------------------------------------------------------------------------------- the store
def test_assigning_again_replaces_the_sentences_plan_and_a_read_only_old_store_has_none(store_path, tmp_path):
    import shutil
    import sqlite3

    path = tmp_path / "a.sqlite"
    shutil.copy(store_path, path)
    with Store.open(path) as st:
        ids = [s.id for s in st.sentences("treebank", "test")][:3]
        st.assign([(ids[0], "ann"), (ids[1], "ann"), (ids[1], "bob")], "boss")
        st.assign([(ids[1], "cy")], "boss", replace=[ids[1]])
        assert [(a.sentence_id, a.who, a.by) for a in st.assignments()] == [
            (ids[0], "ann", "boss"), (ids[1], "cy", "boss")]
        assert st.unassign(who="cy") == 1
        with pytest.raises(Exception, match="no sentence"):
            st.assign([("nosuch", "ann")], "boss")
    con = sqlite3.connect(path)   # a store written before the table
    con.execute("DROP TABLE assignments")
    con.commit()
    con.close()
    with Store.open(path, readonly=True) as st:
        assert st.assignments() == []


# ---------------------------------------------------------------------------------- the page and the list
@pytest.fixture
def team(store_path, tmp_path):
    """A server with accounts (ann, bob, boss the adjudicator) on its own copy of the store."""
    import shutil

    from ranker.serve.app import create_app

    path = tmp_path / "team.sqlite"
    shutil.copy(store_path, path)
    users = team_users(tmp_path / "team.users")
    return create_app(path, users=users), path


def _signed_in(app, name):
    c = app.test_client()
    page = c.get("/login").get_data(as_text=True)
    r = c.post("/login", data={"name": name, "password": f"{name}-secret-1", "token": _token(page)})
    assert r.status_code == 302
    return c, _token(c.get("/assign" if name == "boss" else "/sentences?corpus=treebank").get_data(as_text=True))


def test_an_adjudicator_assigns_a_document_and_each_annotator_sees_theirs_first(team):
    app, path = team
    boss, token = _signed_in(app, "boss")
    r = boss.post("/assign", data={"token": token, "corpus": "treebank", "documents": "test",
                                   "annotator": ["ann", "bob"], "double": "50%"})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    with Store.open(path, readonly=True) as st:
        test_ids = [s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id)]
        got = st.assignments()
    assert {a.sentence_id for a in got} == set(test_ids)
    assert len(got) == len(test_ids) + round(0.5 * len(test_ids))
    page = boss.get(r.headers["Location"]).get_data(as_text=True)
    assert f"assigned {len(test_ids)} sentences" in page
    assert re.search(r'<tr data-who="ann"><td>ann</td><td class="num">\d+</td>', page)
    # the documents: the test split's given out whole, the rest to nobody
    docs = {doc: cls for cls, doc in re.findall(r'<tr class="(\w+)" data-document="([^"]+)"', page)}
    assert docs["wsj_0170.mrg"] == "assigned" and docs["wsj_0001.mrg"] == "unassigned"
    with Store.open(path, readonly=True) as st:
        n_all = sum(1 for s in st.sentences("treebank") if st.candidate_texts(s.id))
    assert f"{n_all - len(test_ids)} of {n_all} sentences with candidates are assigned to nobody" in page
    assert re.search(r"<title>([^<]*)</title>", page).group(1) == "assignments · ranker serve"
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    ann, _ = _signed_in(app, "ann")
    listing = ann.get("/sentences?corpus=treebank").get_data(as_text=True)
    mine = [a.sentence_id for a in got if a.who == "ann"]
    shown = re.findall(r'<tr class="[^"]*" data-id="([^"]+)"', listing)
    assert shown[:len(mine)] == sorted(mine, key=test_ids.index)   # theirs first, in corpus order
    assert f"your assignment: <strong>0</strong> of {len(mine)} sentences done" in listing
    only = ann.get("/sentences?corpus=treebank&mine=1").get_data(as_text=True)
    assert re.findall(r'<tr class="[^"]*" data-id="([^"]+)"', only) == shown[:len(mine)]
    # the sentence page says whose it is
    holders = [a.who for a in got if a.sentence_id == mine[0]]
    said = re.search(r'id="assigned">(.*?)</span>', ann.get(f"/sentence?id={mine[0]}").get_data(as_text=True)).group(1)
    assert said == "assigned to " + ", ".join("<strong>you</strong>" if w == "ann" else w for w in holders)
    other = next(s for s in (a.sentence_id for a in got) if s not in mine)
    assert "ann" not in re.search(r'id="assigned">(.*?)</span>', ann.get(f"/sentence?id={other}").get_data(as_text=True)).group(1)


def test_an_annotator_may_not_assign_and_bad_input_keeps_the_form_with_one_message(team):
    app, path = team
    ann, token = _signed_in(app, "ann")
    assert ann.get("/assign").status_code == 403
    assert ann.post("/assign", data={"token": token, "corpus": "treebank", "annotator": ["ann"]}).status_code == 403
    boss, token = _signed_in(app, "boss")
    for data, said in (({"documents": "wsj_9990"}, "selects no sentence"),
                       ({"double": "20%"}, "needs two annotators"),
                       ({"double": "lots"}, "a percentage like 20%"),
                       ({"first": "nosuch"}, "first sentence &#39;nosuch&#39; is not in")):
        r = boss.post("/assign", data={"token": token, "corpus": "treebank", "annotator": ["ann"],
                                       "documents": "test", **data})
        page = r.get_data(as_text=True)
        assert r.status_code == 400 and said in re.search(r'id="assign-error">([^<]*)<', page).group(1), page[-800:]
    with Store.open(path, readonly=True) as st:
        assert st.assignments() == []


# ---------------------------------------------------------------------------------- ranker serve assign
def test_the_command_assigns_lists_progress_clears_and_records_its_runs(store_path, tmp_path):
    import shutil

    from test_command import _one_line_error, _ranker

    path = tmp_path / "cli.sqlite"
    shutil.copy(store_path, path)
    got = _ranker("serve", "assign", "add", "--store", str(path), "--split", "test", "ann", "bob", "--double", "25%")
    assert got.returncode == 0, got.stderr
    with Store.open(path) as st:
        ids = [s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id)]
        mine = [a.sentence_id for a in st.assignments("ann")]
        st.set_verdict(mine[0], "ann", True)   # ann is done with one: "no correct candidate"
    assert got.stdout.strip() == f"{path}: assigned {len(ids)} sentences to ann, bob ({round(len(ids) / 4)} double-annotated)"
    lines = _ranker("serve", "assign", "list", "--store", str(path)).stdout.splitlines()
    assert lines[0] == f"ann\tassigned {len(mine)}\tdouble-annotated {round(len(ids) / 4)}\tdone 1\tstarted 0\tconflict 0"
    assert _ranker("serve", "assign", "clear", "--store", str(path), "--annotator", "bob").returncode == 0
    with Store.open(path, readonly=True) as st:
        assert {a.who for a in st.assignments()} == {"ann"}
        assert [r.command for r in st.runs()][-2:] == ["serve assign", "serve assign"]
    stats = _ranker("store", "stats", str(path)).stdout
    assert (f"assigned                   ann {len(mine)} (0 double-annotated, 1 done, 0 started, 0 in conflict) "
            "(ranker serve assign list)") in stats   # counted as assign list counts
    _one_line_error(_ranker("serve", "assign", "add", "--store", str(path), "--split", "test", "ann", "--double", "0.3"),
                    "double annotation needs two annotators")
    _one_line_error(_ranker("serve", "assign", "add", "--store", str(path), "--last", "treebank/nosuch", "ann"),
                    "last sentence 'treebank/nosuch' is not in")
    (tmp_path / "cli.sqlite.users").write_text("")   # an accounts file beside the store: names are checked
    from ranker.serve.users import add_user

    add_user(tmp_path / "cli.sqlite.users", "ann", "ann-secret-1")
    _one_line_error(_ranker("serve", "assign", "add", "--store", str(path), "ann", "eve"),
                    "annotator 'eve' has no account")


def test_the_keys_serve_js_binds_are_the_keys_the_page_the_help_and_the_readme_name(store_path):
    """The keys are said in three places; each names exactly the letters the script binds."""
    from pathlib import Path

    from test_command import ROOT, _ranker

    from ranker.serve.app import create_app

    script = (ROOT / "ranker/serve/static/serve.js").read_text()
    bound = set(re.findall(r'^\s+"([a-z])": function', script, re.M))
    assert bound == set("arucnpjk")
    page = create_app(store_path).test_client().get("/sentence?id=treebank/wsj_0170.mrg/0").get_data(as_text=True)
    hints = re.search(r'id="keys">(.*?)</p>', page, re.S).group(1)
    assert set(re.findall(r"<kbd>([a-z])</kbd>", hints)) == bound
    help_text = " ".join(_ranker("serve", "--help").stdout.split())
    said = re.search(r"Keys on a sentence page: (.*?)\. Exports", help_text).group(1)
    assert set(re.findall(r"\b([a-z])\b(?! sentence)", said)) == bound, said
    readme = Path(ROOT / "README.md").read_text()
    section = readme[readme.index("- **Keys**"):readme.index("- **Long sentences**")]
    assert set(re.findall(r"<kbd>([a-z])</kbd>", section)) == bound


def test_every_page_has_unique_ids(team):
    """Regression (issue 37, item 10): two elements of one page shared id="conflict"."""
    app, path = team
    boss, _ = _signed_in(app, "boss")
    with Store.open(path, readonly=True) as st:
        sid = next(s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id))
    for url in ("/sentences?corpus=treebank", f"/sentence?id={sid}", "/adjudicate", f"/adjudicate/sentence?id={sid}",
                "/assign", "/sentences?corpus=treebank&mine=1"):
        page = boss.get(url).get_data(as_text=True)
        ids = re.findall(r'\sid="([^"]+)"', page)
        assert ids and len(ids) == len(set(ids)), (url, sorted({i for i in ids if ids.count(i) > 1}))
    page = app.test_client().get("/login").get_data(as_text=True)
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_without_accounts_names_are_typed_and_checked(store_path, tmp_path):
    import shutil

    from ranker.serve.app import create_app

    path = tmp_path / "open.sqlite"
    shutil.copy(store_path, path)
    client = create_app(path).test_client()
    token = _token(client.get("/assign").get_data(as_text=True))
    for names, said in (("anon-12ab34cd", "are the anonymous sessions"), ("ann, <b>", "1-40 letters"),
                        ("ann, ann", "named twice"), (" , ", "at least one annotator")):
        r = client.post("/assign", data={"token": token, "corpus": "treebank", "documents": "test", "annotators": names})
        assert r.status_code == 400 and said in r.get_data(as_text=True), names
    r = client.post("/assign", data={"token": token, "corpus": "treebank", "documents": "test",
                                     "annotators": "Ann Lee, bob", "double": "0.5"})
    assert r.status_code == 302
    with Store.open(path, readonly=True) as st:
        assert {a.who for a in st.assignments()} == {"Ann Lee", "bob"} and {a.by for a in st.assignments()} != {""}
