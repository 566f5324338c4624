"""A report broken down by document group ([report] group_documents): GUM's genres, say."""
import pytest

from ranker.pipeline.config import ConfigError, config_from_dict
from ranker.pipeline.report import Report, report_to_json, report_to_markdown
from ranker.pipeline.stages.evaluation import document_groups
from ranker.pipeline.tables import BreakdownGroup
from ranker.pipeline.validate import validate_config
from ranker.store.records import Sentence


def _s(doc):
    return Sentence(f"gum/{doc}/0", "gum", doc, 0, ("a",), ("DT",))


def test_the_first_group_of_the_pattern_names_a_documents_group():
    docs = ["GUM_news_iodine.ptb", "GUM_bio_byron.ptb", "wsj_0001.mrg"]
    assert document_groups([_s(d) for d in docs], "GUM_([a-z]+)_") == ["news", "bio", "other"]


@pytest.mark.parametrize("pattern, why", [("GUM_(", "not a regular expression"), ("GUM_", "needs a group")])
def test_a_pattern_that_cannot_name_groups_is_refused_naming_the_key(tmp_path, pattern, why):
    cfg = config_from_dict({"experiment": {"store": str(tmp_path / "s.sqlite")},
                            "report": {"group_documents": pattern}}, "g.toml")
    with pytest.raises(ConfigError, match=f"g.toml: .report. group_documents.*{why}"):
        validate_config(cfg)


def test_the_breakdown_is_in_the_report_only_when_asked_for():
    plain = Report("x", {})
    assert "by_group" not in report_to_json(plain) and "document group" not in report_to_markdown(plain)
    grouped = Report("x", {}, by_group=[BreakdownGroup("news", 3, 100.0, {})])
    assert report_to_json(grouped)["by_group"][0]["group"] == "news"
    assert "## Breakdown by document group" in report_to_markdown(grouped)
