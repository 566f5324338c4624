"""A treebanking job in real browsers (headless chromium, Selenium) against the real server (issue 37):
the keys of the sentence page, and a two-annotator job from the adjudicator's assignment through both
annotators' answers (given from the keyboard), a disagreement and its adjudication, to the treebank
``ranker store export --trees`` writes."""
import shutil

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from serve_browser import PageWait, sign_in_attempt
from serve_team import team_users

from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture
def job(built_store, tmp_path, live_server_class):
    """A server with accounts (ann, bob, boss the adjudicator) on its own copy of the store: ``(url, store)``."""
    from ranker.serve.app import create_app

    path = tmp_path / "job.sqlite"
    shutil.copy(built_store, path)
    users = team_users(tmp_path / "job.users")
    srv = live_server_class(create_app(path, users=users))
    yield srv.url, path
    srv.close()


def _decisions(driver) -> int:
    return int(driver.find_element(By.ID, "n-decisions").text)


def _press(driver, key, expect):
    """Press ``key`` on the page (no field focused) once it is whole, and wait for ``expect(driver)``."""
    PageWait(driver, 10).until(
        lambda d: d.execute_script("return document.readyState") == "complete" and d.find_elements(By.ID, "keys"))
    ActionChains(driver).send_keys(key).perform()
    PageWait(driver, 10).until(expect)


def _selected_key(driver) -> str:
    return driver.find_element(By.CSS_SELECTOR, "#discriminants tr.selected").get_attribute("data-key")


def _answer_by_keys(driver, first: str = "a") -> None:
    """Answer the outlined (first) discriminant with ``first``, then accept until one bracketing is
    left; a sentence of one bracketing is confirmed (``c``)."""
    key = first
    for _ in range(40):
        if int(driver.find_element(By.ID, "remaining-packs").text) == 1:
            if _decisions(driver) == 0:
                _press(driver, "c", lambda d: d.find_elements(By.ID, "verdict-confirmed"))
            return
        n = _decisions(driver)
        _press(driver, key, lambda d: _decisions(d) == n + 1)
        key = "a"
    raise AssertionError("still more than one bracketing after 40 answers")


def _two_sentences(path) -> list[str]:
    """The first test-split sentence with three bracketings or more, and the sentence with candidates after it."""
    from ranker.sources.discriminants import forest_spans, packs

    with Store.open(path, readonly=True) as st:
        ids = [s.id for s in st.sentences("treebank", "test") if st.candidate_texts(s.id)]
        k = next(k for k, sid in enumerate(ids) if len(packs(forest_spans(st.forest(sid).candidates))) > 2)
    return ids[k:k + 2]


def test_the_sentence_page_is_worked_from_the_keyboard(browsers, job):
    base, path = job
    ann = browsers("ann")
    sign_in_attempt(ann, base, "ann", "ann-secret-1")
    first, second = _two_sentences(path)
    ann.get(f"{base}/sentences?corpus=treebank&split=test")
    ann.get(f"{base}/sentence?id={first}")   # "next" walks the list last shown
    keys = ann.find_element(By.ID, "keys").text
    assert "a accept" in keys and "r reject" in keys and "u undo" in keys and "n next" in keys
    rows = [r.get_attribute("data-key") for r in ann.find_elements(By.CSS_SELECTOR, "#discriminants tr[data-key]")]
    assert _selected_key(ann) == rows[0]
    _press(ann, "j", lambda d: _selected_key(d) == rows[1])
    _press(ann, "a", lambda d: _decisions(d) == 1)   # the outlined one, the second
    with Store.open(path, readonly=True) as st:
        (d,) = st.decisions(first)
    assert (f"{d.label}:{d.start}-{d.end}", d.accept, d.who) == (rows[1], True, "ann")
    _press(ann, "u", lambda d: _decisions(d) == 0)
    _press(ann, "r", lambda d: _decisions(d) == 1)
    with Store.open(path, readonly=True) as st:
        (d,) = st.decisions(first)
    assert (f"{d.label}:{d.start}-{d.end}", d.accept) == (rows[0], False)
    # typing in the comment field is typing, not a command
    ann.find_element(By.ID, "comment").send_keys("a rare reading")
    assert _decisions(ann) == 1 and ann.find_element(By.ID, "comment").get_attribute("value") == "a rare reading"
    ann.find_element(By.TAG_NAME, "h1").click()   # away from the field
    _press(ann, "n", lambda d: d.find_element(By.CSS_SELECTOR, "h1.sentence").get_attribute("data-id") == second)


def _assign_both(form, first, last) -> None:
    """Fill the lead's assignment form: the test split's sentences first..last to ann and bob, all double."""
    form.find_element(By.ID, "documents").send_keys("test")
    form.find_element(By.ID, "first").send_keys(first)
    form.find_element(By.ID, "last").send_keys(last)
    for name in ("ann", "bob"):
        form.find_element(By.CSS_SELECTOR, f'input[name="annotator"][value="{name}"]').click()
    form.find_element(By.ID, "double").send_keys("100%")
    form.find_element(By.CSS_SELECTOR, "button.assign").click()


def test_a_two_annotator_job_from_assignment_to_the_exported_treebank(browsers, job, tmp_path):
    from ranker.cli.main import main
    from ranker.sources.adjudication import store_team_work
    from ranker.sources.discriminants import forest_spans, remaining_mask

    base, path = job
    first, second = _two_sentences(path)
    # the adjudicator gives both sentences to ann and bob, every one double-annotated
    boss = browsers("boss")
    sign_in_attempt(boss, base, "boss", "boss-secret-1")
    boss.find_element(By.ID, "assign-link").click()
    form = PageWait(boss, 10).until(EC.presence_of_element_located((By.ID, "assign-form")))
    _assign_both(form, first, second)
    done = PageWait(boss, 10).until(
        EC.presence_of_element_located((By.ID, "assign-done")))
    span = [first, second]
    assert done.text.startswith(f"assigned {len(span)} sentences ({2 * len(span)} assignments")
    # each annotator: their assignment first, answered from the keyboard; bob rejects what ann accepts first
    for name, opening in (("ann", "a"), ("bob", "r")):
        d = browsers(name)
        sign_in_attempt(d, base, name, f"{name}-secret-1")
        d.get(f"{base}/sentences?corpus=treebank&split=test")
        listed = [r.get_attribute("data-id") for r in d.find_elements(By.CSS_SELECTOR, "#sentences tbody tr")]
        assert listed[:len(span)] == span
        assert d.find_element(By.ID, "my-progress").text.startswith(f"your assignment: 0 of {len(span)} sentences done")
        d.find_element(By.LINK_TEXT, first).click()
        PageWait(d, 10).until(EC.presence_of_element_located((By.ID, "keys")))
        _answer_by_keys(d, opening)
        _press(d, "n", lambda drv: drv.find_element(By.CSS_SELECTOR, "h1.sentence").get_attribute("data-id") == second)
        _answer_by_keys(d)
        d.get(f"{base}/sentences?corpus=treebank&split=test")
        # bob's first answer contradicts ann's: the first sentence is in conflict for him, not done (issue 46)
        assert d.find_element(By.ID, "my-progress").text.startswith(
            f"your assignment: {len(span)} of {len(span)} sentences done" if name == "ann" else
            f"your assignment: {len(span) - 1} of {len(span)} sentences done (50.0%), 1 in conflict")
        if name == "bob":
            assert d.find_element(By.CSS_SELECTOR, f'#sentences tr[data-id="{first}"]').get_attribute(
                "class").split()[0] == "conflict"
    # the disagreement is on the first sentence only; the adjudicator picks ann's work there
    boss.get(f"{base}/adjudicate")
    assert [r.get_attribute("data-id") for r in boss.find_elements(By.CSS_SELECTOR, "#conflicts tr.conflict")] == [first]
    boss.find_element(By.CSS_SELECTOR, f'#conflicts tr[data-id="{first}"] a').click()
    PageWait(boss, 10).until(EC.presence_of_element_located((By.CSS_SELECTOR, '[data-who="ann"] button.choose')))
    boss.find_element(By.CSS_SELECTOR, '[data-who="ann"] button.choose').click()
    PageWait(boss, 10).until(lambda d: d.find_element(By.ID, "chosen").text == "ann")
    boss.get(f"{base}/assign")
    assert boss.find_element(By.CSS_SELECTOR, '#assignments tr[data-who="bob"] td.done').text == str(len(span))
    # the treebank: every assigned sentence finished, the first with ann's tree, adjudicated by boss
    out = tmp_path / "job.mrg"
    assert main(["store", "export", str(path), "--trees", "--split", "test", "-o", str(out)]) == 0
    listing = {row.split("\t")[0]: row.split("\t") for row in (tmp_path / "job.mrg.tsv").read_text().splitlines()[1:]}
    for sid in span:
        assert listing[sid][1] == "finished" and listing[sid][4] == "ann,bob", listing[sid]
    assert listing[first][5] == "boss" and all(listing[sid][5] == "" for sid in span[1:])
    with Store.open(path, readonly=True) as st:
        ann_work = store_team_work(st).by_sentence[first]["ann"]
        mask = remaining_mask(forest_spans(st.forest(first).candidates), ann_work.decisions)
        ann_tree = st.candidate_texts(first)[int(mask.nonzero()[0][0])]
    trees = out.read_text().splitlines()
    assert trees[int(listing[first][2]) - 1] == ann_tree



def test_a_long_sentences_trees_fit_their_box_drawn_one_word_a_row(browsers, job):
    """Regression (issue 37, item 10): a long sentence's trees overflowed their box (2,052 pixels of
    drawing in a 1,326-pixel box); by length they are drawn one word a row, and fit."""
    from ranker.serve.svg import wide_width

    base, path = job
    with Store.open(path, readonly=True) as st:
        sid = max((s for s in st.sentences("treebank") if st.candidate_texts(s.id)), key=lambda s: len(s.tokens)).id
        assert 2 * wide_width(st.forest(sid).candidates[0].tree) > 2000   # two side by side cannot fit
    d = browsers("ann")
    sign_in_attempt(d, base, "ann", "ann-secret-1", f"/sentence?id={sid}")

    def overflow(drv) -> int:
        return drv.execute_script("var b = document.getElementById('trees'); return b.scrollWidth - b.clientWidth;")

    assert d.find_element(By.ID, "layout").get_attribute("data-layout") == "vertical"
    assert overflow(d) <= 0
    d.find_element(By.ID, "layout-wide").click()   # the wide layout, asked for: it overflows, and is kept
    PageWait(d, 10).until(
        lambda drv: drv.find_element(By.ID, "layout").get_attribute("data-layout") == "wide")
    assert overflow(d) > 500
    d.refresh()
    assert d.find_element(By.ID, "layout").get_attribute("data-layout") == "wide"
    d.find_element(By.ID, "layout-auto").click()
    PageWait(d, 10).until(
        lambda drv: drv.find_element(By.ID, "layout").get_attribute("data-layout") == "vertical")
