"""Accounts: the users file, signing in, attribution to the account, roles, and the server's refusal to go
beyond loopback without them (the command in a subprocess, the pages through Flask's test client)."""
import re

import pytest

from ranker.errors import RankerError
from ranker.serve.users import add_user, read_users, remove_user
from ranker.store import Store

# each test starts with no decision, verdict or adjudication in the module's store
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("empty_team_tables")]


@pytest.fixture(scope="module")
def users(tmp_path_factory):
    path = tmp_path_factory.mktemp("accounts") / "team.users"
    add_user(path, "ann", "ann-secret-1")
    add_user(path, "boss", "boss-secret-1", role="adjudicator")
    return path


@pytest.fixture(scope="module")
def app(store_path, users):
    from ranker.serve.app import create_app

    return create_app(store_path, users=users)


def _token(html) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def _sign_in(client, name, password, next_path="/"):
    page = client.get("/login").get_data(as_text=True)
    return client.post("/login", data={"name": name, "password": password, "next": next_path,
                                       "token": _token(page)})


def test_the_users_file_keeps_salted_hashes_for_its_owner_only(users, tmp_path):
    text = users.read_text()
    assert "ann-secret-1" not in text and "boss-secret-1" not in text
    assert oct(users.stat().st_mode & 0o777) == "0o600"
    got = read_users(users)
    assert [(u.name, u.role) for u in got.values()] == [("ann", "annotator"), ("boss", "adjudicator")]
    # the same password twice gives two hashes (salted)
    other = tmp_path / "u"
    add_user(other, "ann", "ann-secret-1")
    assert read_users(other)["ann"].hash != got["ann"].hash
    remove_user(other, "ann")
    assert read_users(other) == {}


@pytest.mark.parametrize("content, says", [
    ("ann\tannotator\n", "u:1: expected 3 tab-separated columns"),
    ("# x\nann\tboss\tscrypt:1$a$b\n", "u:2: role 'boss' is not one of"),
    ("ann\tannotator\tnohash\n", "u:1: the third column is not a password hash"),
    ("ann\tannotator\ts$a$b\nann\tannotator\ts$a$b\n", "u:2: account 'ann' is listed twice"),
    ("anon-1\tannotator\ts$a$b\n", "u:1: bad account name"),
])
def test_a_bad_users_file_is_named_with_its_line(tmp_path, content, says):
    path = tmp_path / "u"
    path.write_text(content)
    with pytest.raises(RankerError, match=re.escape(says)):
        read_users(path)


def test_pages_ask_to_sign_in_and_posts_are_refused_before_it(app, store_path, test_sentence):
    client = app.test_client()
    r = client.get("/sentence", query_string={"id": test_sentence})
    assert r.status_code == 302 and "/login?next=" in r.headers["Location"]
    token = _token(client.get("/login").get_data(as_text=True))
    for path in ("/decide", "/undo", "/verdict", "/who", "/retrain", "/adjudicate"):
        r = client.post(path, data={"id": test_sentence, "key": "NP:0-1", "accept": "1", "token": token})
        assert r.status_code == 401 and "sign in first" in r.get_data(as_text=True), path
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions() == [] and st.verdicts() == []


@pytest.mark.parametrize("name, password", [("ann", "wrong-password"), ("nobody", "ann-secret-1"), ("ann", "")])
def test_a_wrong_name_or_password_signs_nobody_in(app, name, password):
    client = app.test_client()
    r = _sign_in(client, name, password)
    assert r.status_code == 401 and "wrong name or password" in r.get_data(as_text=True)
    assert client.get("/").status_code == 302


def test_a_sign_in_needs_the_pages_token(app):
    client = app.test_client()
    client.get("/login")
    r = client.post("/login", data={"name": "ann", "password": "ann-secret-1", "token": "forged"})
    assert r.status_code == 403


def test_decisions_are_the_signed_in_accounts_and_only_adjudicators_adjudicate(app, store_path, test_sentence):
    ann, boss = app.test_client(), app.test_client()
    r = _sign_in(ann, "ann", "ann-secret-1", f"/sentence?id={test_sentence}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/sentence?id={test_sentence}")
    page = ann.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert 'id="signed-in">ann<' in page and 'name="who"' not in page
    key = re.search(r'<tr data-key="([^"]+)"', page).group(1)
    token = _token(page)
    assert ann.post("/decide", data={"id": test_sentence, "key": key, "accept": "1", "token": token}).status_code == 302
    r = ann.post("/who", data={"who": "boss", "token": token})   # no taking another's name
    assert r.status_code == 403
    _sign_in(boss, "boss", "boss-secret-1")
    boss_page = boss.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    boss.post("/decide", data={"id": test_sentence, "key": key, "accept": "0", "token": _token(boss_page)})
    with Store.open(store_path, readonly=True) as st:
        assert [(d.who, d.accept) for d in st.decisions(test_sentence)] == [("ann", True), ("boss", False)]
    r = ann.post("/adjudicate", data={"id": test_sentence, "chosen": "ann", "token": token})
    assert r.status_code == 403 and "adjudicator" in r.get_data(as_text=True)
    r = boss.post("/adjudicate", data={"id": test_sentence, "chosen": "ann", "token": _token(boss_page)})
    assert r.status_code == 302
    with Store.open(store_path, readonly=True) as st:
        adj = st.adjudications()[test_sentence]
    assert (adj.chosen, adj.who) == ("ann", "boss")
    # signing out ends it
    ann.post("/logout", data={"token": token})
    assert ann.get("/").status_code == 302


def test_public_read_opens_the_pages_but_not_the_actions(store_path, users, test_sentence):
    from ranker.serve.app import create_app

    client = create_app(store_path, users=users, public_read=True).test_client()
    page = client.get("/sentence", query_string={"id": test_sentence})
    assert page.status_code == 200 and "sign in" in page.get_data(as_text=True)
    r = client.post("/decide", data={"id": test_sentence, "key": "NP:0-1", "accept": "1",
                                     "token": _token(page.get_data(as_text=True))})
    assert r.status_code == 401


def test_the_sign_in_goes_back_only_to_a_page_of_this_server(app):
    client = app.test_client()
    for evil in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        r = _sign_in(client, "ann", "ann-secret-1", evil)
        assert r.status_code == 302 and "evil" not in r.headers["Location"]
        client.post("/logout", data={"token": _token(client.get("/sentences?corpus=treebank").get_data(as_text=True))})


def test_an_account_removed_while_the_server_runs_is_signed_out(store_path, tmp_path, test_sentence):
    from ranker.serve.app import create_app

    path = tmp_path / "u"
    add_user(path, "ann", "ann-secret-1")
    add_user(path, "carl", "carl-secret-1")
    client = create_app(store_path, users=path).test_client()
    _sign_in(client, "carl", "carl-secret-1")
    assert client.get("/sentences?corpus=treebank").status_code == 200
    remove_user(path, "carl")
    assert client.get("/sentences?corpus=treebank").status_code == 302


# ---------------------------------------------------------------------------------- throttling (issue 37, item 2)
class _Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def test_failed_sign_ins_lock_the_account_for_a_growing_time_and_are_logged(store_path, users, caplog):
    """Regression (issue 37, item 2): 30 wrong passwords in a row, then the right one, signed in at
    once, and nothing but the access log's 401s recorded them."""
    import logging

    from ranker.serve.accounts import ACCOUNT_LIMIT, FIRST_LOCK

    from ranker.serve.app import create_app

    app = create_app(store_path, users=users)
    clock = _Clock()
    throttle = app.extensions["ranker-accounts"].throttle
    throttle.accounts.clock = throttle.addresses.clock = clock
    client = app.test_client()
    caplog.set_level(logging.WARNING, logger="ranker.serve")
    for k in range(ACCOUNT_LIMIT):
        r = _sign_in(client, "ann", f"wrong-{k}")
        assert r.status_code == 401 and "wrong name or password" in r.get_data(as_text=True)
    assert r.headers["Retry-After"] == str(FIRST_LOCK) and "try again in 60 seconds" in r.get_data(as_text=True)
    r = _sign_in(client, "ann", "ann-secret-1")   # the right password, while locked
    page = r.get_data(as_text=True)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == FIRST_LOCK
    assert "too many failed sign-ins for this account: try again in 60 seconds (after " in page
    assert client.get("/sentences?corpus=treebank").status_code == 302   # not signed in
    failed = [m for m in caplog.messages if m.startswith("sign-in failed: account 'ann' from 127.0.0.1")]
    refused = [m for m in caplog.messages if m.startswith("sign-in refused: account 'ann' from 127.0.0.1")]
    assert len(failed) == ACCOUNT_LIMIT and len(refused) == 1
    # another account from the same address is not locked
    other = app.test_client()
    assert _sign_in(other, "boss", "boss-secret-1").status_code == 302
    # after the lock a failure locks again, twice as long; the right password then signs in
    clock.now += FIRST_LOCK + 1
    r = _sign_in(client, "ann", "wrong-again")
    assert r.status_code == 401 and r.headers["Retry-After"] == str(2 * FIRST_LOCK)
    clock.now += FIRST_LOCK
    assert _sign_in(client, "ann", "ann-secret-1").status_code == 429
    clock.now += FIRST_LOCK + 1
    assert _sign_in(client, "ann", "ann-secret-1").status_code == 302
    client.post("/logout", data={"token": _token(client.get("/sentences?corpus=treebank").get_data(as_text=True))})
    # a success forgets the account's failures: one wrong password is one again
    r = _sign_in(client, "ann", "wrong")
    assert r.status_code == 401 and "Retry-After" not in r.headers


def test_failed_sign_ins_from_one_address_lock_that_address_for_every_name(store_path, users):
    from ranker.serve.accounts import ADDRESS_LIMIT

    from ranker.serve.app import create_app

    app = create_app(store_path, users=users)
    clock = _Clock()
    throttle = app.extensions["ranker-accounts"].throttle
    throttle.accounts.clock = throttle.addresses.clock = clock
    spray = app.test_client()
    spray.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    for k in range(ADDRESS_LIMIT):   # a name each time: no account reaches its own limit
        assert _sign_in(spray, f"user{k}", "guess").status_code == 401
    r = _sign_in(spray, "boss", "boss-secret-1")
    assert r.status_code == 429 and "too many failed sign-ins from your address" in r.get_data(as_text=True)
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.0.0.10"
    assert _sign_in(elsewhere, "boss", "boss-secret-1").status_code == 302
    clock.now += 16 * 60   # the lock over and a quiet window: the address may try again
    assert _sign_in(spray, "boss", "boss-secret-1").status_code == 302


# ---------------------------------------------------------------------------------- retraining (issue 37, item 8)
def test_only_adjudicators_retrain_and_the_new_model_reaches_others_at_their_next_sentence(store_path, users,
                                                                                          test_sentence):
    """Regression (issue 37, item 8): any annotator could retrain, and the new model re-ranked the
    candidates and reordered the discriminants of every other annotator's sentence under their cursor."""
    import sqlite3
    import time

    from ranker.serve.app import create_app
    from ranker.serve.model import SERVED_KIND

    app = create_app(store_path, users=users)
    served = app.extensions["ranker"]
    base = served.model.key
    ann, boss = app.test_client(), app.test_client()
    _sign_in(ann, "ann", "ann-secret-1")
    _sign_in(boss, "boss", "boss-secret-1")
    with Store.open(store_path, readonly=True) as st:
        ids = [s.id for s in st.sentences("treebank", "test") if len(st.candidate_texts(s.id)) >= 10]
    other, third = [sid for sid in ids if sid != test_sentence][:2]
    page = ann.get("/sentence", query_string={"id": other}).get_data(as_text=True)
    assert 'id="retrain-role"' in page and '<button class="retrain"' not in page
    assert f'id="model-key">{base[:12]}<' in page
    r = ann.post("/retrain", data={"id": other, "token": _token(page)})
    assert r.status_code == 403 and "adjudicator" in r.get_data(as_text=True)
    assert served.retrain is None and served.model.key == base
    # the adjudicator retrains (a decision the model did not expect first)
    page = boss.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert '<button class="retrain"' in page
    token = _token(page)
    masses = re.findall(r'data-key="([^"]+)"[^>]*>.*?<td class="num mass">([\d.]+)</td>', page, re.S)
    key = max(masses, key=lambda km: float(km[1]))[0]
    boss.post("/decide", data={"id": test_sentence, "key": key, "accept": "0", "token": token})
    assert boss.post("/retrain", data={"id": test_sentence, "token": token}).status_code == 302
    for _ in range(1200):
        if served.retrain.state != "running":
            break
        time.sleep(0.05)
    assert served.retrain.state == "done", served.retrain.status()
    new = served.model.key
    assert new != base
    # ann's sentence keeps its ranking until she moves on; the header says what ranks now
    page = ann.get("/sentence", query_string={"id": other}).get_data(as_text=True)
    assert f'id="model-key">{base[:12]}<' in page and 'id="pinned"' in page
    assert f"ranked by <code>{new[:12]}</code>" in page
    page = ann.get("/sentence", query_string={"id": third}).get_data(as_text=True)
    assert f'id="model-key">{new[:12]}<' in page and 'id="pinned"' not in page
    page = ann.get("/sentence", query_string={"id": other}).get_data(as_text=True)
    assert f'id="model-key">{new[:12]}<' in page
    # the adjudicator who retrained sees the new model at once
    page = boss.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert f'id="model-key">{new[:12]}<' in page and 'id="pinned"' not in page
    con = sqlite3.connect(store_path)   # the next server of this module starts with the default model
    con.execute("DELETE FROM artifacts WHERE kind=?", (SERVED_KIND,))
    con.commit()
    con.close()
