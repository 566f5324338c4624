"""No file of the project names a path of one machine: data are arguments or relative to the project.

A path such as ``/work/shared`` or ``/home/someone/stores`` works where it was written and nowhere
else (issue 24: the test fixtures, benchmarks and the ablation told readers to copy stores from
one machine's folders and call a wrapper script no user has). Shared data are ``../shared`` beside
the project, stores are ``runs/...`` or an argument, scratch space comes from :mod:`tempfile`.
"""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: An absolute path into a home, a machine's work or scratch folder, not part of a longer path or URL.
MACHINE_PATH = re.compile(r"(?<![\w./~-])/(?:work|root|home|Users|tmp|mnt|scratch)/")


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
    for text in ("cp /work/stores/x.sqlite .", 'Path("/home/me/data")', "--work /tmp/peer", "`/root/x`"):
        assert MACHINE_PATH.search(text), text
    for text in ("runs/tmp/x", "../shared/nltk_data", "https://example.org/home/", "ranker/work/x",
                 "~/work/x", "tempfile.mkdtemp()"):
        assert not MACHINE_PATH.search(text), text


def test_no_tracked_file_names_a_machine_path():
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for name, text in _tracked_text_files() if name != "tests/test_no_machine_paths.py"
             for m in MACHINE_PATH.finditer(text)]
    assert not found, "absolute machine paths (make them arguments or relative to the project):\n" + \
        "\n".join(found)
