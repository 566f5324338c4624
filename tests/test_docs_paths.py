"""The files, tests and names docs/extending.md points a newcomer to exist (modules are renamed; the guide must follow)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"
TOPS = ("ranker/", "features/", "tests/", "configs/", "docs/")


def _quoted() -> list[str]:
    return re.findall(r"`([^`\s]+)`", DOC.read_text())


def test_the_readme_links_the_guide():
    assert "extending.md" in ROOT.joinpath("README.md").read_text()


def test_every_path_and_test_the_guide_names_exists():
    named = [q for q in _quoted() if q.startswith(TOPS)]
    assert len(named) > 20
    for q in named:
        path, _, rest = q.partition("::")
        path, _, attr = path.partition(":")
        path = path.split("*")[0]
        assert (ROOT / path).exists(), q
        for name in filter(None, (rest, attr)):
            assert re.search(rf"^(def|class) {name}\b|^{name}\b", (ROOT / path).read_text(), re.M), q


def test_every_dotted_name_the_guide_gives_imports():
    from importlib import import_module

    for q in _quoted():
        if q.startswith(("ranker.", "features.")) and re.fullmatch(r"[\w.]+", q):
            parts = q.split(".")
            for k in range(len(parts), 0, -1):   # the longest importable module, then its attributes
                try:
                    obj = import_module(".".join(parts[:k]))
                except ImportError:
                    continue
                for attr in parts[k:]:
                    obj = getattr(obj, attr)
                break
            else:
                raise AssertionError(q)
