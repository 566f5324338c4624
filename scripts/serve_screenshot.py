"""Take the screenshot of a ``ranker serve`` sentence page shown in the README (``docs/serve.png``).

The store is copied to a temporary folder (the original is not touched), served on 127.0.0.1 at a
free port, one discriminant is accepted so the page shows a decision, and headless chromium
photographs the page.

Run: ``python scripts/serve_screenshot.py --store S --sentence ID [--model M] [--out docs/serve.png]``
"""
from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import threading
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--sentence", required=True)
    ap.add_argument("--model", default=None)
    ap.add_argument("--out", default="docs/serve.png")
    ap.add_argument("--size", default="1400,1500", help="window width,height in pixels")
    args = ap.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from werkzeug.serving import make_server

    from ranker.serve.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store.sqlite"
        shutil.copy(args.store, store)
        server = make_server("127.0.0.1", 0, create_app(store, model=args.model), threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/sentence?id={args.sentence}"
        opts = webdriver.ChromeOptions()
        for flag in (*FLAGS, f"--window-size={args.size}", f"--user-data-dir={tmp}/profile"):
            opts.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        try:
            driver.get(url)
            # accept the page's first discriminant, so the page shows a decision and a smaller set
            rows = driver.find_elements(By.CSS_SELECTOR, "#discriminants tbody tr[data-key]")
            if rows:
                rows[0].find_element(By.CSS_SELECTOR, "button.accept").click()
                driver.find_element(By.ID, "remaining")
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(args.out)
            text = re.sub(r"\s+", " ", driver.find_element(By.CSS_SELECTOR, "p.summary").text)
            print(f"wrote {args.out}: {text}")
        finally:
            driver.quit()
            server.shutdown()


if __name__ == "__main__":
    main()
