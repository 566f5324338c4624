"""Make the screenshots of ``ranker serve`` the README's serve section shows: what a lead sees.

Four pages at 1400x1000 pixels (the window of a laptop): an annotator's sentence list, their
sentence page, the adjudication page of a conflict and the assignment page. The store is copied to
a temporary folder (the original is not touched) with a small team on it (accounts ann, bob and
boss, the adjudicator): the first sentences with candidates of ``--split`` are assigned to ann and
bob, all double-annotated; ann narrows the first to one bracketing and answers one discriminant of
the second, bob rejects what ann accepted first (a conflict). Every answer takes the server's own
path (:func:`ranker.sources.discriminants.decide`). Each picture is saved as a palette PNG (small).

Besides the pictures it returns what the README promises of the sentence page, measured in the
browser: the chosen tree on the first screen, the words column's width (``tests/serve/
test_browser_screenshots.py`` runs it and checks them).

Run: ``python scripts/serve_screenshots.py --store S [--split test] [--out-dir docs/serve]``
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
WIDTH, HEIGHT = 1400, 1000
PAGES = ("list", "sentence", "adjudication", "assignment")


def _team(store: Path, users: Path, split: str) -> tuple[str, str]:
    """Accounts, an assignment and a conflict on ``store``: the two sentences of the pictures."""
    from ranker.serve.users import add_user
    from ranker.sources.discriminants import decide, decision, discriminants, forest_spans, remaining_mask
    from ranker.store import Store

    for name in ("ann", "bob"):
        add_user(users, name, f"{name}-secret-1")
    add_user(users, "boss", "boss-secret-1", role="adjudicator")
    with Store.open(store) as st:
        sents = [s for s in st.sentences("treebank", split) if len(st.candidate_texts(s.id)) >= 20][:4]
        if len(sents) < 2:
            raise SystemExit(f"{store}: fewer than two sentences of {split} with 20 candidates")
        ids = [s.id for s in sents]
        st.assign([(sid, who) for sid in ids for who in ("ann", "bob")], "boss")
        # the sentence page shown: the shortest (a long sentence's trees go under the discriminants)
        conflict = ids[0]
        working = min((s for s in sents if s.id != conflict), key=lambda s: len(s.tokens)).id

        def answer(sid, who, accept=True):
            spans = forest_spans(st.forest(sid).candidates)
            mask = remaining_mask(spans, [d for d in st.decisions(sid) if d.who == who])
            left = discriminants(spans, mask)
            if left:
                decide(st, sid, spans, decision(left[0].key, accept, who))
            return bool(left)

        first = discriminants(forest_spans(st.forest(conflict).candidates))[0]
        while answer(conflict, "ann"):
            pass
        decide(st, conflict, forest_spans(st.forest(conflict).candidates), decision(first.key, False, "bob"))
        answer(working, "ann")
    return conflict, working


def make(store: str, out_dir: str, split: str = "test") -> dict:
    """Write the four pictures to ``out_dir``; the sentence page's measurements (see the module)."""
    from PIL import Image
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    from werkzeug.serving import make_server

    from ranker.serve.app import create_app

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    measured = {}
    with tempfile.TemporaryDirectory() as tmp:
        path, users = Path(tmp) / "store.sqlite", Path(tmp) / "store.users"
        shutil.copy(store, path)
        conflict, working = _team(path, users, split)
        server = make_server("127.0.0.1", 0, create_app(path, users=users), threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        drivers = []

        def browser(name):
            opts = webdriver.ChromeOptions()
            for flag in (*FLAGS, f"--user-data-dir={tmp}/{name}", f"--window-size={WIDTH},{HEIGHT + 200}"):
                opts.add_argument(flag)
            d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
            drivers.append(d)
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
            d.get(f"{base}/login")
            d.find_element(By.NAME, "name").send_keys(name)
            d.find_element(By.NAME, "password").send_keys(f"{name}-secret-1")
            d.find_element(By.CSS_SELECTOR, "button.login").click()
            WebDriverWait(d, 10).until(EC.presence_of_element_located((By.ID, "signed-in")))
            return d

        def shoot(driver, url, name, ready):
            driver.get(f"{base}{url}")
            WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, ready)))
            png = out / f"{name}.png"
            driver.save_screenshot(str(png))
            Image.open(png).convert("RGB").quantize(colors=64).save(png, optimize=True)

        try:
            ann, boss = browser("ann"), browser("boss")
            shoot(ann, f"/sentences?corpus=treebank&split={split}", "list", "sentences")
            shoot(ann, f"/sentence?id={working}", "sentence", "discriminants")
            measured = ann.execute_script("""
                const tree = document.getElementById('tree-a-gold').getBoundingClientRect();
                const words = document.querySelector('#discriminants td.text').getBoundingClientRect();
                const choices = [...document.querySelectorAll('#choices td[title]')].map(
                    td => [td.textContent, td.title]);
                const work = document.querySelector('.workbench .work');
                return {tree_top: tree.top, viewport: window.innerHeight, words_width: words.width,
                        table_overflow: work.scrollWidth - work.clientWidth,
                        choices: choices, how_sure: [...document.querySelectorAll('th')].filter(
                            th => th.textContent == 'how sure').map(th => th.title)};""")
            shoot(boss, f"/adjudicate/sentence?id={conflict}", "adjudication", "decide-here")
            shoot(boss, "/assign", "assignment", "assignments")
        finally:
            for d in drivers:
                d.quit()
            server.shutdown()
    return measured


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True, help="a store with a treebank corpus and a model (copied, not changed)")
    ap.add_argument("--split", default="test", help="the split whose sentences the team works on (default test)")
    ap.add_argument("--out-dir", default="docs/serve", help="where the pictures go (default docs/serve)")
    args = ap.parse_args(argv)
    measured = make(args.store, args.out_dir, args.split)
    print(f"wrote {', '.join(f'{args.out_dir}/{p}.png' for p in PAGES)}; the chosen tree's top at "
          f"{measured['tree_top']:.0f} of {measured['viewport']} pixels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
