"""``ranker serve users`` and the server's refusal to listen beyond loopback without accounts (processes of their own)."""
import http.cookiejar
import re
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest
from ranker_forked import run_forked
from test_command import ENV, ROOT, _one_line_error, _ranker

from ranker.serve.users import read_users

pytestmark = pytest.mark.slow


def _users(*argv, password: str | None = None):
    """``ranker serve users ARGV``, the password piped to its standard input, in a process of its own
    forked from this one with its imports done (:mod:`ranker_forked`)."""
    return run_forked(["serve", "users", *argv], cwd=ROOT, timeout=60, input=password)


def _new_store(path):
    """An empty store: ``users add --store S`` refuses a store that is not there (issue 36, item 11)."""
    from ranker.store import Store

    with Store.open(path):
        pass
    return path


def test_users_add_list_remove_with_the_password_from_stdin(tmp_path):
    store = _new_store(tmp_path / "s.sqlite")
    got = _users("add", "ann", "--store", store, password="a-long-secret\n")
    assert got.returncode == 0 and f"{store}.users: account ann (annotator)" in got.stdout, got.stderr
    got = _users("add", "boss", "--role", "adjudicator", "--users", f"{store}.users", password="boss-secret-9")
    assert got.returncode == 0, got.stderr
    assert _users("list", "--store", store).stdout.splitlines() == ["ann\tannotator", "boss\tadjudicator"]
    assert "a-long-secret" not in (tmp_path / "s.sqlite.users").read_text()
    assert _users("remove", "ann", "--store", store).returncode == 0
    assert list(read_users(f"{store}.users")) == ["boss"]


def test_issue_36_ten_accounts_added_at_once_are_all_kept(tmp_path):
    """Ten ``serve users add`` at once each read the file, added one account and wrote it whole: one
    survived. Each now holds the file's lock from reading to writing."""
    store = _new_store(tmp_path / "s.sqlite")
    procs = [subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", "users", "add", f"user{i}",
                               "--store", str(store)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT) for i in range(10)]
    for i, proc in enumerate(procs):   # the passwords only once all ten are running
        proc.stdin.write(f"secret-of-user{i}\n")
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    users = read_users(f"{store}.users")
    assert sorted(users) == sorted(f"user{i}" for i in range(10))
    from werkzeug.security import check_password_hash

    assert all(check_password_hash(u.hash, f"secret-of-{u.name}") for u in users.values())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite", "s.sqlite.users", "s.sqlite.users.lock"]


@pytest.mark.parametrize("argv, password, says", [
    (("add", "ann"), "short\n", "at least 8 characters"),
    (("add", "anon-12"), "a-long-secret\n", "names starting 'anon-'"),
    (("add", "a/b"), "a-long-secret\n", "account name 'a/b'"),
    (("remove", "nobody"), None, "no account 'nobody'"),
])
def test_users_errors_are_one_line(tmp_path, argv, password, says):
    _one_line_error(_users(*argv, "--users", tmp_path / "u", password=password), says)
    assert not (tmp_path / "u").exists()


def test_beyond_loopback_the_server_refuses_to_start_without_accounts(store_path, tmp_path):
    _one_line_error(_ranker("serve", "--store", str(store_path), "--host", "0.0.0.0", "--port", "0"),
                    "--host 0.0.0.0 lets other machines in", "ranker serve users add NAME")
    _one_line_error(_ranker("serve", "--store", str(store_path), "--public-read"), "needs accounts")
    _one_line_error(_ranker("serve", "--store", str(store_path), "--users", str(tmp_path / "none")),
                    "no such file")


def test_with_accounts_the_command_serves_and_attributes_to_the_account(store_path, tmp_path, test_sentence):
    from ranker.store import Store

    users = tmp_path / "team.users"
    assert _users("add", "ann", "--users", users, password="a-long-secret\n").returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", "--store", str(store_path),
                             "--users", str(users), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        assert f"accounts of {users}" in line, line + proc.stderr.read()
        base = "http://" + line.split("http://", 1)[1].split("/", 1)[0]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        login = opener.open(f"{base}/sentence?id={urllib.parse.quote(test_sentence)}", timeout=30)
        assert "/login" in login.url
        page = login.read().decode()
        form = {"name": "ann", "password": "a-long-secret", "token": re.search(r'name="token" value="([^"]+)"',
                                                                              page).group(1),
                "next": re.search(r'name="next" value="([^"]+)"', page).group(1)}
        page = opener.open(f"{base}/login", data=urllib.parse.urlencode(form).encode(), timeout=30).read().decode()
        assert 'id="signed-in">ann<' in page
        key = re.search(r'<tr data-key="([^"]+)"', page).group(1)
        data = {"id": test_sentence, "key": key, "accept": "1",
                "token": re.search(r'name="token" value="([^"]+)"', page).group(1)}
        opener.open(f"{base}/decide", data=urllib.parse.urlencode(data).encode(), timeout=30).read()
        with Store.open(store_path) as st:
            assert [d.who for d in st.decisions(test_sentence)] == ["ann"]
            st.undo_decision(test_sentence)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_without_flask_users_add_names_the_extra(tmp_path):
    code = ("import sys; sys.modules['flask'] = None; sys.modules['werkzeug.security'] = None\n"
            "from ranker.cli.main import main; sys.exit(main(sys.argv[1:]))")
    _one_line_error(_ranker("serve", "users", "add", "ann", "--users", str(tmp_path / "u"), code=code),
                    "pip install 'ranker[serve]'")
    assert not (tmp_path / "u").exists()
