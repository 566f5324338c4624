"""The ``ranker serve`` command: help, one-line errors, and the real server on loopback in a subprocess."""
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _ranker(*argv, code: str | None = None, timeout=60):
    cmd = [sys.executable, "-c", code or "import sys; from ranker.cli.main import main; sys.exit(main(sys.argv[1:]))",
           *argv]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout, cwd=ROOT)


@pytest.mark.slow
def test_help_names_every_option_and_the_safe_defaults():
    out = _ranker("serve", "--help").stdout
    for opt in ("--store", "--source", "--model", "--host", "--port", "--read-only"):
        assert opt in out
    assert "default 127.0.0.1" in out and "default 8000" in out and "serve' extra" in out.replace("\n", " ")


def _one_line_error(proc, *says):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ranker: error: "), proc.stderr
    for s in says:
        assert s in lines[0]


@pytest.mark.slow
def test_without_flask_the_error_names_the_extra(store_path):
    code = ("import sys; sys.modules['flask'] = None\n"   # as if Flask were not installed
            "from ranker.cli.main import main; sys.exit(main(sys.argv[1:]))")
    _one_line_error(_ranker("serve", "--store", str(store_path), code=code), "pip install 'ranker[serve]'")


@pytest.mark.slow
def test_bad_store_model_and_port_are_one_line_errors(store_path, tmp_path):
    _one_line_error(_ranker("serve", "--store", str(tmp_path / "none.sqlite")), "no such store")
    _one_line_error(_ranker("serve", "--store", str(store_path), "--model", "nosuchkey"),
                    "no stored models match 'nosuchkey'")
    _one_line_error(_ranker("serve", "--store", str(store_path), "--port", "70000"), "--port 70000")


@pytest.mark.slow
def test_the_command_serves_on_loopback_until_stopped(store_path):
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", "--store", str(store_path),
                             "--port", "0", "--read-only"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line and "(read-only)" in line, line + proc.stderr.read()
        url = line.split("http://", 1)[1].split("/", 1)[0]
        with urllib.request.urlopen(f"http://{url}/sentences?corpus=treebank&split=test", timeout=20) as r:
            html = r.read().decode()
        assert r.status == 200 and 'id="read-only"' in html
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _first_line(*argv):
    """The first line ``ranker serve ARGV --port 0 --read-only`` prints, and its stderr if it ended."""
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", *map(str, argv), "--port", "0",
                             "--read-only"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    try:
        return proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_issue_24_serve_source_names_the_candidates_of_a_store_with_two_sources(built_store, tmp_path):
    store = tmp_path / "two.sqlite"
    shutil.copy(built_store, store)
    got = _ranker("import", "--store", str(store), "--format", "bllip", "--source", "again",
                  str(built_store.parent / "test.nbest"))
    assert got.returncode == 0, got.stderr
    _one_line_error(_ranker("serve", "--store", str(store)), "candidates of 2 sources (again, bllip)",
                    "name one with --source")
    _one_line_error(_ranker("serve", "--store", str(store), "--source", "nosuch"),
                    "no candidates from source 'nosuch' (stored: again, bllip)")
    for source in ("bllip", "again"):
        line = _first_line("--store", store, "--source", source)
        assert "http://127.0.0.1:" in line and f"candidates of {source}" in line, line


def test_issue_24_a_port_in_use_is_a_one_line_error(store_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        _one_line_error(_ranker("serve", "--store", str(store_path), "--port", str(port)),
                        f"cannot listen on 127.0.0.1:{port}", "in use")
