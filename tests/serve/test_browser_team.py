"""Several annotators in real browsers (headless chromium, Selenium) against the real server: each browser
its own annotator, undo taking back only one's own answer, a name kept over a browser restart, two accounts
signing in and seeing their own attribution, a verdict, and an adjudication."""
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from serve_browser import PageWait, chromium, sign_in_attempt
from serve_team import write_accounts
from test_browser import _remaining

from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture
def two_browsers(browsers):
    """Two browsers with cookie jars of their own, neither holding a cookie yet."""
    return [browsers("ann"), browsers("bob")]


def _open(driver, url):
    driver.get(url)
    PageWait(driver, 10).until(EC.presence_of_element_located((By.ID, "discriminants")))


def _click_and_wait(driver, css, expect):
    """Click the button ``css`` and wait for the reloaded page to meet ``expect(driver)``."""
    driver.find_element(By.CSS_SELECTOR, css).click()
    PageWait(driver, 10).until(expect)


def _decisions_shown(driver) -> int:
    return int(driver.find_element(By.ID, "n-decisions").text)


def test_two_browsers_are_two_annotators_and_undo_takes_back_only_ones_own(two_browsers, live_server,
                                                                           store_path, test_sentence):
    ann, bob = two_browsers
    url = f"{live_server.url}/sentence?id={test_sentence}"
    _open(ann, url)
    _open(bob, url)   # both pages loaded before either answers
    _click_and_wait(ann, "#discriminants tbody tr[data-key] button.accept", lambda d: _decisions_shown(d) == 1)
    _click_and_wait(bob, "#discriminants tbody tr[data-key] button.reject", lambda d: _decisions_shown(d) == 1)
    with Store.open(store_path, readonly=True) as st:
        first, second = st.decisions(test_sentence)
    assert first.who != second.who and first.accept and not second.accept
    # ann undoes after bob answered: ann's own answer goes, bob's stays
    _click_and_wait(ann, "button.undo", lambda d: _decisions_shown(d) == 0)
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == [second]
    bob.refresh()
    assert _decisions_shown(bob) == 1
    _click_and_wait(bob, "button.undo", lambda d: _decisions_shown(d) == 0)
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


def test_a_name_set_in_the_browser_survives_its_restart(live_server, store_path, test_sentence):
    """A browser of its own profile, quit and started again on it (not one of the pool's)."""
    url = f"{live_server.url}/sentence?id={test_sentence}"
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium(profile)
        try:
            _open(driver, url)
            _click_and_wait(driver, "#discriminants tbody tr[data-key] button.accept",
                            lambda d: _decisions_shown(d) == 1)
            box = driver.find_element(By.CSS_SELECTOR, "form.who input[name=who]")
            box.clear()
            box.send_keys("Ann Lee")
            _click_and_wait(driver, "form.who button",
                            lambda d: d.find_element(By.CSS_SELECTOR, "form.who input[name=who]")
                            .get_attribute("value") == "Ann Lee")
        finally:
            driver.quit()
        driver = chromium(profile)   # the same profile: a browser restart
        try:
            _open(driver, url)
            assert driver.find_element(By.CSS_SELECTOR, "form.who input[name=who]").get_attribute("value") == "Ann Lee"
            assert _decisions_shown(driver) == 1   # the anonymous answer became Ann Lee's
            _click_and_wait(driver, "button.undo", lambda d: _decisions_shown(d) == 0)
        finally:
            driver.quit()
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


@pytest.fixture(scope="module")
def team_server(store_path, tmp_path_factory, live_server_class):
    from ranker.serve.app import create_app

    users = write_accounts(tmp_path_factory.mktemp("team") / "team.users", ann="annotator", boss="adjudicator")
    srv = live_server_class(create_app(store_path, users=users))
    yield srv
    srv.close()


def _sign_in(driver, base, name, password, sentence):
    sign_in_attempt(driver, base, name, password, f"/sentence?id={sentence}")
    assert driver.find_element(By.ID, "signed-in").text == name


def test_two_accounts_sign_in_decide_see_their_own_and_an_adjudicator_picks(two_browsers, team_server,
                                                                             store_path, test_sentence):
    ann, boss = two_browsers
    base = team_server.url
    _sign_in(ann, base, "ann", "ann-secret-1", test_sentence)
    _sign_in(boss, base, "boss", "boss-secret-1", test_sentence)
    assert ann.current_url.endswith(f"/sentence?id={test_sentence}")   # back to the page asked for
    total = _remaining(ann)
    key = ann.find_element(By.CSS_SELECTOR, "#discriminants tbody tr[data-key]").get_attribute("data-key")
    _click_and_wait(ann, f'#discriminants tr[data-key="{key}"] button.accept', lambda d: _decisions_shown(d) == 1)
    boss.refresh()
    assert _remaining(boss) == total and _decisions_shown(boss) == 0   # ann's work is ann's
    _click_and_wait(boss, f'#discriminants tr[data-key="{key}"] button.reject', lambda d: _decisions_shown(d) == 1)
    for driver, name in ((ann, "ann"), (boss, "boss")):
        driver.refresh()
        assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#decisions .by")] == [name]
        assert driver.find_element(By.ID, "team-conflict")
    # a verdict with a comment, shown as text
    ann.find_element(By.CSS_SELECTOR, "#verdict-form textarea").send_keys("<b>two readings</b>")
    _click_and_wait(ann, "button.verdict", lambda d: d.find_element(By.ID, "verdict-comment").text
                    == "<b>two readings</b>")
    with Store.open(store_path, readonly=True) as st:
        assert [(d.who, d.accept) for d in st.decisions(test_sentence)] == [("ann", True), ("boss", False)]
        assert [(v.who, v.comment) for v in st.verdicts(test_sentence)] == [("ann", "<b>two readings</b>")]
    # the comment is the team's: boss sees it on the sentence page, and a marker in the list (issue 37, item 7)
    boss.refresh()
    assert boss.find_element(By.CSS_SELECTOR, '#comments li[data-who="ann"] .text').text == "<b>two readings</b>"
    boss.get(f"{base}/sentences?corpus=treebank&split=test")
    row = boss.find_element(By.XPATH, f'//table[@id="sentences"]//a[text()="{test_sentence}"]/..')
    assert row.find_element(By.CSS_SELECTOR, ".comment-marker").text == "✎1"
    # ann may look at the conflict but not settle it; boss settles it
    ann.get(f"{base}/adjudicate/sentence?id={test_sentence}")
    assert not ann.find_elements(By.CSS_SELECTOR, "button.choose")
    boss.get(f"{base}/adjudicate")
    boss.find_element(By.CSS_SELECTOR, f'#conflicts tr[data-id="{test_sentence}"] a').click()
    PageWait(boss, 10).until(EC.presence_of_element_located((By.CSS_SELECTOR, '[data-who="ann"] button.choose')))
    _click_and_wait(boss, '[data-who="ann"] button.choose', lambda d: d.find_element(By.ID, "chosen").text == "ann")
    with Store.open(store_path) as st:
        assert st.adjudications()[test_sentence].who == "boss"
        st.undo_decision(test_sentence, "ann")
        st.undo_decision(test_sentence, "boss")
        st.set_verdict(test_sentence, "ann", False, "")
        st.clear_adjudication(test_sentence)
