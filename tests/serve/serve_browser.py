"""The real browsers of the serve tests: headless Debian chromium driven by Selenium, and how a test signs in.

Test files import these from here (as from :mod:`serve_team`), not from ``conftest`` or another test
file. A Chromium takes about 1.3 s to start and quit on an idle machine; the browser tests started
about twenty, most of them only to have one without cookies. :class:`BrowserPool` keeps one
Chromium per name for a test process and hands it out with no cookie and nothing on screen: the one
state the application keeps in a browser is its cookies (no page script stores anything), so a
test gets what a new profile gave it. A test about the profile itself (a browser restart) starts
its own with :func:`chromium` (issue 47, item 5).
"""
import shutil
import tempfile
from contextlib import contextmanager

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")

#: What a wait passes over while a page reloads: an element gone, not there yet, or (Chromium's
#: "Node with given id does not belong to the document", a bare WebDriverException) read mid-navigation.
SETTLE = (StaleElementReferenceException, NoSuchElementException, WebDriverException)


class PageWait(WebDriverWait):
    """Selenium's ``WebDriverWait``, looking every 50 ms: its default, half a second, added up to
    half a second to nearly every click the tests wait on (the page after it is seldom there at the
    first look), where the page itself takes a few tens of milliseconds. It passes over what a page
    being replaced throws (:data:`SETTLE`): looking twenty times as often, a wait met Chromium's
    "Node with given id does not belong to the document" mid-reload where it had not before (a CI
    run of session 24 failed two tests on it)."""

    def __init__(self, driver, timeout: float, poll_frequency: float = 0.05, ignored_exceptions=SETTLE):
        super().__init__(driver, timeout, poll_frequency=poll_frequency, ignored_exceptions=ignored_exceptions)


def chromium(profile: str):
    """A headless chromium with its own profile folder (its cookies: one browser, one session)."""
    opts = webdriver.ChromeOptions()
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(20)
    return driver


@contextmanager
def fresh_chromium():
    """:func:`chromium` with a new profile of its own, quit and removed afterwards."""
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium(profile)
        try:
            yield driver
        finally:
            driver.quit()


class BrowserPool:
    """Chromiums by name, each started once (a profile of its own) and lent clean to each test.

    :meth:`lend` gives a test a function ``of(name)``: the pool's Chromium of that name, the first
    time in the test emptied of cookies (every site's: the servers of the tests all live on
    127.0.0.1, and cookies do not tell ports apart), cache and console log, showing a blank page.
    Distinct names are distinct browsers with cookie jars of their own (two annotators, or another
    browser from the same address). A Chromium that no longer answers is replaced by a new one.
    """

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="ranker-chromium-")
        self.made: dict[str, object] = {}
        self.started = 0

    def lend(self):
        given = {}

        def of(name: str):
            if name not in given:
                given[name] = self._clean(name)
            return given[name]

        return of

    def _clean(self, name: str):
        driver = self.made.get(name)
        if driver is not None:
            try:
                driver.get("about:blank")
                driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
                driver.execute_cdp_cmd("Network.clearBrowserCache", {})
                driver.get_log("browser")   # read, and so emptied: a test reads only its own pages' messages
                if not driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]:
                    return driver
            except WebDriverException:
                pass
            self._quit(name)
        self.started += 1
        driver = self.made[name] = chromium(f"{self.root}/{name}-{self.started}")
        return driver

    def _quit(self, name: str) -> None:
        try:
            self.made.pop(name).quit()
        except WebDriverException:
            pass

    def close(self) -> None:
        for name in list(self.made):
            self._quit(name)
        shutil.rmtree(self.root, ignore_errors=True)


def sign_in_attempt(driver, base: str, name: str, password: str, path: str = "/login") -> None:
    """Open ``path`` (a sign-in page, or one that leads to it), sign in, and wait for the page after it:
    signed in, or the sign-in page again with its error."""
    driver.get(f"{base}{path}")
    PageWait(driver, 10).until(EC.presence_of_element_located((By.ID, "login")))
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button.login").click()
    PageWait(driver, 10).until(
        lambda d: d.find_elements(By.ID, "login-error") or d.find_elements(By.ID, "signed-in"))
