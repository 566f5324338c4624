"""The README's pictures of ``ranker serve`` (issue 46, item 8), made by ``scripts/serve_screenshots.py``
on the test store: four pages at 1400x1000, and the sentence page read at a glance (the chosen tree
on the first screen, a words column wide enough for long spans, plain words for the rankers and
probabilities with their internal names in tooltips)."""
import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "serve_screenshots.py"


def test_the_screenshot_script_makes_the_four_pictures_and_the_sentence_page_reads_at_a_glance(
        built_store, tmp_path):
    from PIL import Image

    spec = importlib.util.spec_from_file_location("serve_screenshots", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    before = Path(built_store).read_bytes()
    measured = script.make(str(built_store), str(tmp_path / "pictures"))
    assert Path(built_store).read_bytes() == before   # a copy is served, the store untouched
    for page in script.PAGES:
        png = tmp_path / "pictures" / f"{page}.png"
        with Image.open(png) as im:
            assert im.size == (1400, 1000), page
        assert png.stat().st_size < 200_000, page   # small enough for the repository
    # the chosen tree starts on the first screen, well above its bottom
    assert 0 < measured["tree_top"] < measured["viewport"] - 300, measured
    assert measured["words_width"] >= 18 * 14 - 1, measured   # 18em of 14-pixel text at least
    # the discriminants' table fits its column: no reject button under a horizontal scroll bar
    assert measured["table_overflow"] <= 0, measured
    choices = dict(measured["choices"])
    assert choices["model's choice"].startswith("loglinear:") and choices["parser's first"].startswith("native:")
    assert measured["how_sure"] and all(t.startswith(("mass:", "P:")) for t in measured["how_sure"])


def test_the_readme_shows_the_four_pictures_kept_in_docs():
    root = SCRIPT.parents[1]
    readme = (root / "README.md").read_text()
    for page in ("list", "sentence", "adjudication", "assignment"):
        assert f"(docs/serve/{page}.png)" in readme
        assert (root / "docs" / "serve" / f"{page}.png").stat().st_size < 200_000
