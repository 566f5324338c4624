"""No file of the project names a path of one machine: data are arguments or relative to the project.

An absolute path into one machine's work, home or scratch folder works where it was written and
nowhere else (issue 24: the test fixtures, benchmarks and the ablation told readers to copy stores from
one machine's folders and call a wrapper script no user has). Shared data are ``../shared`` beside
the project, stores are ``runs/...`` or an argument, scratch space comes from :mod:`tempfile`.
"""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Top folders of one machine's work, home and scratch space.
MACHINE_FOLDERS = ("work", "root", "home", "Users", "tmp", "mnt", "scratch")
#: An absolute path into one of them, or one of them itself as a quoted string (a ``mkdtemp(dir=...)``
#: of the scratch folder), not part of a longer path or URL.
MACHINE_PATH = re.compile(r"(?<![\w./~-])/(?:" + "|".join(MACHINE_FOLDERS) + r")(?:/|(?=[\"']))")


def _path(*parts: str) -> str:
    """Parts joined by '/' (the probes below are built, so this file names no machine path itself)."""
    return "/".join(parts)


def _tracked_text_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    for name in filter(None, out.split("\0")):
        path = ROOT / name
        if not path.is_file():
            continue
        try:
            yield name, path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue   # binary (pictures): no path a reader would follow


def test_the_pattern_finds_machine_paths_and_spares_the_rest():
    for text in (f"cp {_path('', 'work', 'stores', 'x.sqlite')} .", f'Path("{_path("", "home", "me", "data")}")',
                 f"--work {_path('', 'tmp', 'peer')}", f"`{_path('', 'root', 'x')}`",
                 f'mkdtemp(dir="{_path("", "tmp")}")', f"Path('{_path('', 'scratch')}')"):
        assert MACHINE_PATH.search(text), text
    for text in (_path("runs", "tmp", "x"), "../shared/nltk_data", _path("https:", "", "example.org", "home", ""),
                 _path("ranker", "work", "x"), _path("~", "work", "x"), "tempfile.mkdtemp()",
                 f'"{_path("runs", "tmp")}"', f'"{_path("", "tmpdir")}"'):
        assert not MACHINE_PATH.search(text), text


def test_no_tracked_file_names_a_machine_path():
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for name, text in _tracked_text_files()
             for m in MACHINE_PATH.finditer(text)]
    assert not found, "absolute machine paths (make them arguments or relative to the project):\n" + \
        "\n".join(found)
