"""The layers of DESIGN.md hold: the store below the sources, caching in the pipeline, one pool,
and what both the features and the models use (the Heidorn score, K tables, the compact matrix)
below both."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


def _static_imports(path: Path, module: str) -> set[str]:
    """Every module ``path`` (the module ``module``) imports, at the top or inside a function.

    Read from the source, not from ``sys.modules``: the features import lazily, so a reach upward
    inside a function would not show at import time.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for n in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(n, ast.Import):
            found |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            base = package.rsplit(".", n.level - 1)[0] if n.level else ""
            target = ".".join(p for p in (base, n.module or "") if p)
            found.add(target)
            found |= {f"{target}.{a.name}" for a in n.names}
    return found


def _modules(folder: Path, package: str):
    for path in sorted(folder.glob("*.py")):
        yield path, package if path.name == "__init__.py" else f"{package}.{path.stem}"


#: The modules below both the features and the models, with the package each belongs to.
_SHARED = [*_modules(ROOT / "ranker" / "matrices", "ranker.matrices"),
           (ROOT / "ranker" / "trees" / "heidorn_score.py", "ranker.trees.heidorn_score"),
           (ROOT / "ranker" / "trees" / "ktable.py", "ranker.trees.ktable")]


def test_the_import_reader_sees_relative_and_lazy_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from ..models import base\ndef f():\n    from ranker.models.heidorn import X\n")
    assert {"ranker.models.base", "ranker.models.heidorn"} <= _static_imports(probe, "ranker.features.probe")


@pytest.mark.parametrize("path,module", list(_modules(ROOT / "features", "ranker.features")),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_the_features_import_nothing_from_the_models(path, module):
    up = sorted(m for m in _static_imports(path, module) if m == "ranker.models" or m.startswith("ranker.models."))
    assert not up, f"{path.name} imports {up}: the models read what the features produce, not the reverse"


@pytest.mark.parametrize("path,module", _SHARED, ids=lambda v: v if isinstance(v, str) else None)
def test_the_shared_layer_imports_neither_features_nor_models(path, module):
    up = sorted(m for m in _static_imports(path, module)
                if m.split(".")[:2] in (["ranker", "models"], ["ranker", "features"]) or m.split(".")[0] == "features")
    assert not up, f"{path.name} imports {up}: it sits below both the features and the models"
