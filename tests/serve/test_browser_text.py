"""Treebanking new text: plain sentences parsed by Link Grammar, disambiguated in a real browser, exported as trees.

A user's own text has no gold tree: the page works as on the WSJ sample (no gold column, no
oracle), and a sentence narrowed to one bracketing comes out of ``ranker store export --trees``
as that tree.
"""
import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from serve_browser import PageWait

from ranker.cli.main import main
from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.linkgrammar]


@pytest.fixture(scope="module")
def text_store(tmp_path_factory):
    work = tmp_path_factory.mktemp("text")
    (work / "my.txt").write_text("The old man saw the dog with the telescope .\n")
    store = work / "my.sqlite"
    assert main(["parse", "--store", str(store), "--path", str(work / "my.txt"), "--workers", "1",
                 "--no-progress"]) == 0
    return store


def test_a_typed_sentence_is_treebanked_to_one_tree_and_exported(text_store, live_server_class, browsers, tmp_path):
    from ranker.serve.app import create_app

    sid = "text/my.txt/1"
    srv = live_server_class(create_app(text_store))
    try:
        driver = browsers("ann")
        driver.get(f"{srv.url}/sentences?corpus=text")
        driver.find_element(By.LINK_TEXT, sid).click()
        PageWait(driver, 10).until(EC.presence_of_element_located((By.ID, "discriminants")))
        assert "gold" not in driver.find_element(By.ID, "candidates").text.lower()
        for _ in range(20):   # accept the best discriminant until one bracketing is left
            if int(driver.find_element(By.ID, "remaining-packs").text) == 1:
                break
            old = int(driver.find_element(By.ID, "remaining").text)
            driver.find_element(By.CSS_SELECTOR, "#discriminants tbody tr[data-key] button.accept").click()
            PageWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,
                                                          NoSuchElementException)).until(
                lambda d: int(d.find_element(By.ID, "remaining").text) < old)
        assert int(driver.find_element(By.ID, "remaining-packs").text) == 1
    finally:
        srv.close()
    out = tmp_path / "mine.mrg"
    assert main(["store", "export", str(text_store), "--trees", "-o", str(out)]) == 0
    with Store.open(text_store, readonly=True) as st:
        from ranker.sources.discriminants import forest_spans, remaining_mask
        from ranker.sources.adjudication import store_team_work

        forest = st.forest(sid)
        team = store_team_work(st)
        (who,) = team.by_sentence[sid]
        mask = remaining_mask(forest_spans(forest.candidates), team.by_sentence[sid][who].decisions)
        first = int(mask.nonzero()[0][0])
        assert out.read_text() == st.candidate_texts(sid)[first] + "\n"
    assert (tmp_path / "mine.mrg.tsv").read_text().splitlines()[1].split("\t")[:3] == [sid, "finished", "1"]
