"""The ``ranker serve`` command: help, one-line errors, and the real server on loopback in a subprocess."""
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from ranker_forked import run_forked

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _ranker(*argv, code: str | None = None, timeout=60):
    """``ranker ARGV`` in a process of its own, from the project folder: forked from this one with its
    imports done (:mod:`ranker_forked`; a new interpreter's start is not what these tests test), or,
    given ``code`` (Python to run instead of ranker's ``main``, such as one hiding Flask), a new
    interpreter started with it."""
    if code is None:
        return run_forked(argv, cwd=ROOT, timeout=timeout)
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=ENV,
                          timeout=timeout, cwd=ROOT)


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


@pytest.mark.slow   # quick tier under a minute (issue 35, item 8): seconds of real work, CI runs it
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


@pytest.mark.slow   # quick tier under a minute (issue 47, item 5): CI runs it
def test_issue_24_a_port_in_use_is_a_one_line_error(store_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        _one_line_error(_ranker("serve", "--store", str(store_path), "--port", str(port)),
                        f"cannot listen on 127.0.0.1:{port}", "in use")


def _serving(store, *argv):
    """``ranker serve --store STORE --port 0 ARGV`` in a subprocess, and its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", "--store", str(store), "--port", "0",
                             *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    line = proc.stdout.readline()
    assert "http://127.0.0.1:" in line, line + proc.stderr.read()
    return proc, "http://" + line.split("http://", 1)[1].split("/", 1)[0]


def _decide_over_http(url, sid, n):
    """Answer the first discriminant of ``sid``'s page ``n`` times, as a browser would; the keys answered."""
    import http.cookiejar
    import re
    import urllib.parse

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    answered = []
    for _ in range(n):
        page = opener.open(f"{url}/sentence?{urllib.parse.urlencode({'id': sid})}", timeout=30).read().decode()
        token = re.search(r'name="token" value="([^"]+)"', page).group(1)
        key = re.search(r'data-key="([^"]+)"', page).group(1)
        data = urllib.parse.urlencode({"id": sid, "key": key, "accept": "0", "token": token}).encode()
        with opener.open(f"{url}/decide", data=data, timeout=30) as r:
            assert r.status == 200
        answered.append(key)
    return answered


@pytest.mark.slow
def test_a_server_stopped_by_sigterm_leaves_every_decision_in_the_sqlite_file_alone(built_store, tmp_path,
                                                                                    test_sentence):
    """Regression: stopped by a signal, the server left its decisions only in the -wal file."""
    import signal

    store = tmp_path / "live" / "store.sqlite"
    store.parent.mkdir()
    shutil.copy(built_store, store)
    proc, url = _serving(store)
    try:
        answered = _decide_over_http(url, test_sentence, 3)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "stopped" in out
    alone = tmp_path / "copied" / "store.sqlite"   # the .sqlite file alone, as a careless copy takes it
    alone.parent.mkdir()
    shutil.copy(store, alone)
    from ranker.sources.discriminants import span_key
    from ranker.store import Store

    with Store.open(alone, readonly=True) as st:
        got = [span_key(d.label, d.start, d.end) for d in st.decisions(test_sentence)]
    assert got == answered


@pytest.mark.slow
def test_store_backup_copies_a_store_being_served_with_its_latest_decisions(built_store, tmp_path, test_sentence):
    store = tmp_path / "store.sqlite"
    shutil.copy(built_store, store)
    proc, url = _serving(store)
    try:
        answered = _decide_over_http(url, test_sentence, 2)
        got = _ranker("store", "backup", str(store), str(tmp_path / "copy.sqlite"))   # while serving
        assert got.returncode == 0 and "copied to" in got.stdout, got.stderr
        again = _ranker("store", "backup", str(store), str(tmp_path / "copy.sqlite"))
        _one_line_error(again, "copy.sqlite: already exists")
        _one_line_error(_ranker("store", "backup", str(store), str(tmp_path / "nodir" / "x.sqlite")), "no such folder")
        _one_line_error(_ranker("store", "backup", str(tmp_path / "none.sqlite"), str(tmp_path / "y.sqlite")),
                        "no such store")
    finally:
        proc.kill()   # not even a clean stop: the backup must not depend on it
        proc.wait(timeout=30)
    assert not (tmp_path / "copy.sqlite-wal").exists()
    from ranker.sources.discriminants import span_key
    from ranker.store import Store

    with Store.open(tmp_path / "copy.sqlite", readonly=True) as st:
        assert [span_key(d.label, d.start, d.end) for d in st.decisions(test_sentence)] == answered
        assert st.stats() == Store.open(store, readonly=True).stats()
