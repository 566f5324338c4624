"""The test files of the most work go to the workers first (``LONG_FILES``, tests/conftest.py; issue 47, item 5)."""
import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _conftest():
    spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Item:
    def __init__(self, nodeid: str):
        self.nodeid = nodeid


def test_the_long_files_exist():
    long_files = _conftest().LONG_FILES
    assert long_files and len(set(long_files)) == len(long_files)
    missing = [p for p in long_files if not (ROOT / p).is_file()]
    assert not missing, f"{missing}: renamed or gone, so take them out of LONG_FILES (or name the new file)"


def test_the_long_files_go_first_each_whole_and_in_its_own_order():
    conftest = _conftest()
    first, second = conftest.LONG_FILES[:2]
    items = [_Item(n) for n in ("tests/a.py::x", f"{second}::y1", "tests/a.py::z", f"{first}::w",
                                f"{second}::y2", "tests/b.py::v")]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.nodeid for i in items] == [f"{first}::w", f"{second}::y1", f"{second}::y2", "tests/a.py::x",
                                         "tests/a.py::z", "tests/b.py::v"]


def test_the_workers_take_files_in_collection_order():
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--dist loadfile" in addopts and "--no-loadscope-reorder" in addopts
