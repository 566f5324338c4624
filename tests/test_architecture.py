"""The layers of DESIGN.md hold: the store below the sources, caching in the pipeline, one pool,
and what both the features and the models use (the Heidorn score, K tables, the compact matrix)
below both; no module imports round a circle and no lower layer imports the pipeline or a front
(the settings they all read are ranker/settings.py, at the bottom)."""
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


# ------------------------------------------------------------------ layers one way (issue 35, item 3)
def _all_modules() -> dict[str, Path]:
    """Every module of ranker/ and features/ (``ranker.features``), subpackages included."""
    found = {}
    for folder, package in ((ROOT / "ranker", "ranker"), (ROOT / "features", "ranker.features")):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _import_graph(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """``module -> the modules of ours it imports`` (at the top or inside a function).

    ``from package import name`` is an arrow to ``package.name`` when that is a module, else to
    the package; ``features.x`` is ``ranker.features.x``. Importing ``a.b.c`` runs
    ``a/b/__init__.py`` first, so it is an arrow to each package on the way too (``a.b``), unless
    the importer sits in that package (then the package is being imported already when its module
    is). ``modules`` (name -> file) are ours; by default every module of ranker/ and features/.
    """
    modules = _all_modules() if modules is None else modules
    graph = {}
    for module, path in modules.items():
        arrows = set()
        for name in _static_imports(path, module):
            if name == "features" or name.startswith("features."):
                name = "ranker." + name
            while name and name not in modules:
                name = name.rpartition(".")[0]
            while name:
                if name != module and not module.startswith(name + "."):
                    arrows.add(name)
                name = name.rpartition(".")[0]
        graph[module] = arrows
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that import each other round a circle (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


#: Arrows allowed to close a circle, as ``(importer, imported)``. Empty since issue 47 (each lazy
#: import that pointed back moved the shared piece to a module below both), and meant to stay so: a
#: circle is mended by moving what both modules need, not by naming it here.
KNOWN_CIRCLE_ARROWS: set[tuple[str, str]] = set()


def test_the_import_reader_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_import_reader_sees_a_circle_through_a_package_init(tmp_path):
    # the shape of issue 47's circle: a lazy import of stages.provenance runs stages/__init__.py,
    # which imports stages.annotation, which imports the first module at its top
    files = {"ranker.pipeline.annotation_kinds": "def f():\n    from .stages.provenance import g\n",
             "ranker.pipeline.stages": "from .annotation import annotate\n",
             "ranker.pipeline.stages.annotation": "from ..annotation_kinds import KINDS\n",
             "ranker.pipeline.stages.provenance": "from ...errors import RankerError\n"}
    modules = {}
    for module, text in files.items():
        path = tmp_path / module / ("__init__.py" if module.endswith("stages") else "m.py")
        path.parent.mkdir()
        path.write_text(text)
        modules[module] = path
    graph = _import_graph(modules)
    assert "ranker.pipeline.stages" in graph["ranker.pipeline.annotation_kinds"]
    assert "ranker.pipeline.stages" not in graph["ranker.pipeline.stages.annotation"]   # it sits inside
    assert _circles(graph) == [["ranker.pipeline.annotation_kinds", "ranker.pipeline.stages",
                                "ranker.pipeline.stages.annotation"]]


def test_no_circle_among_the_modules():
    graph = _import_graph()
    for importer, imported in KNOWN_CIRCLE_ARROWS:
        graph[importer].discard(imported)
    assert _circles(graph) == [], "modules that import each other: draw the arrows one way"


def test_each_known_circle_arrow_is_still_there():
    graph = _import_graph()
    gone = sorted(arrow for arrow in KNOWN_CIRCLE_ARROWS if arrow[1] not in graph[arrow[0]])
    assert not gone, f"{gone}: no longer imported, so take them out of KNOWN_CIRCLE_ARROWS"


#: The layers below the pipeline and its fronts, and the upper floors they never import.
_LOWER = ("ranker.models", "ranker.features", "ranker.store", "ranker.sources", "ranker.trees",
          "ranker.evaluation", "ranker.matrices", "ranker.settings")
_UPPER = ("ranker.pipeline", "ranker.cli", "ranker.serve")


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_no_upward_import():
    up = sorted((m, t) for m, arrows in _import_graph().items() if _within(m, _LOWER)
                for t in arrows if _within(t, _UPPER))
    assert not up, f"{up}: the lower layers read their settings from ranker.settings, never from above"


def test_the_settings_import_only_the_standard_library():
    # ranker.settings is the bottom of the house: every layer reads it, it reads none. The one
    # import that is not the standard library's is the TOML writer, inside ExperimentConfig.to_toml;
    # the objectives' choices are a registry named as text and imported on first use.
    path = ROOT / "ranker" / "settings.py"
    top = {name.split(".")[0] for name in _static_imports(path, "ranker.settings")} - {"__future__"}
    assert top <= set(sys.stdlib_module_names) | {"tomli_w"}, top
    assert not [m for m in _imported_by("ranker.settings") if m.startswith("ranker.") and m != "ranker.settings"
                and m != "ranker.lazy"]


#: The most lines a module of ranker/ or features/ may have (issue 35's small modules; issue 47 found three over it).
MOST_LINES = 600


def _long_modules(*folders: Path, most: int = MOST_LINES) -> list[str]:
    """``path: lines`` of every module under ``folders`` longer than ``most`` lines."""
    return [f"{path.relative_to(folder.parent).as_posix()}: {n} lines" for folder in folders
            for path in sorted(folder.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > most]


def test_no_module_over_600_lines():
    # a module past this holds more than one job: split it by job, each with a docstring saying why
    long = _long_modules(ROOT / "ranker", ROOT / "features")
    assert not long, f"split these by job (one module, one job): {long}"


def test_the_line_count_sees_a_long_module(tmp_path):
    pkg = tmp_path / "ranker"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "cli" / "short.py").write_text("x = 1\n" * MOST_LINES)
    (pkg / "cli" / "long.py").write_text("x = 1\n" * (MOST_LINES + 1))
    assert _long_modules(pkg) == [f"ranker/cli/long.py: {MOST_LINES + 1} lines"]
