"""Issue 46 through Flask's test client on a real store: one definition of done (page, list, ``ranker
serve assign list``, ``ranker store stats``, ``ranker store export --trees``), kappa in a fixed rater
order, one session cookie per server, and the rest of the lead's list.

Every check reads the real store back and runs the real commands.
"""
import csv
import json
import re

import pytest

from ranker.cli.main import main
from ranker.store import Store

# each test starts with no decision, verdict or adjudication in the module's store
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("empty_team_tables")]


@pytest.fixture(scope="module")
def app(store_path):
    from ranker.serve.app import create_app

    return create_app(store_path)


@pytest.fixture
def assigned(store_path, test_sentence):
    """``test_sentence`` assigned to ann alone (taken back after the test)."""
    with Store.open(store_path) as st:
        st.assign([(test_sentence, "ann")], "boss", replace=[test_sentence])
    yield test_sentence
    with Store.open(store_path) as st:
        st.unassign([test_sentence])


def _page(client, sid):
    return client.get("/sentence", query_string={"id": sid}).get_data(as_text=True)


def _token(html) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def _keys(html):
    return re.findall(r'<tr data-key="([^"]+)"', html)


def _signed(app, sid, name):
    """A test client whose session set its name to ``name``, and its token."""
    client = app.test_client()
    token = _token(_page(client, sid))
    assert client.post("/who", data={"who": name, "token": token}).status_code == 302
    return client, token


def _decide(client, sid, key, accept, token):
    r = client.post("/decide", data={"id": sid, "key": key, "accept": "1" if accept else "0", "token": token})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]


def _narrow_to_one(client, sid, token) -> int:
    """Accept the first discriminant offered until none is left; the number of answers given."""
    n = 0
    while _keys(page := _page(client, sid)):
        _decide(client, sid, _keys(page)[0], True, token)
        n += 1
    return n


def _list_status(client, sid) -> str:
    html = client.get("/sentences", query_string={"corpus": "treebank", "split": "test"}).get_data(as_text=True)
    row = re.search(rf'<tr class="([a-z]+)[^"]*" data-id="{re.escape(sid)}"', html)
    assert row, html[:500]
    return row.group(1)


def _assign_list(capsys, store_path) -> dict:
    capsys.readouterr()
    assert main(["serve", "assign", "list", "--store", str(store_path)]) == 0
    out = {}
    for line in capsys.readouterr().out.splitlines():
        cols = line.split("\t")
        out[cols[0]] = {k: int(v) for k, v in (c.rsplit(" ", 1) for c in cols[1:])}
    return out


def _stats(capsys, store_path) -> dict:
    capsys.readouterr()
    assert main(["store", "stats", str(store_path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _exported(store_path, tmp_path, sid) -> dict:
    out = tmp_path / "trees.txt"
    assert main(["store", "export", str(store_path), "--trees", "--sentence", sid, "-o", str(out)]) == 0
    with open(f"{out}.tsv", newline="") as f:
        return next(csv.DictReader(f, delimiter="\t"))


def _status_everywhere(app, client, sid, capsys, store_path, tmp_path) -> dict:
    """The status of ann's work on ``sid`` as each of the five readers says it."""
    return {"page": re.search(r'id="status"[^>]*>([a-z ]+)<', _page(client, sid)).group(1),
            "list": _list_status(client, sid),
            "assign list": "done" if _assign_list(capsys, store_path)["ann"]["done"] else "not done",
            "stats": "done" if _stats(capsys, store_path)["assignments"]["ann"]["done"] else "not done",
            "export": _exported(store_path, tmp_path, sid)["status"]}


# ---------------------------------------------------------------------------------- defect 1: one "done"
def test_an_undo_after_confirming_withdraws_the_confirmation_and_every_reader_says_not_done(
        app, store_path, assigned, capsys, tmp_path):
    """Regression (issue 46, defect 1): narrowed to one bracketing, confirmed, undone: the page said
    "you confirmed", the list and ``assign list`` said done, the export said started."""
    sid = assigned
    ann, token = _signed(app, sid, "ann")
    assert _narrow_to_one(ann, sid, token) >= 1
    assert ann.post("/confirm", data={"id": sid, "token": token}).status_code == 302
    assert 'id="verdict-confirmed"' in _page(ann, sid)
    assert _status_everywhere(app, ann, sid, capsys, store_path, tmp_path) == {
        "page": "done", "list": "done", "assign list": "done", "stats": "done", "export": "finished"}

    assert ann.post("/undo", data={"id": sid, "token": token}).status_code == 302
    with Store.open(store_path, readonly=True) as st:
        assert not any(v.confirmed for v in st.verdicts(sid))   # withdrawn with the answer
    page = _page(ann, sid)
    assert 'id="verdict-confirmed"' not in page and _keys(page)
    assert _status_everywhere(app, ann, sid, capsys, store_path, tmp_path) == {
        "page": "started", "list": "started", "assign list": "not done", "stats": "not done",
        "export": "started"}


def test_the_confirmation_withdrawn_by_an_undo_keeps_the_annotators_comment(app, store_path, assigned):
    sid = assigned
    ann, token = _signed(app, sid, "ann")
    _narrow_to_one(ann, sid, token)
    ann.post("/confirm", data={"id": sid, "token": token})
    ann.post("/verdict", data={"id": sid, "comment": "checked twice", "token": token})
    with Store.open(store_path, readonly=True) as st:
        assert [(v.confirmed, v.comment) for v in st.verdicts(sid)] == [(True, "checked twice")]
        answers = st.decisions(sid)
    ann.post("/undo", data={"id": sid, "token": token})
    with Store.open(store_path, readonly=True) as st:
        assert [(v.confirmed, v.comment) for v in st.verdicts(sid)] == [(False, "checked twice")]
        assert st.decisions(sid) == answers[:-1]


def test_a_confirmation_stored_stale_counts_for_nothing_anywhere(app, store_path, assigned, capsys, tmp_path):
    """A confirmed verdict beside decisions that leave several bracketings (a store written before
    the undo withdrew it) is no "done" on any reader, and the page does not say "you confirmed"."""
    sid = assigned
    ann, _ = _signed(app, sid, "ann")
    with Store.open(store_path) as st:
        st.set_verdict(sid, "ann", False, "", confirmed=True)
    page = _page(ann, sid)
    assert 'id="verdict-confirmed"' not in page and 'id="status" class="status-started">started<' in page
    assert _status_everywhere(app, ann, sid, capsys, store_path, tmp_path) == {
        "page": "started", "list": "started", "assign list": "not done", "stats": "not done",
        "export": "started"}


# ---------------------------------------------------------------------------------- defect 2: kappa
def test_the_agreement_page_and_store_stats_give_kappa_in_a_fixed_rater_order_and_say_over_what(
        app, store_path, capsys):
    """Regression (issue 46, defect 2): 7 shared answers, 5 agreeing, bob answering first on one
    sentence: the page and ``store stats`` said 0.000; by hand, rater 1 ann and rater 2 bob, -0.167."""
    from ranker.store.records import Decision

    at = "2026-11-26T00:00:00Z"
    with Store.open(store_path) as st:
        s1, s2, s3 = [s.id for s in st.sentences("treebank", "test") if len(s.tokens) >= 4][:3]
        answers = [(s1, "ann", "NP", 0, 2, True), (s1, "ann", "VP", 2, 4, True),
                   (s1, "bob", "NP", 0, 2, True), (s1, "bob", "VP", 2, 4, True),
                   (s2, "ann", "NP", 0, 2, True), (s2, "ann", "VP", 2, 4, True), (s2, "ann", "VP", 1, 4, True),
                   (s2, "bob", "NP", 0, 2, True), (s2, "bob", "VP", 2, 4, True), (s2, "bob", "VP", 1, 4, False),
                   (s3, "bob", "NP", 0, 1, True), (s3, "bob", "S", 0, 4, True),      # bob first here
                   (s3, "ann", "NP", 0, 1, False), (s3, "ann", "S", 0, 4, True)]
        for sid, who, label, start, end, accept in answers:
            st.add_decision(sid, Decision(label, start, end, accept, who, at))
    # by hand: ann accepts 6 of 7, bob 6 of 7: p_o = 5/7, p_e = 36/49 + 1/49, kappa = (35 - 37) / (49 - 37)
    by_hand = (5 / 7 - 37 / 49) / (1 - 37 / 49)
    assert f"{by_hand:.3f}" == "-0.167"
    html = app.test_client().get("/adjudicate").get_data(as_text=True)
    assert re.search(r'id="kappa">([^<]+)<', html).group(1) == f"{by_hand:.3f}"
    assert re.search(r'id="shared-answers">(\d+)<', html).group(1) == "7"
    row = re.search(r'<tr data-pair="ann\|bob">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert cells == ["ann", "bob", "3", "7", "5", "0", "1", "1", "71.4%", "-0.167"]
    assert "rater 1 is the first name on every sentence" in html and "shared discriminant" in html
    doc = _stats(capsys, store_path)["agreement"]
    assert doc["kappa"] == pytest.approx(by_hand) and doc["answers"] == 7
    assert [(p["first"], p["second"], p["answers"], p["agreed"]) for p in doc["pairs"]] == [("ann", "bob", 7, 5)]
    capsys.readouterr()
    assert main(["store", "stats", str(store_path)]) == 0
    text = capsys.readouterr().out
    assert "Cohen's kappa -0.167 over 7 shared answers" in text
    assert "ann (rater 1) and bob (rater 2): Cohen's kappa -0.167 over 7 shared answers on 3 sentences" in text


# ---------------------------------------------------------------------------------- defect 3: two servers
def test_two_servers_on_one_host_keep_their_own_sign_ins_in_one_browser(store_path, tmp_path, live_server_class):
    """Regression (issue 46, defect 3): the session cookie had one name whatever the port or store,
    and a browser keeps cookies per host name, not per port: signing in on one server signed the
    user out of the other. One browser (one cookie jar) here, two servers on 127.0.0.1."""
    import shutil

    import requests

    from serve_team import team_users
    from ranker.serve.app import create_app

    servers = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.sqlite"
        shutil.copy(store_path, path)
        servers.append(live_server_class(create_app(path, users=team_users(tmp_path / f"{name}.users"))))
    try:
        browser = requests.Session()

        def sign_in(url, name):
            page = browser.get(f"{url}/login").text
            token = re.search(r'name="token" value="([^"]+)"', page).group(1)
            r = browser.post(f"{url}/login", data={"name": name, "password": f"{name}-secret-1", "next": "/",
                                                   "token": token})
            assert r.status_code == 200 and f'id="signed-in">{name}<' in r.text, r.text[:300]

        def signed_in(url):
            got = re.search(r'id="signed-in">([^<]+)<', browser.get(f"{url}/sentences?corpus=treebank").text)
            return got.group(1) if got else None

        a, b = (s.url for s in servers)
        sign_in(a, "ann")
        sign_in(b, "bob")
        assert (signed_in(a), signed_in(b)) == ("ann", "bob")
        names = {c.name for c in browser.cookies if c.name.startswith("ranker_session_")}
        assert len(names) == 2   # one cookie per server, both sent to either port
    finally:
        for s in servers:
            s.close()


# ---------------------------------------------------------------------------------- item 9: o'neil
def test_an_account_name_with_an_apostrophe_works_everywhere_and_is_escaped_on_every_page(
        store_path, tmp_path, capsys):
    """Issue 46, item 9: ``o'neil`` was refused. Now an account, assigned on the page and by the
    command, signed in, answering and commenting; every page escapes the name (never raw in HTML)."""
    import shutil

    from serve_team import team_users
    from ranker.errors import RankerError
    from ranker.serve.app import create_app
    from ranker.serve.users import account_name, add_user

    name = "o'neil"
    path = tmp_path / "team.sqlite"
    shutil.copy(store_path, path)
    users = team_users(tmp_path / "team.users")
    add_user(users, name, "oneil-secret-1")
    assert account_name("o\u2019neil") == "o\u2019neil"   # the typographic apostrophe too
    for bad in ("ann, <b>", "o\"neil", "x;y"):
        with pytest.raises(RankerError, match="1-40 letters, digits, spaces, apostrophes or .@-"):
            account_name(bad)
    app = create_app(path, users=users)

    def signed_in(who, password):
        c = app.test_client()
        page = c.get("/login").get_data(as_text=True)
        r = c.post("/login", data={"name": who, "password": password, "token": _token(page)})
        assert r.status_code == 302, r.get_data(as_text=True)[:300]
        return c, _token(c.get("/sentences?corpus=treebank").get_data(as_text=True))

    boss, boss_token = signed_in("boss", "boss-secret-1")
    r = boss.post("/assign", data={"token": boss_token, "corpus": "treebank", "documents": "test",
                                   "annotator": [name, "ann"]})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    with Store.open(path, readonly=True) as st:
        sid = next(a.sentence_id for a in st.assignments(name))
    oneil, token = signed_in(name, "oneil-secret-1")
    page = _page(oneil, sid)
    _decide(oneil, sid, _keys(page)[0], True, token)
    assert oneil.post("/verdict", data={"id": sid, "comment": "o'neil's <b>note</b>", "token": token}).status_code == 302
    ann, ann_token = signed_in("ann", "ann-secret-1")
    _decide(ann, sid, _keys(_page(ann, sid))[0], False, ann_token)   # a conflict: both on the adjudication pages
    pages = {"own page": _page(oneil, sid), "list": oneil.get("/sentences?corpus=treebank").get_data(as_text=True),
             "boss's page": _page(boss, sid), "assign": boss.get("/assign").get_data(as_text=True),
             "adjudicate": boss.get("/adjudicate?show=all").get_data(as_text=True),
             "adjudicate sentence": boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)}
    for where, html in pages.items():
        assert "o&#39;neil" in html, where
        assert "o'neil" not in html and "<b>note" not in html, where
    assert 'id="signed-in">o&#39;neil<' in pages["own page"]
    with Store.open(path, readonly=True) as st:
        assert {d.who for d in st.decisions(sid)} == {name, "ann"}
        assert [v.who for v in st.verdicts(sid)] == [name]
    # the commands take the name as typed
    capsys.readouterr()
    assert main(["serve", "assign", "add", "--store", str(path), "--split", "test", name, "--by", "boss"]) == 0
    assert main(["serve", "assign", "list", "--store", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{name}\tassigned ")


def test_a_name_with_an_apostrophe_set_on_the_page_is_kept_in_its_cookie_and_escaped(app, store_path, test_sentence):
    client, token = _signed(app, test_sentence, "o'neil")
    assert client.get_cookie("ranker_who").value.strip('"') in ("o'neil", "o\\047neil")
    page = _page(client, test_sentence)
    assert 'name="who" value="o&#39;neil"' in page and "o'neil" not in page
    _decide(client, test_sentence, _keys(page)[0], True, token)
    restarted = app.test_client()   # a new session: the name cookie brings the name back
    restarted.set_cookie("ranker_who", client.get_cookie("ranker_who").value)
    assert 'name="who" value="o&#39;neil"' in _page(restarted, test_sentence)
    with Store.open(store_path, readonly=True) as st:
        assert [d.who for d in st.decisions(test_sentence)] == ["o'neil"]


# ---------------------------------------------------------------------------------- item 7: the list
def test_a_sentence_in_conflict_is_conflict_in_the_annotators_list_until_adjudicated(app, store_path, test_sentence,
                                                                                     capsys):
    sid = test_sentence
    with Store.open(store_path) as st:
        st.assign([(sid, "ann"), (sid, "bob")], "boss", replace=[sid])
    try:
        ann, ann_token = _signed(app, sid, "ann")
        bob, bob_token = _signed(app, sid, "bob")
        first = _keys(_page(ann, sid))[0]
        _narrow_to_one(ann, sid, ann_token)
        assert _list_status(ann, sid) == "done"
        _decide(bob, sid, first, False, bob_token)   # bob rejects what ann accepted
        assert _list_status(ann, sid) == "conflict" and _list_status(bob, sid) == "conflict"
        listing = ann.get("/sentences", query_string={"corpus": "treebank", "split": "test"}).get_data(as_text=True)
        assert "<strong>0</strong> of 1 sentences done" in listing and 'id="my-conflicts">1<' in listing
        conflicted = ann.get("/sentences", query_string={"corpus": "treebank", "status": "conflict"}).get_data(as_text=True)
        assert re.findall(r'data-id="([^"]+)"', conflicted) == [sid]
        rows = _assign_list(capsys, store_path)
        assert (rows["ann"]["done"], rows["ann"]["conflict"], rows["bob"]["conflict"]) == (0, 1, 1)
        boss = app.test_client()   # no accounts: anyone may adjudicate
        token = _token(boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True))
        assert boss.post("/adjudicate", data={"id": sid, "chosen": "ann", "token": token}).status_code == 302
        assert _list_status(ann, sid) == "done" and _list_status(bob, sid) == "started"
    finally:
        with Store.open(store_path) as st:
            st.unassign([sid])


def test_next_past_the_last_assigned_sentence_says_the_assignment_is_finished(app, assigned):
    """Issue 46, item 7: ``n`` on the assignment's last sentence opened work assigned to nobody."""
    sid = assigned
    ann, token = _signed(app, sid, "ann")
    page = _page(ann, sid)
    nxt = re.search(r'<a id="next" class="end" href="([^"]+)"', page)
    assert nxt and "mine=1" in nxt.group(1) and "end=1" in nxt.group(1), page[:2000]
    said = ann.get(nxt.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert "That was the last sentence of your assignment: <strong>0</strong> of 1 done" in said
    _narrow_to_one(ann, sid, token)
    said = ann.get(nxt.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert "Your assignment is finished: all <strong>1</strong> sentences done." in said
    # a reader without an assignment walks the corpus as before
    other = app.test_client()
    assert re.search(r'<a id="next" href="/sentence\?id=', _page(other, sid))


def test_sentences_without_candidates_are_counted_not_listed_unless_asked(app, store_path, capsys, tmp_path):
    with Store.open(store_path, readonly=True) as st:
        sents = st.sentences("treebank")
        empty = [s.id for s in sents if not st.candidate_texts(s.id)]
    assert empty and len(empty) < len(sents)
    client = app.test_client()

    def listed(**args):
        html = client.get("/sentences", query_string={"corpus": "treebank", **args}).get_data(as_text=True)
        ids = set(re.findall(r'<tr class="[^"]*" data-id="([^"]+)"', html))
        hidden = re.search(r'id="hidden">(\d+)<', html)
        return html, ids, int(hidden.group(1)) if hidden else 0

    html, ids, hidden = listed()
    assert hidden == len(empty) and not ids & set(empty) and 'id="show-empty"' in html
    assert re.search(r'(\d+) match the filters', html).group(1) == str(len(sents) - len(empty))
    _, ids, _ = listed(candidates="without", page=0)
    assert ids <= set(empty) and ids   # the first page of them
    _, _, hidden = listed(candidates="any")
    assert hidden == 0
    assert client.get("/sentences?corpus=treebank&candidates=some").status_code == 400
    out = tmp_path / "trees.txt"
    capsys.readouterr()
    assert main(["store", "export", str(store_path), "--trees", "--corpus", "treebank", "-o", str(out)]) == 0
    assert f"; {len(empty)} sentences without candidates not listed (--list-empty lists them)" in capsys.readouterr().err
    with open(f"{out}.tsv", newline="") as f:
        statuses = [r["status"] for r in csv.DictReader(f, delimiter="\t")]
    assert "no candidates" not in statuses and len(statuses) == len(sents) - len(empty)
    assert main(["store", "export", str(store_path), "--trees", "--corpus", "treebank", "--list-empty",
                 "-o", str(out)]) == 0
    with open(f"{out}.tsv", newline="") as f:
        assert sum(r["status"] == "no candidates" for r in csv.DictReader(f, delimiter="\t")) == len(empty)


# ---------------------------------------------------------------------------------- item 4: none is right
def test_an_adjudicator_rules_that_none_is_right_and_the_sentence_is_no_correct_candidate(
        app, store_path, test_sentence, capsys, tmp_path):
    """Issue 46, item 4: the adjudicator could only pick one annotator's work. Two truthful
    annotators whose tree is not among the candidates end in conflict; the pages point them to
    "no correct candidate", and the adjudicator rules "none is right" with a comment."""
    sid = test_sentence
    ann, ann_token = _signed(app, sid, "ann")
    bob, bob_token = _signed(app, sid, "bob")
    first = _keys(_page(ann, sid))[0]
    seen = []
    while _keys(page := _page(ann, sid)):
        seen.append(('id="last-choice"' in page, int(re.search(r'id="remaining-packs">(\d+)<', page).group(1))))
        _decide(ann, sid, _keys(page)[0], True, ann_token)
    assert seen and all(hint == (2 <= packs <= 3) for hint, packs in seen) and any(h for h, _ in seen), seen
    _decide(bob, sid, first, False, bob_token)
    conflict = re.search(r'id="team-conflict">(.*?)</p>', _page(ann, sid), re.S).group(1)
    assert "the correct tree is not among the candidates: say <em>no correct candidate</em>" in conflict
    boss = app.test_client()
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert 'id="none-form"' in page
    token = _token(page)
    before = _exported(store_path, tmp_path, sid)
    assert before["status"] == "conflict"
    # a ruling without a comment is refused, nothing stored
    r = boss.post("/adjudicate", data={"id": sid, "none": "1", "comment": "  ", "token": token})
    assert r.status_code == 400 and "say why no candidate is right" in r.get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        assert st.adjudications() == {}
    r = boss.post("/adjudicate", data={"id": sid, "none": "1", "comment": "a <b>PRN</b> no parse has", "token": token})
    assert r.status_code == 302
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert 'id="chosen-none">none is right<' in page and "a &lt;b&gt;PRN&lt;/b&gt; no parse has" in page
    row = _exported(store_path, tmp_path, sid)
    assert (row["status"], row["line"], row["follows"]) == ("no correct candidate", "-", "")
    assert row["adjudicator"] and "(adjudicator): a <b>PRN</b> no parse has" in row["comments"]
    assert "none is right, no correct candidate" in _page(ann, sid)
    assert _list_status(ann, sid) == "done" and _list_status(bob, sid) == "started"   # their own work again
    # training reads nothing of it
    from ranker.sources.adjudication import store_spans, store_team_work

    with Store.open(store_path, readonly=True) as st:
        assert not [d for s, d in store_team_work(st).adjudicated(store_spans(st)) if s == sid]


# ---------------------------------------------------------------------------------- item 6: blind
@pytest.fixture
def team_app(store_path, tmp_path):
    """A server with accounts (ann, bob; boss the adjudicator) on a copy of the module's store."""
    import shutil

    from serve_team import team_users
    from ranker.serve.app import create_app

    path = tmp_path / "team.sqlite"
    shutil.copy(store_path, path)
    return create_app(path, users=team_users(tmp_path / "team.users")), path


def _sign_in(app, who):
    c = app.test_client()
    page = c.get("/login").get_data(as_text=True)
    r = c.post("/login", data={"name": who, "password": f"{who}-secret-1", "token": _token(page)})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    return c, _token(c.get("/sentences?corpus=treebank").get_data(as_text=True))


def _sha(path) -> str:
    import hashlib

    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_blind_double_annotation_hides_the_other_annotator_until_both_are_done(team_app, test_sentence, capsys):
    """Issue 46, item 6: with the lead's setting on, an annotator does not see who else has the
    sentence, their answers, comments or the conflict, on any page, until both are done; the
    adjudicator sees all at once. Turned on by ``ranker serve assign blind on``, off on /assign."""
    app, path = team_app
    sid = test_sentence
    assert main(["serve", "assign", "add", "--store", str(path), "--split", "test", "--first", sid, "--last", sid,
                 "ann", "bob", "--double", "100%", "--by", "boss"]) == 0
    capsys.readouterr()
    assert main(["serve", "assign", "blind", "--store", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("blind double annotation off")
    assert main(["serve", "assign", "blind", "on", "--store", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("blind double annotation on")
    ann, ann_token = _sign_in(app, "ann")
    bob, bob_token = _sign_in(app, "bob")
    boss, boss_token = _sign_in(app, "boss")
    first = _keys(_page(ann, sid))[0]
    _decide(ann, sid, first, True, ann_token)
    _decide(bob, sid, first, False, bob_token)   # a conflict already
    bob.post("/verdict", data={"id": sid, "comment": "bobs secret remark", "token": bob_token})

    def annotator_sees(client, other):
        page = _page(client, sid)
        listing = client.get("/sentences", query_string={"corpus": "treebank", "split": "test"}).get_data(as_text=True)
        row = re.search(rf'<tr class="[^"]*" data-id="{re.escape(sid)}">(.*?)</tr>', listing, re.S).group(1)
        return {"name on page": other in page, "remark": "bobs secret remark" in page,
                "conflict": 'id="team-conflict"' in page, "others": 'id="others"' in page,
                "blind note": 'id="blind"' in page, "list status": _list_status(client, sid),
                "name in list": other in row, "agreement": client.get("/adjudicate").status_code,
                "adjudication page": client.get(f"/adjudicate/sentence?id={sid}").status_code}

    hidden = {"name on page": False, "remark": False, "conflict": False, "others": False, "blind note": True,
              "list status": "started", "name in list": False, "agreement": 403, "adjudication page": 403}
    assert annotator_sees(ann, "bob") == hidden
    assert 'id="adjudicate-link"' not in _page(ann, sid)
    # the adjudicator, with no work of their own on it, sees everything
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert 'data-who="ann"' in page and 'data-who="bob"' in page and "bobs secret remark" in page
    assert 'id="others"' in _page(boss, sid) and boss.get("/adjudicate").status_code == 200
    # ann finishes; bob has not: still blind
    _narrow_to_one(ann, sid, ann_token)
    assert annotator_sees(ann, "bob") == {**hidden, "list status": "done"}
    # bob finishes: both see each other's work and the conflict
    _narrow_to_one(bob, sid, bob_token)
    seen = {"name on page": True, "remark": True, "conflict": True, "others": True, "blind note": False,
            "list status": "conflict", "name in list": True, "agreement": 403, "adjudication page": 200}
    assert annotator_sees(ann, "bob") == seen
    assert annotator_sees(bob, "ann") == seen   # (the remark is bob's own)
    # the overall agreement page stays the adjudicator's while the setting is on
    # the lead's view (assign list, the /assign page) was never blind
    rows = _assign_list(capsys, path)
    assert rows["ann"]["conflict"] == 1 and rows["bob"]["conflict"] == 1
    # an annotator may not change the setting: refused, the store unchanged
    before = _sha(path)
    r = ann.post("/assign/blind", data={"blind": "off", "token": ann_token})
    assert r.status_code == 403 and _sha(path) == before
    r = boss.post("/assign/blind", data={"blind": "maybe", "token": boss_token})
    assert r.status_code == 400 and "parameter blind" in r.get_data(as_text=True) and _sha(path) == before
    assign = boss.get("/assign").get_data(as_text=True)
    assert 'id="blind-state">on<' in assign
    assert boss.post("/assign/blind", data={"blind": "off", "token": boss_token}).status_code == 302
    assert 'id="blind-state">off<' in boss.get("/assign").get_data(as_text=True)
    capsys.readouterr()
    assert main(["serve", "assign", "blind", "--store", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("blind double annotation off")


def test_blind_annotation_is_lifted_by_an_adjudication_and_set_again_at_once(team_app, test_sentence):
    """An adjudication that stands decides the sentence: nothing is left to sway, the annotators see it."""
    app, path = team_app
    sid = test_sentence
    with Store.open(path) as st:
        st.assign([(sid, "ann"), (sid, "bob")], "boss", replace=[sid])
    ann, ann_token = _sign_in(app, "ann")
    bob, bob_token = _sign_in(app, "bob")
    boss, boss_token = _sign_in(app, "boss")
    assert boss.post("/assign/blind", data={"blind": "on", "token": boss_token}).status_code == 302
    first = _keys(_page(ann, sid))[0]
    _decide(ann, sid, first, True, ann_token)
    _decide(bob, sid, first, False, bob_token)
    assert 'id="others"' not in _page(ann, sid) and _list_status(bob, sid) == "started"
    r = boss.post("/adjudicate", data={"id": sid, "none": "1", "comment": "neither reading", "token": boss_token})
    assert r.status_code == 302
    page = _page(ann, sid)
    assert 'id="others"' in page and "none is right, no correct candidate: neither reading" in page
    # unassigned readers who are no adjudicator: blind too until it is decided (here it is)
    assert ann.get(f"/adjudicate/sentence?id={sid}").status_code == 200
    with pytest.raises(SystemExit) as e:
        main(["serve", "assign", "blind", "maybe", "--store", str(path)])
    assert e.value.code == 2


# ---------------------------------------------------------------------------------- item 4: deciding on the adjudication page
def _own_keys(html):
    return re.findall(r'<tr data-key="([^"]+)"', html.split('id="own-discriminants"', 1)[1]) \
        if 'id="own-discriminants"' in html else []


def _conflicting(app, sid):
    """ann and bob, each finished, in conflict on ``sid``; their clients and tokens."""
    ann, ann_token = _signed(app, sid, "ann")
    bob, bob_token = _signed(app, sid, "bob")
    first = _keys(_page(ann, sid))[0]
    _narrow_to_one(ann, sid, ann_token)
    _decide(bob, sid, first, False, bob_token)
    _narrow_to_one(bob, sid, bob_token)
    return ann, bob


def test_an_adjudicator_decides_the_discriminants_on_the_adjudication_page_and_the_export_follows(
        app, store_path, test_sentence, capsys, tmp_path):
    """Issue 46, item 4: deciding discriminants on the adjudication page itself. The adjudicator's
    answers are the adjudication's (kept apart): no kappa, no shared answer and no conflict count
    changes; once they leave one bracketing and stand, training and the export follow them."""
    from ranker.sources.adjudication import store_spans, store_team_work
    from ranker.sources.discriminants import forest_spans, remaining_mask

    sid = test_sentence
    ann, bob = _conflicting(app, sid)
    before = _stats(capsys, store_path)["agreement"]
    with Store.open(store_path, readonly=True) as st:
        answers = st.decisions(sid)
    boss, boss_token = _signed(app, sid, "boss")
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert 'id="decide-here"' in page and _own_keys(page) and 'id="decided"' not in page
    # each discriminant says what each annotator answered on it
    row = re.search(r'<tr data-key="[^"]+">(.*?)</tr>', page.split('id="own-discriminants"', 1)[1], re.S).group(1)
    assert len(re.findall(r"<td class=\"(?:accept|reject|)\">(?:accepted|rejected|–)</td>", row)) == 2
    # making them stand before they leave one bracketing is refused, nothing stored
    sha = _sha(store_path)
    r = boss.post("/adjudicate", data={"id": sid, "decided": "1", "token": boss_token})
    assert r.status_code == 409 and "leave more than one bracketing" in r.get_data(as_text=True)
    assert _sha(store_path) == sha
    n = 0
    while keys := _own_keys(boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)):
        accept = n % 2 == 1   # reject the first offered, accept the next: neither annotator's work
        r = boss.post("/adjudicate/decide", data={"id": sid, "key": keys[0], "accept": "1" if accept else "0",
                                                   "token": boss_token})
        assert r.status_code == 302, r.get_data(as_text=True)[:300]
        n += 1
    # one bracketing left: no answer splits it any more, refused with 409 and nothing stored
    sha = _sha(store_path)
    r = boss.post("/adjudicate/decide", data={"id": sid, "key": answers[0].label + f":{answers[0].start}-"
                                              f"{answers[0].end}", "accept": "1", "token": boss_token})
    assert r.status_code == 409 and "answer refused" in r.get_data(as_text=True) and _sha(store_path) == sha
    with Store.open(store_path, readonly=True) as st:
        own = st.decisions(sid, adjudication=True)
        assert len(own) == n and {d.who for d in own} == {"boss"}
        assert st.decisions(sid) == answers            # the annotators' work is untouched
    assert _stats(capsys, store_path)["agreement"] == before   # kappa, answers, pairs, conflicts alike
    assert _exported(store_path, tmp_path, sid)["status"] == "conflict"   # not standing yet
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert 'id="own-tree"' in page and 'id="decided"' in page
    assert boss.post("/adjudicate", data={"id": sid, "decided": "1", "token": boss_token}).status_code == 302
    page = boss.get(f"/adjudicate/sentence?id={sid}").get_data(as_text=True)
    assert f'id="chosen-decided">the adjudicator\'s own decisions</strong> stand ({n} answers' in page
    row = _exported(store_path, tmp_path, sid)
    assert (row["status"], row["adjudicator"], row["follows"]) == ("finished", "boss", "boss")
    with Store.open(store_path, readonly=True) as st:
        spans = forest_spans(st.forest(sid).candidates)
        left = [i for i, k in enumerate(remaining_mask(spans, own)) if k]
        tree = st.candidate_texts(sid)[left[0]]
        picked = [d for s, d in store_team_work(st).adjudicated(store_spans(st)) if s == sid]
        # neither annotator's work alone leaves that tree
        for who in ("ann", "bob"):
            theirs = remaining_mask(spans, [d for d in answers if d.who == who])
            assert not any(theirs[i] for i in left), who
    assert (tmp_path / "trees.txt").read_text().splitlines()[int(row["line"]) - 1] == tree
    assert picked == own
    after = _stats(capsys, store_path)["agreement"]
    assert after == {**before, "adjudicated": before["adjudicated"] + 1}
    assert "the adjudicator decided the discriminants" in _page(ann, sid)
    assert _list_status(ann, sid) == "done" and _list_status(bob, sid) == "done"   # their own work again
    # an undo that leaves more than one bracketing withdraws the adjudication: a conflict again
    assert boss.post("/adjudicate/undo", data={"id": sid, "token": boss_token}).status_code == 302
    with Store.open(store_path, readonly=True) as st:
        assert st.adjudications() == {} and st.decisions(sid, adjudication=True) == own[:-1]
    assert _exported(store_path, tmp_path, sid)["status"] == "conflict"
    with Store.open(store_path) as st:   # the module's store: leave no adjudicator answer behind
        while st.undo_decision(sid, adjudication=True):
            pass


def test_only_an_adjudicator_decides_on_the_adjudication_page(team_app, test_sentence):
    app, path = team_app
    sid = test_sentence
    ann, ann_token = _sign_in(app, "ann")
    key = _keys(_page(ann, sid))[0]
    before = _sha(path)
    for action, data in (("/adjudicate/decide", {"key": key, "accept": "1"}), ("/adjudicate/undo", {}),
                         ("/adjudicate", {"decided": "1"})):
        r = ann.post(action, data={"id": sid, "token": ann_token, **data})
        assert r.status_code == 403, action
    assert _sha(path) == before
    boss, boss_token = _sign_in(app, "boss")
    for bad, why in (({"key": "NP:0-999", "accept": "1"}, "key"), ({"key": key, "accept": "maybe"}, "accept"),
                     ({"key": key, "accept": "1", "id": "nope"}, "id")):
        r = boss.post("/adjudicate/decide", data={"id": sid, "token": boss_token, **bad})
        assert r.status_code in (400, 404) and why in r.get_data(as_text=True), bad
    assert _sha(path) == before


# ---------------------------------------------------------------------------------- item 8: the annotators' order
def test_the_assign_page_lets_the_lead_choose_the_annotators_order(team_app):
    """Issue 46, item 8: with accounts the annotators were cut in the accounts' (name) order."""
    app, path = team_app
    with Store.open(path, readonly=True) as st:
        ids = [s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id)]
    boss, token = _sign_in(app, "boss")
    form = {"token": token, "corpus": "treebank", "documents": "test", "annotator": ["ann", "bob"]}
    assert 'name="place-ann"' in boss.get("/assign").get_data(as_text=True)
    before = _sha(path)
    r = boss.post("/assign", data={**form, "place-bob": "first"})
    assert r.status_code == 400 and "parameter place-bob: not a whole number" in r.get_data(as_text=True)
    assert 'value="first"' in r.get_data(as_text=True) and _sha(path) == before   # the form kept, nothing stored
    assert boss.post("/assign", data={**form, "place-bob": "1", "place-ann": "2"}).status_code == 302
    with Store.open(path, readonly=True) as st:
        got = {a.sentence_id: a.who for a in st.assignments()}
    assert got[ids[0]] == "bob" and got[ids[-1]] == "ann"   # bob's stretch first
    assert boss.post("/assign", data=form).status_code == 302   # no places: the accounts' order
    with Store.open(path, readonly=True) as st:
        assert {a.sentence_id: a.who for a in st.assignments()}[ids[0]] == "ann"
