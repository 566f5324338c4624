"""One path per step: the fronts extract, import and fit through the stages, never by themselves.

Issue 47, item 1: ``ranker run`` went through ``ranker/pipeline/stages/`` while the other fronts
(``apply``, ``select``, ``import``, ``models retrain``, the page) composed their own steps: a
newcomer could not tell where a step lives, and a fix to one path missed the others. The
scanner below finds the calls that do a step (features extracted, n-best files imported, a ranker
fitted) anywhere in ``ranker/`` outside the stages and the modules the stages call, and in the
scripts beside it (``benchmarks/*.py``, ``experiments/**/*.py``: a script that composed a step
itself measured a path no front takes), and the test fails on one. It reads tokens, so a name in a
comment or a docstring is not a call.
"""
import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ranker"
#: The scripts scanned beside the package (globs relative to the repository).
SCRIPTS = ("benchmarks/*.py", "experiments/**/*.py")

#: Function names whose call is a step (features extracted, n-best files imported).
STEP_CALLS = ("cached_matrix", "extract", "extract_stored", "import_forest_files")
#: Method names whose call on anything is a step (a ranker or a family fitted).
STEP_METHODS = ("fit",)

#: Folders whose modules are the steps themselves (paths relative to the repository).
STEP_FOLDERS = (
    "ranker/pipeline/stages/",   # the stages: every front's one path
    "ranker/models/",            # the rankers: their own fits (a grid's σ², expected F's start)
)

#: Modules outside the stages that the stages call to do the step, each with why it may.
ALLOWED = {
    "ranker/pipeline/feature_cache.py": "the store's matrices (cached_matrix) and the learning families' "
                                        "tables (fam.fit), read by stages.extract_features and model_features",
    "ranker/pipeline/candidate_sources.py": "the n-best source that stages.parse_or_import and "
                                            "stages.import_forests ask to import files",
    "ranker/pipeline/training.py": "select_model's fits of the σ² grid, run by stages.fit_loglinear and fit_rules",
    # scripts that time or vary the step itself, which a stage would hide behind its cache or its grid
    "benchmarks/bench_features.py": "times extraction itself (each family alone, the whole set, one process "
                                    "and --workers): the stage would read the stored matrix instead",
    "benchmarks/bench_stage_cpu.py": "times the features stage's extraction (extract_stored) on CPU, with no "
                                     "stored matrix to read back",
    "benchmarks/bench_train.py": "times one fit of the log-linear trainer on synthetic data: no store, no stage",
    "benchmarks/peer_compare.py": "fits our objective with a timed objective beside the peer's solver on the same "
                                  "rows, one σ², no grid",
    "experiments/gum/copies_iterations.py": "counts a fit's iterations under preconditioner variants the stages "
                                            "do not offer, on dumped training sets",
    "experiments/gum/copies_memory.py": "measures the peak memory of one short fit per feature space, as "
                                        "fit_rules holds them, without the σ² grid",
    "experiments/gum/fit_trace.py": "traces one fit iteration by iteration (its solver wrapped to keep each "
                                    "point), which the stages' cached fit does not show",
    "experiments/gum/screen_trace.py": "scores each rule's fit on held-out at many iteration counts from one "
                                       "traced fit a rule, which the stages' cached screening fit (one count) does not show",
    "experiments/wsj-sample-bllip/heldout_sweep.py": "sweeps objective, σ² and an unregularised prefix on "
                                                     "held-out, which the stages' fit does not vary",
}


def step_calls(text: str) -> list[tuple[int, str]]:
    """``(line, name)`` of every call in ``text`` that does a step; definitions, comments and strings are not calls."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
              if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT)]
    found = []
    for i, tok in enumerate(tokens[:-1]):
        if tok.type != tokenize.NAME or tokens[i + 1].string != "(":
            continue
        before = tokens[i - 1].string if i else ""
        if before in ("def", "class"):
            continue
        if tok.string in STEP_CALLS or (tok.string in STEP_METHODS and before == "."):
            found.append((tok.start[0], tok.string))
    return found


def _modules():
    scripts = (path for pattern in SCRIPTS for path in ROOT.glob(pattern))
    for path in sorted({*PACKAGE.rglob("*.py"), *scripts}):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith(STEP_FOLDERS):
            yield rel, path


def test_no_front_extracts_imports_or_fits_by_itself():
    outside = [f"{rel}:{line}: {name}(...)" for rel, path in _modules() if rel not in ALLOWED
               for line, name in step_calls(path.read_text(encoding="utf-8"))]
    assert not outside, ("steps done outside ranker/pipeline/stages/: call the stage instead (model_features, "
                         "forest_features, column_features, import_forests, fit_warm, ready_ranker, ...), or "
                         "add the module to ALLOWED with a reason:\n" + "\n".join(outside))


def test_every_allowed_module_still_does_a_step():
    # an entry whose module no longer calls any step is stale: it would let a new call in unseen
    stale = [rel for rel in ALLOWED if not (ROOT / rel).is_file() or not step_calls((ROOT / rel).read_text())]
    assert not stale, f"take these out of ALLOWED: {stale}"


@pytest.mark.parametrize("source, expected", [
    ("m = cached_matrix(store, fs, sel, source)\n", [(1, "cached_matrix")]),
    ("from ..features import extract\nX = extract([forest], families)\n", [(2, "extract")]),
    ("m = self.columns.extract(forests, 2)\n", [(1, "extract")]),
    ("got = import_forest_files(st, files, corpus)\n", [(1, "import_forest_files")]),
    ("r = NativeRanker().fit()\nnew.fit(X, y,\n        groups)\n", [(1, "fit"), (2, "fit")]),
    # not calls: definitions, other names, comments, docstrings, a bare reference
    ("def extract(forests):\n    pass\n", []),
    ("def fit(self, X):\n    return self\n", []),
    ("m = stages.model_features(ctx, fs, sel)\nfit_warm(ctx, base)\nextract_features(ctx)\n", []),
    ("# cached_matrix(store) is called by the stage\n", []),
    ('"""ranker.fit(X) and extract(forests) in a docstring."""\n', []),
    ("fn = cached_matrix\n", []),
])
def test_the_scanner_finds_calls_and_only_calls(source, expected):
    assert step_calls(source) == expected


def test_the_guard_fails_on_a_call_planted_in_a_front(tmp_path):
    # a copy of a front with one call of the step it should leave to a stage
    front = (PACKAGE / "cli" / "select.py").read_text(encoding="utf-8")
    assert step_calls(front) == []
    planted = front.replace("m = stages.model_features(ctx, fs, sel)",
                            "m = cached_matrix(st, fs, sel, source, 1, evidence=evidence)")
    assert planted != front
    assert [name for _, name in step_calls(planted)] == ["cached_matrix"]


def test_the_scan_covers_the_benchmarks_and_the_experiments():
    scanned = {rel for rel, _ in _modules()}
    assert {"benchmarks/bench_retrain.py", "experiments/gum/transfer.py", "experiments/ablation/run.py"} <= scanned
    assert all(rel.startswith(("ranker/", "benchmarks/", "experiments/")) for rel in scanned)
