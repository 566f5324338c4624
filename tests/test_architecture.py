"""The layers of DESIGN.md hold: the store below the sources, caching in the pipeline, one pool."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imported_by(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    return set(out.split())


def test_the_store_does_not_import_the_sources():
    assert not {m for m in _imported_by("ranker.store") if m.startswith("ranker.sources")}


def test_features_keep_nothing_in_the_store():
    for path in (ROOT / "features").glob("*.py"):
        text = path.read_text()
        for call in ("put_artifact", "get_artifact", "artifact_keys"):
            assert call not in text, f"{path.name} caches in the store ({call}): that is the pipeline's job"


def test_one_process_pool():
    users = [p for p in (ROOT / "ranker").rglob("*.py")
             if "get_context(" in p.read_text() and p.name != "parallel.py"]
    users += [p for p in (ROOT / "features").glob("*.py") if "get_context(" in p.read_text()]
    assert users == []
