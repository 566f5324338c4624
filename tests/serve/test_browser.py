"""``ranker serve`` in a real browser: headless Debian chromium driven by Selenium against the real server.

Open a sentence, accept a discriminant, see the candidate count fall, undo, and check the store's
rows after each step.
"""
import tempfile

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")


def chromium(profile: str):
    """A headless chromium with its own profile folder (its cookies: one browser, one session)."""
    opts = webdriver.ChromeOptions()
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(20)
    return driver


@pytest.fixture(scope="module")
def browser():
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium(profile)
        try:
            yield driver
        finally:
            driver.quit()


def _remaining(driver) -> int:
    return int(driver.find_element(By.ID, "remaining").text)


def _wait_for_count(driver, old: int, expect) -> int:
    # the page reloads after each POST: the old element goes stale before the new one exists
    WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)) \
        .until(lambda d: expect(_remaining(d), old))
    return _remaining(driver)


def test_accept_a_discriminant_then_undo(browser, live_server, store_path, test_sentence):
    browser.get(f"{live_server.url}/sentences?corpus=treebank&split=test")
    link = browser.find_element(By.LINK_TEXT, test_sentence)
    link.click()
    WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "discriminants")))
    total = int(browser.find_element(By.ID, "total").text)
    assert _remaining(browser) == total
    rows = browser.find_elements(By.CSS_SELECTOR, "#discriminants tbody tr[data-key]")
    assert rows
    key = rows[0].get_attribute("data-key")
    count = int(rows[0].find_elements(By.CSS_SELECTOR, "td.num")[0].text)
    rows[0].find_element(By.CSS_SELECTOR, "button.accept").click()
    after = _wait_for_count(browser, total, lambda now, old: now < old)
    assert after == count   # accepting keeps exactly the candidates holding the span
    assert len(browser.find_elements(By.CSS_SELECTOR, "#candidates tbody tr")) == after
    with Store.open(store_path, readonly=True) as st:
        (d,) = st.decisions(test_sentence)
    assert (f"{d.label}:{d.start}-{d.end}", d.accept) == (key, True)
    assert d.who.startswith("anon-")   # the session's own identity, nobody having set a name
    # the decision is a partial annotation of kind user, as ranker annotate reads it
    assert _user_annotation(store_path, test_sentence) == [(d.label, d.start, d.end, True)]

    browser.find_element(By.CSS_SELECTOR, "button.undo").click()
    assert _wait_for_count(browser, after, lambda now, old: now > old) == total
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []
    assert _user_annotation(store_path, test_sentence) is None


def _user_annotation(store_path, sentence_id):
    """The sentence's ``user`` annotation rows after ``ranker annotate --kind user``."""
    from ranker.cli.main import main

    assert main(["annotate", "--store", str(store_path), "--kind", "user"]) == 0
    with Store.open(store_path, readonly=True) as st:
        got = st.annotations("user", corpus="treebank").get(sentence_id)
    return None if got is None else [tuple(b) for b in got.brackets]


def test_the_page_loads_no_foreign_resource_and_logs_no_error(browser, live_server, test_sentence):
    browser.get(f"{live_server.url}/sentence?id={test_sentence}")
    WebDriverWait(browser, 10).until(EC.presence_of_element_located((By.ID, "candidates")))
    urls = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert urls and all(u.startswith(live_server.url) for u in urls)
    assert browser.find_elements(By.CSS_SELECTOR, "svg.tree")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
    assert errors == []


def test_retrain_shows_progress_then_the_new_ranking(browser, live_server, store_path, test_sentence):
    browser.get(f"{live_server.url}/sentence?id={test_sentence}")
    total = _remaining(browser)
    browser.find_element(By.CSS_SELECTOR, "#discriminants tbody tr[data-key] button.reject").click()
    _wait_for_count(browser, total, lambda now, old: now < old)
    old_key = browser.find_element(By.ID, "model-key").text
    browser.find_element(By.CSS_SELECTOR, "button.retrain").click()
    WebDriverWait(browser, 20, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(
        lambda d: "retrained" in d.find_element(By.ID, "retrain-message").text)
    assert browser.find_element(By.ID, "retrain-progress").get_attribute("value") == "1"
    assert browser.find_element(By.ID, "model-key").text != old_key
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#candidates thead th")]
    assert "before" in headers
    browser.find_element(By.CSS_SELECTOR, "button.undo").click()
    _wait_for_count(browser, 0, lambda now, old: now == total)
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []
