"""The web application through Flask's test client on a real store: pages, validation, token, read-only.

Every check reads the real store back; nothing is stubbed.
"""
import hashlib
import shutil
import re
import threading

import numpy as np
import pytest

from ranker.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app(store_path):
    from ranker.serve.app import create_app

    return create_app(store_path)


@pytest.fixture(autouse=True)
def _forget_the_served_model(store_path):
    """Each test's server starts with the store's default model: a retrain's record of the model it
    served (kept for the next start, issue 37 item 5) is removed after each test."""
    import sqlite3

    from ranker.serve.model import SERVED_KIND

    yield
    con = sqlite3.connect(store_path)
    con.execute("DELETE FROM artifacts WHERE kind=?", (SERVED_KIND,))
    con.commit()
    con.close()


def _token(client, path="/sentences?corpus=treebank&split=test") -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def _remaining(html: str) -> int:
    return int(re.search(r'id="remaining">(\d+)<', html).group(1))


def test_the_list_shows_the_split_with_sizes_and_progress(app, store_path):
    html = app.test_client().get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        test = st.sentences("treebank", "test")
        sizes = {s.id: len(st.candidate_texts(s.id)) for s in test}
    # the progress counts the sentences with a forest (one without has nothing to disambiguate)
    n_with_forest = sum(1 for n in sizes.values() if n)
    assert 0 < n_with_forest < len(test)
    assert f"<strong>0</strong> of {n_with_forest} sentences disambiguated" in html
    with_forest = [sid for sid, n in sizes.items() if n]
    assert with_forest and all(sid in html for sid in with_forest[:5])
    # a size filter keeps exactly the sentences whose forest is that large
    big = max(sizes.values())
    html = app.test_client().get(f"/sentences?corpus=treebank&split=test&min_size={big}").get_data(as_text=True)
    assert f"{sum(n >= big for n in sizes.values())} match the filters" in html


def test_the_sentence_page_ranks_by_the_model_and_shows_each_metric(app, store_path, test_sentence):
    from ranker.serve.model import load_served_model, probabilities

    html = app.test_client().get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    from ranker.sources.discriminants import forest_spans

    with Store.open(store_path, readonly=True) as st:
        n = len(st.candidate_texts(test_sentence))
        model = load_served_model(st, None)
        forest = st.forest(test_sentence)
        p = probabilities(model.scores(forest))
    spans = forest_spans(forest.candidates)
    assert _remaining(html) == n and f'id="total">{n}<' in html
    assert abs(p.sum() - 1) < 1e-9
    # the first row is the model's best candidate, with the probability of its bracketing's pack
    first = re.search(r'<tr class="remaining[^"]*" data-index="(\d+)">\s*<td class="num">1</td>', html)
    best = int(np.argmax(p))
    assert int(first.group(1)) == best
    pack = [i for i in range(n) if spans[i] == spans[best]]
    assert f'data-members="{len(pack)}">' in html.split(f'data-index="{best}"')[1].split("</tr>")[0]
    assert f"{p[pack].sum():.4f}" in html
    # one row per distinct bracketing
    assert len(re.findall(r'<tr class="remaining[^"]*" data-index=', html)) == len(set(spans)) == \
        int(re.search(r'id="packs">(\d+)<', html).group(1))
    for ranker in ("native", "loglinear", "oracle"):
        assert f'data-ranker="{ranker}"' in html
    for metric in ("evalb_labeled", "parseval", "mph", "flat_recall", "deps_typed"):
        assert f">{metric}</th>" in html
    # trees are drawn inline, a candidate's brackets coloured against gold
    assert html.count("<svg") == 4 and 'class="matched"' in html


def test_a_decision_shrinks_the_set_and_undo_restores_it(app, store_path, test_sentence):
    client = app.test_client()
    html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    before = _remaining(html)
    key = re.search(r'data-key="([^"]+)"', html).group(1)
    client.post("/who", data={"who": "ann", "token": token})
    r = client.post("/decide", data={"id": test_sentence, "key": key, "accept": "1", "token": token})
    assert r.status_code == 302
    after = _remaining(client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True))
    assert 0 < after < before
    with Store.open(store_path, readonly=True) as st:
        (d,) = st.decisions(test_sentence)
    assert (f"{d.label}:{d.start}-{d.end}", d.accept, d.who) == (key, True, "ann")
    client.post("/undo", data={"id": test_sentence, "token": token})
    assert _remaining(client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)) == before
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


@pytest.mark.parametrize("query, status, says", [
    ({}, 400, "a sentence id is required"),
    ({"id": "treebank/wsj_9999.mrg/0"}, 404, "no sentence"),
    ({"id": "../../etc/passwd"}, 404, "no sentence"),
    ({"id": "x' OR 1=1 --"}, 404, "no sentence"),
    ({"a": "99999"}, 400, "parameter a: 99999 is outside"),
    ({"b": "1e3"}, 400, "parameter b: not a whole number"),
    ({"all": "maybe"}, 400, "parameter all: must be 1 or 0"),
])
def test_bad_sentence_parameters_are_named(app, test_sentence, query, status, says):
    q = query if "id" in query or not query else {"id": test_sentence, **query}
    r = app.test_client().get("/sentence", query_string=q)
    assert r.status_code == status
    assert says in r.get_data(as_text=True)
    assert "Traceback" not in r.get_data(as_text=True)


@pytest.mark.parametrize("query, says", [
    ("corpus=nosuch", "parameter corpus"),
    ("corpus=treebank&split=dev", "parameter split"),
    ("corpus=treebank&quality=great", "parameter quality"),
    ("corpus=treebank&min_size=-1", "parameter min_size"),
    ("corpus=treebank&status=finished", "parameter status"),
])
def test_bad_list_filters_are_named(app, query, says):
    r = app.test_client().get(f"/sentences?{query}")
    assert r.status_code == 400 and says in r.get_data(as_text=True)


@pytest.mark.parametrize("key, says", [
    ("NP:3", "expected LABEL:START-END"),
    ("NP:5-3", "is empty"),
    ("NP:0-999", "outside the sentence"),
    ("N P:1-2", "expected LABEL:START-END"),
    ("", "a discriminant like NP:3-7 is required"),
])
def test_bad_decisions_are_refused_and_nothing_is_stored(app, store_path, test_sentence, key, says):
    client = app.test_client()
    token = _token(client)
    r = client.post("/decide", data={"id": test_sentence, "key": key, "accept": "1", "token": token})
    assert r.status_code == 400 and says in r.get_data(as_text=True)
    r = client.post("/decide", data={"id": test_sentence, "key": "NP:0-1", "accept": "perhaps", "token": token})
    assert r.status_code == 400 and "parameter accept" in r.get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


def test_posts_need_this_sessions_token(app, store_path, test_sentence):
    ann, other = app.test_client(), app.test_client()
    theirs = _token(other)
    _token(ann)
    for data in ({}, {"token": "forged"}, {"token": theirs}):
        r = ann.post("/decide", data={"id": test_sentence, "key": "NP:0-1", "accept": "1", **data})
        assert r.status_code == 403 and "token" in r.get_data(as_text=True)
    assert ann.post("/undo", data={"id": test_sentence}).status_code == 403
    assert ann.post("/retrain", data={}).status_code == 403
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


def test_read_only_serves_pages_refuses_posts_and_leaves_the_file_alone(store_path, test_sentence):
    from ranker.serve.app import create_app

    digest = hashlib.sha256(store_path.read_bytes()).hexdigest()
    app = create_app(store_path, read_only=True)
    client = app.test_client()
    html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert 'id="read-only"' in html and 'action="/decide"' not in html
    token = re.search(r'name="token"', html)
    assert token is None   # no form to post
    for path in ("/decide", "/undo", "/retrain", "/who"):
        r = client.post(path, data={"id": test_sentence, "key": "NP:0-1", "accept": "1"})
        assert r.status_code == 403 and "read-only" in r.get_data(as_text=True)
    assert hashlib.sha256(store_path.read_bytes()).hexdigest() == digest


def _post_rules(app) -> list[str]:
    """Every page action (POST route) of the application but signing in and out, which write no store."""
    return sorted({r.rule for r in app.url_map.iter_rules() if "POST" in r.methods
                   and not r.endpoint.startswith("accounts.")})


def test_every_page_action_needs_the_token_and_is_refused_read_only(store_path, test_sentence):
    """A page action added to any blueprint is guarded as the others are (docs/extending.md): the
    blueprint's ``before_request(views._guard_posts)`` forgotten, this fails."""
    from ranker.serve.app import create_app

    digest = hashlib.sha256(store_path.read_bytes()).hexdigest()
    data = {"id": test_sentence, "key": "NP:0-1", "accept": "1", "who": "ann", "comment": "x", "blind": "on"}
    writable, read_only = create_app(store_path), create_app(store_path, read_only=True)
    rules = _post_rules(writable)
    assert {"/decide", "/verdict", "/adjudicate", "/assign", "/retrain"} <= set(rules)
    client, ro = writable.test_client(), read_only.test_client()
    _token(client)
    for rule in rules:
        r = client.post(rule, data=data)                 # no token
        assert r.status_code == 403 and "token" in r.get_data(as_text=True), rule
        r = ro.post(rule, data={**data, "token": "t"})
        assert r.status_code == 403 and "read-only" in r.get_data(as_text=True), rule
    assert hashlib.sha256(store_path.read_bytes()).hexdigest() == digest


def _stored_left(store_path, sid, who: str | None = None) -> int:
    """How many candidates the stored decisions on ``sid`` leave (read from the store itself);
    with ``who``, that annotator's own (each annotator disambiguates for themselves)."""
    from ranker.sources.discriminants import forest_spans, remaining_mask

    with Store.open(store_path, readonly=True) as st:
        own = [d for d in st.decisions(sid) if who is None or d.who == who]
        return int(remaining_mask(forest_spans(st.forest(sid).candidates), own).sum())


def _clear(store_path, sid) -> None:
    with Store.open(store_path) as st:
        while st.undo_decision(sid) is not None:
            pass


def test_one_annotator_answering_one_sentence_from_two_stale_pages_never_leaves_no_candidate(app, store_path,
                                                                                           test_sentence):
    """Two sessions of one annotator (the same name: two browsers, two tabs) load the page, then answer
    every discriminant on it at once, one accepting, one rejecting. (Two annotators' answers are each
    their own: a conflict between them is adjudicated, tests/serve/test_team.py.)"""
    keys = re.findall(r'data-key="([^"]+)"', app.test_client().get(
        "/sentence", query_string={"id": test_sentence}).get_data(as_text=True))
    assert len(keys) >= 4
    codes = {"1": [], "0": []}

    def annotate(accept: str):
        client = app.test_client()
        token = _token(client, f"/sentence?id={test_sentence}")
        client.post("/who", data={"who": "ann", "token": token})
        for key in keys:   # all from the page as first loaded
            r = client.post("/decide", data={"id": test_sentence, "key": key, "accept": accept, "token": token})
            codes[accept].append(r.status_code)

    threads = [threading.Thread(target=annotate, args=(a,)) for a in ("1", "0")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(codes["1"] + codes["0"]) <= {302, 409} and 409 in codes["1"] + codes["0"]
    with Store.open(store_path, readonly=True) as st:
        stored = st.decisions(test_sentence)
    # every answer the server took is stored, and together they leave at least one candidate
    assert len(stored) == (codes["1"] + codes["0"]).count(302) and {d.who for d in stored} == {"ann"}
    assert _stored_left(store_path, test_sentence, "ann") >= 1
    _clear(store_path, test_sentence)


def test_an_answer_from_a_stale_page_that_would_leave_nothing_is_refused_with_the_page(app, store_path,
                                                                                     test_sentence):
    ann, bob = app.test_client(), app.test_client()   # two browsers of one annotator, "ann"
    html = bob.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)   # the second's page
    key = re.search(r'data-key="([^"]+)"', html).group(1)
    ann_token, bob_token = _token(ann, f"/sentence?id={test_sentence}"), _token(bob, f"/sentence?id={test_sentence}")
    for client, token in ((ann, ann_token), (bob, bob_token)):
        client.post("/who", data={"who": "ann", "token": token})
    assert ann.post("/decide", data={"id": test_sentence, "key": key, "accept": "1",
                                     "token": ann_token}).status_code == 302
    r = bob.post("/decide", data={"id": test_sentence, "key": key, "accept": "0", "token": bob_token})
    page = r.get_data(as_text=True)
    assert r.status_code == 409
    # the page as it is now, the conflict named: ann's answer stands, bob's is not stored
    assert 'id="refused"' in page and key in page and "answer refused" in page
    assert _remaining(page) == _stored_left(store_path, test_sentence, "ann") >= 1
    with Store.open(store_path, readonly=True) as st:
        assert [(d.accept, d.who) for d in st.decisions(test_sentence)] == [(True, "ann")]
    # the same answer again is no discriminant either: refused, nothing stored twice
    assert ann.post("/decide", data={"id": test_sentence, "key": key, "accept": "1",
                                     "token": ann_token}).status_code == 409
    with Store.open(store_path, readonly=True) as st:
        assert len(st.decisions(test_sentence)) == 1
    _clear(store_path, test_sentence)


@pytest.mark.parametrize("accept", ["1", "0"])
def test_a_hand_made_answer_on_a_span_no_candidate_holds_is_refused(app, store_path, test_sentence, accept):
    client = app.test_client()
    token = _token(client)
    total = _stored_left(store_path, test_sentence)
    r = client.post("/decide", data={"id": test_sentence, "key": "ZZZ:0-1", "accept": accept, "token": token})
    assert r.status_code == 409 and "no remaining candidate holds ZZZ:0-1" in r.get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []
    assert _stored_left(store_path, test_sentence) == total


def test_retraining_from_decisions_changes_the_model_and_shows_the_old_places(store_path, test_sentence, capsys):
    import time

    from ranker.serve.app import create_app
    from ranker.pipeline.cache import MODEL_KIND

    app = create_app(store_path)
    old_key_full = app.extensions["ranker"].model.key
    client = app.test_client()
    html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    old_key = re.search(r'id="model-key">([^<]+)<', html).group(1)
    assert client.get("/retrain/status").get_json()["state"] == "idle"
    # reject the span most of the model's probability stands behind: the ranking must move
    masses = re.findall(r'data-key="([^"]+)"[^>]*>.*?<td class="num mass">([\d.]+)</td>', html, re.S)
    key = max(masses, key=lambda km: float(km[1]))[0]
    client.post("/decide", data={"id": test_sentence, "key": key, "accept": "0", "token": token})
    assert client.post("/retrain", data={"id": test_sentence, "token": token}).status_code == 302
    for _ in range(600):
        status = client.get("/retrain/status").get_json()
        if status["state"] != "running":
            break
        time.sleep(0.05)
    assert status["state"] == "done" and status["progress"] == 1.0, status
    html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    new_key = re.search(r'id="model-key">([^<]+)<', html).group(1)
    assert new_key != old_key and ">before</th>" in html and 'class="num moved"' in html
    with Store.open(store_path, readonly=True) as st:
        metas = [st.get_artifact(MODEL_KIND, k)[1] for k in st.artifact_keys(MODEL_KIND) if k.startswith(new_key)]
        assert [m.get("kind") for m in metas] == ["user"]
        st_key = next(k for k in st.artifact_keys(MODEL_KIND) if k.startswith(new_key))
    assert st_key.startswith(new_key)
    client.post("/undo", data={"id": test_sentence, "token": token})
    # the retrain is a recorded run, as a command's is, and the new model's record names it (issue 37, item 10)
    with Store.open(store_path, readonly=True) as st:
        run = st.runs()[-1]
        assert (run.command, run.outcome, run.settings["model"]) == ("serve retrain", "ok", old_key_full)
        assert st.model_record(st_key).run == run.id
    from ranker.cli.main import main

    assert main(["store", "stats", str(store_path)]) == 0
    assert re.search(r"serve retrain\s+ok", capsys.readouterr().out)


def test_the_disagreement_filter_splits_the_list_by_the_rankers_choices(app):
    client = app.test_client()

    def ids(flag):
        html = client.get(f"/sentences?corpus=treebank&split=test&min_size=1&disagree={flag}").get_data(as_text=True)
        return re.findall(r'<a href="/sentence\?id=([^"]+)">', html)

    every = ids("")
    disagree, agree = ids(1), ids(0)
    assert every and sorted(disagree + agree) == sorted(every)
    for sid in every:
        html = client.get("/sentence", query_string={"id": sid}).get_data(as_text=True)
        picks = dict(re.findall(r'data-ranker="(\w+)"><td title="\w+: [^"]*">[^<]+</td><td><a [^>]*>#(\d+)</a>', html))
        assert (picks["native"] != picks["loglinear"]) == (sid in disagree), sid



def test_previous_and_next_walk_the_sentences_with_forests_in_corpus_order(app, store_path):
    with Store.open(store_path, readonly=True) as st:
        with_forest = [s.id for s in st.sentences("treebank") if st.candidate_texts(s.id)]
    client = app.test_client()
    html = client.get("/sentence", query_string={"id": with_forest[1]}).get_data(as_text=True)
    prev = re.search(r'id="previous" href="/sentence\?id=([^"]+)"', html).group(1)
    nxt = re.search(r'id="next" href="/sentence\?id=([^"]+)"', html).group(1)
    assert (prev, nxt) == (with_forest[0], with_forest[2])
    first = client.get("/sentence", query_string={"id": with_forest[0]}).get_data(as_text=True)
    last = client.get("/sentence", query_string={"id": with_forest[-1]}).get_data(as_text=True)
    assert 'id="previous"' not in first and 'id="next"' not in last


def test_the_next_sentence_is_read_and_scored_in_the_background(store_path):
    from ranker.serve.app import create_app

    app = create_app(store_path)
    served = app.extensions["ranker"]
    with Store.open(store_path, readonly=True) as st:
        with_forest = [s.id for s in st.sentences("treebank") if st.candidate_texts(s.id)]
    app.test_client().get("/sentence", query_string={"id": with_forest[0]})
    served._prefetcher.submit(lambda: None).result(timeout=60)   # one worker: runs after the prefetch
    assert with_forest[1] in served.forests and (id(served.model), with_forest[1]) in served.scores
    assert with_forest[2] not in served.forests


def test_answering_until_no_discriminant_is_left_counts_the_sentence_done(store_path, test_sentence):
    from ranker.serve.app import create_app

    client = create_app(store_path).test_client()
    token = _token(client)
    for _ in range(60):
        html = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
        keys = re.findall(r'data-key="([^"]+)"', html)
        if not keys:
            break
        client.post("/decide", data={"id": test_sentence, "key": keys[0], "accept": "1", "token": token})
    assert not keys and _remaining(html) >= 1 and "no discriminant left" in html
    listing = client.get("/sentences?corpus=treebank&split=test&status=done").get_data(as_text=True)
    assert "<strong>1</strong> of" in listing and re.findall(r'<a href="/sentence\?id=([^"]+)">', listing) == [test_sentence]
    with Store.open(store_path, readonly=True) as st:
        made = len(st.decisions(test_sentence))
    for _ in range(made):
        client.post("/undo", data={"id": test_sentence, "token": token})
    listing = client.get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    assert "<strong>0</strong> of" in listing


def test_two_sessions_over_http_answering_one_sentence_at_once_leave_a_candidate(live_server, store_path,
                                                                                  test_sentence):
    import http.cookiejar
    import urllib.error
    import urllib.parse
    import urllib.request

    url = f"{live_server.url}/sentence?{urllib.parse.urlencode({'id': test_sentence})}"
    codes: list[int] = []

    def annotate(accept: str, keys_from: list):
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = opener.open(url, timeout=30).read().decode()
        token = re.search(r'name="token" value="([^"]+)"', page).group(1)
        # one annotator in two browsers (two annotators' work is each their own)
        opener.open(f"{live_server.url}/who", data=urllib.parse.urlencode(
            {"who": "ann", "token": token}).encode(), timeout=30).read()
        keys_from.extend(re.findall(r'data-key="([^"]+)"', page))
        for key in list(keys_from):
            data = urllib.parse.urlencode({"id": test_sentence, "key": key, "accept": accept,
                                           "token": token}).encode()
            try:
                with opener.open(f"{live_server.url}/decide", data=data, timeout=30) as r:
                    codes.append(r.status)   # 200: redirected back to the page
            except urllib.error.HTTPError as e:
                codes.append(e.code)

    threads = [threading.Thread(target=annotate, args=(a, [])) for a in ("1", "0")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(codes) <= {200, 409} and codes.count(200) >= 1
    with Store.open(store_path, readonly=True) as st:
        assert len(st.decisions(test_sentence)) == codes.count(200)
    assert _stored_left(store_path, test_sentence, "ann") >= 1
    _clear(store_path, test_sentence)


def test_a_sentence_without_candidates_has_a_page_and_nothing_to_decide(app, store_path):
    with Store.open(store_path, readonly=True) as st:
        sid = next(s.id for s in st.sentences("treebank", "test") if not st.candidate_texts(s.id))
    r = app.test_client().get("/sentence", query_string={"id": sid})
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and _remaining(html) == 0 and "<svg" not in html
    assert "no discriminant left" in html and 'data-ranker="' not in html


def test_a_refused_retrain_or_name_change_has_no_effect(store_path, test_sentence):
    """Regression: POST /retrain with a bad id answered 404 yet retrained; POST /who with one set the name."""
    import time

    from ranker.serve.app import create_app

    app = create_app(store_path)
    served = app.extensions["ranker"]
    client = app.test_client()
    token = _token(client)
    before = served.model
    r = client.post("/retrain", data={"id": "1 OR 1=1", "token": token})
    assert r.status_code == 404 and "no sentence &#39;1 OR 1=1&#39;" in r.get_data(as_text=True)
    time.sleep(1.0)   # a retrain started by mistake would be running or done by now
    assert served.retrain is None and served.model is before
    assert client.get("/retrain/status").get_json()["state"] == "idle"
    for bad in ("x' OR 1=1 --", "a" * 301):
        r = client.post("/who", data={"who": "mallory", "id": bad, "token": token})
        assert r.status_code in (400, 404) and "parameter id" in r.get_data(as_text=True)
    page = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert "mallory" not in page and 'name="who" value=""' in page
    r = client.post("/who", data={"who": "<b>", "id": test_sentence, "token": token})
    assert r.status_code == 400 and "parameter who" in r.get_data(as_text=True)


def _retrain_and_wait(client, token, sid) -> dict:
    import time

    assert client.post("/retrain", data={"id": sid, "token": token}).status_code == 302
    for _ in range(1200):
        status = client.get("/retrain/status").get_json()
        if status["state"] != "running":
            return status
        time.sleep(0.05)
    raise AssertionError(f"retrain still running: {status}")


def test_a_retrain_is_a_function_of_the_base_model_and_all_decisions(store_path, test_sentence):
    """Regression: each click retrained the last retrained model on the same decisions again (chained)."""
    from ranker.pipeline.cache import MODEL_KIND
    from ranker.serve.app import create_app

    app = create_app(store_path)
    served = app.extensions["ranker"]
    base = served.model.key
    client = app.test_client()
    token = _token(client, f"/sentence?id={test_sentence}")
    keys = re.findall(r'data-key="([^"]+)"', client.get("/sentence", query_string={"id": test_sentence})
                      .get_data(as_text=True))
    assert client.post("/decide", data={"id": test_sentence, "key": keys[0], "accept": "0",
                                        "token": token}).status_code == 302
    status = _retrain_and_wait(client, token, test_sentence)
    first = served.model.key
    assert status["state"] == "done" and first != base, status
    with Store.open(store_path, readonly=True) as st:
        n_models = len(st.artifact_keys(MODEL_KIND))
    for _ in range(2):   # no new decision: nothing to do, and the page says so
        status = _retrain_and_wait(client, token, test_sentence)
        assert status["state"] == "done" and "nothing to do" in status["message"], status
        assert served.model.key == first
    with Store.open(store_path, readonly=True) as st:
        assert len(st.artifact_keys(MODEL_KIND)) == n_models
    # a second decision: the new model is adapted from the base with both, not from the first model
    keys = re.findall(r'data-key="([^"]+)"', client.get("/sentence", query_string={"id": test_sentence})
                      .get_data(as_text=True))
    r = client.post("/decide", data={"id": test_sentence, "key": keys[0], "accept": "0", "token": token})
    assert r.status_code == 302
    status = _retrain_and_wait(client, token, test_sentence)
    second = served.model.key
    assert status["state"] == "done" and second not in (base, first), status
    with Store.open(store_path, readonly=True) as st:
        assert st.model_record(second).parent == st.model_record(first).parent == base
    # back to the first decisions: the first model again, looked up rather than fitted anew
    client.post("/undo", data={"id": test_sentence, "token": token})
    status = _retrain_and_wait(client, token, test_sentence)
    assert served.model.key == first and "retrained" in status["message"]
    with Store.open(store_path, readonly=True) as st:
        assert len(st.artifact_keys(MODEL_KIND)) == n_models + 1
    _clear(store_path, test_sentence)


def test_a_label_with_characters_forms_and_urls_trip_on_round_trips_in_a_decision(odd_label_store, odd_label,
                                                                                  test_sentence):
    """Regression: labels with & < / : got buttons that always failed ("bad discriminant key 'NP&amp;X:7-10'")."""
    from ranker.serve.app import create_app

    client = create_app(odd_label_store).test_client()
    html = client.get("/sentence", query_string={"id": test_sentence, "all": "1"}).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    rows = re.findall(r'<tr data-key="([^"]+)"[^>]*><td><code>([^<]+)</code>', html)
    odd = [(key, shown) for key, shown in rows if key.startswith("NP%26")]
    assert len(odd) == 1, rows
    key, shown = odd[0]
    assert shown.startswith("NP&amp;&lt;X/:Y%26&#39;&#34;:")   # shown as it is, escaped
    r = client.post("/decide", data={"id": test_sentence, "key": key, "accept": "1", "token": token})
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    page = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert _remaining(page) == 1   # only the candidate that holds the odd label is left
    with Store.open(odd_label_store, readonly=True) as st:
        (d,) = st.decisions(test_sentence)
    assert d.label == odd_label and d.accept
    # and in a URL: the key survives a query string too
    from ranker.sources.discriminants import parse_key, span_key

    assert parse_key(span_key(odd_label, 1, 2)) == (odd_label, 1, 2)


def test_the_rankers_choices_are_computed_once_per_model_and_kept_in_the_store(store_path):
    """Regression: every list page filtered by disagreement read and scored every forest again (16-22 s)."""
    from ranker.serve.app import create_app
    from ranker.serve.choices import CHOICES_KIND

    query = "/sentences?corpus=treebank&split=test&disagree=1"
    first = create_app(store_path)
    listed = first.test_client().get(query).get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        keys = st.artifact_keys(CHOICES_KIND)
        n_forests = sum(1 for s in st.sentences("treebank", "test") if st.candidate_texts(s.id))
    assert len(keys) == 1 and first.extensions["ranker"].model.key in keys[0]
    # a new server on the same store: the filtered list reads no forest at all
    again = create_app(store_path)
    served = again.extensions["ranker"]
    for flag in ("1", "0", "1"):
        html = again.test_client().get(query.replace("disagree=1", f"disagree={flag}")).get_data(as_text=True)
        assert not served.forests._items and not served.scores._items
    assert again.test_client().get(query).get_data(as_text=True).split("<table")[1] == listed.split("<table")[1]
    with Store.open(store_path, readonly=True) as st:
        got = st.get_artifact(CHOICES_KIND, keys[0])
    assert got[1]["sentences"] == n_forests


def _pair(html):
    return (int(re.search(r'<figure id="tree-a"><figcaption>#(\d+)<', html).group(1)),
            int(re.search(r'<figure id="tree-b"><figcaption>#(\d+)<', html).group(1)))


def test_the_default_pair_is_never_two_identical_bracketings(app, store_path):
    """Regression: the side-by-side view showed two identical trees (candidates differing in tags only)."""
    from ranker.sources.discriminants import forest_spans

    client = app.test_client()
    with Store.open(store_path, readonly=True) as st:
        forests = {s.id: forest_spans(st.forest(s.id).candidates) for s in st.sentences("treebank", "test")
                   if st.candidate_texts(s.id)}
    assert any(len(set(sp)) < len(sp) for sp in forests.values())   # the store has packs to tell apart
    for sid, spans in forests.items():
        html = client.get("/sentence", query_string={"id": sid}).get_data(as_text=True)
        if len(set(spans)) == 1:
            assert 'id="one-bracketing"' in html and 'id="tree-b"' not in html
            continue
        a, b = _pair(html)
        assert spans[a] != spans[b], sid
        assert "bracket in both" in html.split('id="pair-legend"')[1].split("</p>")[0]   # the green's legend
        # a chosen by hand, b left to the page: b is still of another bracketing
        same = [i for i in range(len(spans)) if spans[i] == spans[a] and i != a]
        if same:
            a2, b2 = _pair(client.get("/sentence", query_string={"id": sid, "a": same[0]}).get_data(as_text=True))
            assert a2 == same[0] and spans[b2] != spans[a2]


def test_next_and_previous_walk_the_filtered_list(app, store_path):
    """Regression: "next" ignored the list's filter."""
    client = app.test_client()
    with Store.open(store_path, readonly=True) as st:
        with_forest = [s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id)]
    token = _token(client, f"/sentence?id={with_forest[2]}")
    key = re.search(r'data-key="([^"]+)"', client.get("/sentence", query_string={"id": with_forest[2]})
                    .get_data(as_text=True)).group(1)
    assert client.post("/decide", data={"id": with_forest[2], "key": key, "accept": "1",
                                        "token": token}).status_code == 302
    html = client.get("/sentences?corpus=treebank&split=test&status=untouched&min_size=1").get_data(as_text=True)
    listed = re.findall(r'<a href="/sentence\?id=([^"]+)">', html)
    assert listed == [sid for sid in with_forest if sid != with_forest[2]]
    page = client.get("/sentence", query_string={"id": with_forest[1]}).get_data(as_text=True)
    prev = re.search(r'id="previous" href="/sentence\?id=([^"]+)"', page).group(1)
    nxt = re.search(r'id="next" href="/sentence\?id=([^"]+)"', page).group(1)
    assert (prev, nxt) == (with_forest[0], with_forest[3])   # the started sentence is skipped
    assert "status=untouched" in re.search(r'id="list" href="([^"]+)"', page).group(1)
    # the sentence shown need not match any more: its neighbours in the list are still found
    page = client.get("/sentence", query_string={"id": with_forest[2]}).get_data(as_text=True)
    assert re.search(r'id="next" href="/sentence\?id=([^"]+)"', page).group(1) == with_forest[3]
    assert re.search(r'id="previous" href="/sentence\?id=([^"]+)"', page).group(1) == with_forest[1]
    # the unfiltered list again: next is the next sentence with a forest
    client.get("/sentences?corpus=treebank&split=test")
    page = client.get("/sentence", query_string={"id": with_forest[1]}).get_data(as_text=True)
    assert re.search(r'id="next" href="/sentence\?id=([^"]+)"', page).group(1) == with_forest[2]
    _clear(store_path, with_forest[2])


def test_the_source_rank_column_is_shown_only_when_it_differs_from_the_position(app, store_path, built_store,
                                                                              tmp_path, test_sentence):
    """Regression: "#" and "source rank" always matched, yet both were shown."""
    from ranker.serve.app import create_app

    html = app.test_client().get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert ">source rank</th>" not in html and ">#</th>" in html
    gaps = tmp_path / "gaps.sqlite"
    shutil.copy(built_store, gaps)
    with Store.open(gaps) as st:   # every other candidate: ranks 0, 2, 4, ... at positions 0, 1, 2, ...
        forest = st.forest(test_sentence)
        st.replace_forest(test_sentence, forest.candidates[0].source, forest.candidates[::2])
    html = create_app(gaps).test_client().get("/sentence", query_string={"id": test_sentence,
                                                                          "all": "1"}).get_data(as_text=True)
    assert ">source rank</th>" in html


def test_decisions_that_leave_no_candidate_never_count_the_sentence_done(store_path, test_sentence):
    """Regression: a sentence left at "0 of 100 candidates remain ... no discriminant left" counted as done.

    Such decisions can no longer be made through the page; a store written before may hold them.
    """
    from ranker.serve.app import create_app
    from ranker.sources.discriminants import Decision

    with Store.open(store_path) as st:   # written behind the page's back, as an older server did
        st.add_decision(test_sentence, Decision("ZZZ", 0, 1, True, "old", "2026-11-20T10:00:00Z"))
    client = create_app(store_path).test_client()
    client.post("/who", data={"who": "old", "token": _token(client)})   # the page shows one's own decisions
    page = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert _remaining(page) == 0 and "no discriminant left" in page
    listing = client.get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    assert "<strong>0</strong> of" in listing
    started = client.get("/sentences?corpus=treebank&split=test&status=started").get_data(as_text=True)
    assert re.findall(r'<a href="/sentence\?id=([^"]+)">', started) == [test_sentence]
    _clear(store_path, test_sentence)


def test_a_retrain_computes_the_new_models_choices_for_the_sentences_listed_before(store_path, test_sentence):
    """Regression: the first list page filtered by disagreement after a retrain read and scored every
    listed forest under the new model (minutes on a large split); the retrain job now does it."""
    from ranker.serve.app import create_app
    from ranker.serve.choices import CHOICES_KIND, choices_key

    app = create_app(store_path)
    served = app.extensions["ranker"]
    client = app.test_client()
    listed = client.get("/sentences?corpus=treebank&split=test&disagree=1").get_data(as_text=True)
    assert "<table" in listed
    before = served.choices.listed(served.model)
    assert test_sentence in before
    token = _token(client, f"/sentence?id={test_sentence}")
    keys = re.findall(r'data-key="([^"]+)"', client.get("/sentence", query_string={"id": test_sentence})
                      .get_data(as_text=True))
    assert client.post("/decide", data={"id": test_sentence, "key": keys[-1], "accept": "0",
                                        "token": token}).status_code == 302
    status = _retrain_and_wait(client, token, test_sentence)
    assert status["state"] == "done", status
    new = served.model
    with Store.open(store_path, readonly=True) as st:
        got = st.get_artifact(CHOICES_KIND, choices_key(served.source, new.key, served.heidorn_key))
    assert got is not None and got[1]["sentences"] == len(before)
    assert sorted(served.choices.listed(new)) == sorted(before)
    _clear(store_path, test_sentence)


def test_a_restart_keeps_the_served_model_and_every_annotator_signed_in(built_store, tmp_path, test_sentence):
    """Regression (issue 37, item 5): after a restart the server ranked with the base model again, not
    the one the team retrained, and every annotator was signed out (a new session secret at each start)."""
    import os
    import stat

    from serve_team import write_accounts

    from ranker.serve.app import create_app

    path = tmp_path / "store.sqlite"
    shutil.copy(built_store, path)
    users = write_accounts(tmp_path / "team.users", boss="adjudicator")
    app = create_app(path, users=users)
    base = app.extensions["ranker"].model.key
    secret = tmp_path / "team.users.secret"
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    assert client.post("/login", data={"name": "boss", "password": "boss-secret-1", "token": token}).status_code == 302
    page = client.get("/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    assert f"ranked by <code>{base[:12]}</code> <span class=\"origin\">(the store&#39;s default" in page
    key = re.findall(r'<tr data-key="([^"]+)"', page)[0]
    assert client.post("/decide", data={"id": test_sentence, "key": key, "accept": "0",
                                        "token": token}).status_code == 302
    assert _retrain_and_wait(client, token, test_sentence)["state"] == "done"
    retrained = app.extensions["ranker"].model.key
    assert retrained != base
    # the restart: a new application on the same files, the browser's cookie as it was
    again = create_app(path, users=users)
    assert again.extensions["ranker"].model.key == retrained
    later = again.test_client()
    from ranker.serve.app import session_cookie_name

    name = session_cookie_name(path, "localhost")   # the test client's host: the same name after the restart
    later.set_cookie(name, client.get_cookie(name).value)
    r = later.get("/sentence", query_string={"id": test_sentence})
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and 'id="signed-in">boss<' in page
    assert f"ranked by <code>{retrained[:12]}</code>" in page and "kept across restarts" in page
    # --model still names another; a secret others can read is refused
    named = create_app(path, users=users, model=base)
    assert named.extensions["ranker"].model.key == base
    os.chmod(secret, 0o644)
    with pytest.raises(Exception, match="readable by others"):
        create_app(path, users=users)

