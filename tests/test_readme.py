"""The README's test command is exactly what CI runs, and its commands exist."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_readme_test_command():
    readme = ROOT.joinpath("README.md").read_text()
    ci = [ln.strip() for ln in ROOT.joinpath(".ci/run").read_text().splitlines()
          if ln.strip() and not ln.startswith("#") and not ln.startswith(("set ", "cd "))]
    assert len(ci) == 1 and ci[0] in readme


def test_readme_main_job_config_exists_and_loads():
    from ranker.pipeline.config import load_config

    readme = ROOT.joinpath("README.md").read_text()
    assert "ranker run configs/wsj-sample.toml" in readme
    for name in ("wsj-sample", "quickstart", "wsj-sample-chunks", "wsj-sample-bllip",
                 "wsj-sample-bllip-riezler"):
        load_config(ROOT / "configs" / f"{name}.toml")


def test_every_readme_subcommand_is_registered():
    from ranker.cli.main import build_parser

    choices = build_parser()._subparsers._group_actions[0].choices
    for cmd in ("run", "evalb", "parse", "import", "annotate", "store", "train", "select", "score"):
        assert f"ranker {cmd}" in ROOT.joinpath("README.md").read_text()
        assert cmd in choices
