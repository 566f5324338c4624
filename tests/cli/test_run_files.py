"""Issue 10: a full disk while ``ranker run`` writes its files names the file and leaves none half written.

The full disk is ``RLIMIT_FSIZE`` with SIGXFSZ ignored (writes past the limit fail with EFBIG, as
on a full disk), set in a real child process: ``ranker run`` itself for ``config.resolved.toml``
(written before the store is opened), and the report writer of ``ranker run`` for the report
files, whose store work needs more room than the limit that catches them.
"""
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile

import pytest

from ranker.errors import RankerError
from ranker.pipeline.report import MetricTable, Plot, RankerScore, Report, write_report
from ranker.pipeline.run_counts import RunCounts

TINY = "tests/pipeline/configs/tiny.toml"


def _limit(limit_bytes):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))


def _one_line_error(stderr: str, *parts: str) -> None:
    assert stderr.startswith("ranker: error: ") and stderr.count("\n") == 1, stderr
    for p in parts:
        assert p in stderr, stderr


@pytest.mark.slow
def test_a_full_disk_writing_the_resolved_config_names_it_and_leaves_the_old_one(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "config.resolved.toml").write_text("precious\n")
    r = subprocess.run([sys.executable, "-m", "ranker.cli.main", "run", TINY, "--store", str(tmp_path / "s.sqlite"),
                        "--out", str(out)], capture_output=True, text=True, env=dict(os.environ),
                       preexec_fn=lambda: _limit(500))   # the resolved config has about 900 bytes
    assert r.returncode == 2
    _one_line_error(r.stderr, str(out / "config.resolved.toml"), "File too large")
    assert (out / "config.resolved.toml").read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["config.resolved.toml", "out"]   # no store, no temp


def _report(name: str) -> Report:
    t = MetricTable("mph", "MPH F", 85.0, 60.0, {"native": RankerScore(68.5, 34.0, (66.0, 71.0), None, None)}, 413)
    return Report(name, {"mph": t}, counts=RunCounts(sentences={"test": 413}),
                  plots=[Plot("forest", "Score against forest size", "candidates", "F",
                              {"oracle": ((1.0, 10.0), (90.0, 80.0))}, "log")])


def _write_report_limited(report: Report, out, limit_bytes: int) -> tuple[int, str]:
    """:func:`write_report` in a forked child under a file size limit: (exit status, its error line)."""
    with tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:   # pragma: no cover (runs in the child)
            code = 99
            try:
                _limit(limit_bytes)
                write_report(report, out)
                code = 0
            except RankerError as e:
                os.write(err.fileno(), f"ranker: error: {e}\n".encode())
                code = 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode()


@pytest.mark.slow
def test_a_full_disk_writing_the_report_names_the_file_and_leaves_none_half_written(tmp_path):
    old = write_report(_report("old"), tmp_path)
    before = {k: p.read_bytes() for k, p in old.items()}
    assert len(before["html"]) > 25_000 > max(len(before["md"]), len(before["json"]))   # the plot is embedded
    code, err = _write_report_limited(_report("new"), tmp_path, 25_000)
    assert code == 2
    _one_line_error(err, str(tmp_path / "report.html"), "File too large")
    # the files before report.html were written whole, report.html is the old one, no temporary file is left
    assert old["md"].read_text().startswith("# Parse selection report: new\n")
    assert json.loads(old["json"].read_text())["name"] == "new"
    assert old["html"].read_bytes() == before["html"]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["forest.png", "plots", "report.html", "report.json",
                                                           "report.md"]
