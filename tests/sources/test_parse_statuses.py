"""Issue 45 (done when): parse statuses by sentence length, and the parse bar's time left."""
import pytest

from ranker.pipeline.report import Report, report_to_html, report_to_markdown
from ranker.pipeline.run_counts import RunCounts
from ranker.sources.parse_progress import TimeLeft, clock
from ranker.sources.parse_statuses import BIN_LABELS, format_table, length_bin, statuses_by_length, table_rows


@pytest.mark.parametrize("tokens, label", [(0, "1-10"), (1, "1-10"), (10, "1-10"), (11, "11-20"), (20, "11-20"),
                                           (21, "21-40"), (40, "21-40"), (41, "41-60"), (60, "41-60"),
                                           (61, "61+"), (250, "61+")])
def test_every_length_has_one_bin(tokens, label):
    assert length_bin(tokens) == label
    assert BIN_LABELS == ("1-10", "11-20", "21-40", "41-60", "61+")


def test_statuses_are_counted_by_bin_in_order_and_the_table_adds_all_and_the_timeout_share():
    pairs = [("timeout", 70), ("full", 5), ("crash", 65), ("full", 8), ("fragment", 12), ("timeout", 45),
             ("full", 44), ("timeout", 90)]
    table = statuses_by_length(pairs)
    assert table == {"1-10": {"full": 2}, "11-20": {"fragment": 1}, "41-60": {"full": 1, "timeout": 1},
                     "61+": {"timeout": 2, "crash": 1}}
    assert list(table) == ["1-10", "11-20", "41-60", "61+"]   # bins in order, the empty one left out
    header, rows = table_rows(table)
    assert header == ["tokens", "full", "fragment", "timeout", "crash", "timeout %", "sentences"]
    assert rows[-2] == ["61+", "0", "0", "2", "1", "66.7", "3"]
    assert rows[-1] == ["all", "3", "1", "3", "1", "37.5", "8"]
    lines = format_table(table)
    assert len(lines) == 6 and lines[0].split() == header[:5] + ["timeout", "%", "sentences"]
    assert format_table({}) == []


def test_the_run_report_holds_the_table_in_markdown_json_and_html():
    from ranker.pipeline.report import report_to_json

    counts = RunCounts(parse_statuses={"1-10": {"full": 9}, "61+": {"timeout": 3, "full": 1}})
    report = Report("x", {}, counts=counts)
    md = report_to_markdown(report)
    assert "## Parse statuses by sentence length" in md
    assert "| 61+ | 1 | 3 | 75.0 | 4 |" in md.replace("  ", " ")
    assert report_to_json(report)["counts"]["parse_statuses"] == {"1-10": {"full": 9}, "61+": {"timeout": 3, "full": 1}}
    assert "<h2>Parse statuses by sentence length</h2>" in report_to_html(report, {})
    assert "Parse statuses" not in report_to_markdown(Report("x", {}))   # forests read from files: no table


def test_time_left_predicts_the_sentences_left_from_their_lengths_not_the_rate_so_far():
    """Longest first: after the long sentences the rate so far is slow; what is left is short."""
    left = TimeLeft([80, 80, 60, 10, 10, 10, 10, 10, 10, 10, 10], budget=30)
    assert left.seconds_left(0.0) is None and left.describe(0.0) == "time left: estimating"
    for tokens, seconds in ((80, 20.0), (80, 20.0), (60, 9.0)):
        left.done(tokens, seconds)
    # one worker: 49 s of wall for 49 s of parsing; a law of length from the bands of 60 and 80 tokens
    # predicts the eight sentences of 10 tokens at well under a second each
    predicted = left.seconds_left(49.0)
    assert 0 < predicted < 8.0, predicted
    assert predicted < 8 * 49.0 / 3   # what a rate of sentences so far would say: 130 s
    # two workers finish twice the parse seconds in the same wall time: half the wall time left
    assert left.seconds_left(24.5) == pytest.approx(predicted / 2)
    left.done(10, 0.2)   # a band with a sentence done predicts its own from its mean
    assert left.predicted_seconds() == pytest.approx(7 * 0.2)
    for _ in range(7):
        left.done(10, 0.2)
    assert left.seconds_left(60.0) == 0.0 and left.describe(60.0) == "about 0:00 left"


def test_no_sentence_is_predicted_beyond_its_budget():
    left = TimeLeft([10, 200, 200], budget=10)
    left.done(10, 1.0)   # the power law alone would give a 200-token sentence 400 s
    assert left.predicted_seconds() == pytest.approx(2 * (10 * 1.1 + 0.5))


def test_clock():
    assert (clock(5), clock(65.4), clock(3725)) == ("0:05", "1:05", "1:02:05")


def _replayed(lengths, seconds_of, budget, workers=2):
    """A parse dealt longest first to ``workers``: ``(finish time, tokens, seconds)`` in finish order."""
    import heapq

    free = [(0.0, w) for w in range(workers)]
    events = []
    for n in sorted(lengths, reverse=True):
        t, w = heapq.heappop(free)
        events.append((t + seconds_of(n), n, seconds_of(n)))
        heapq.heappush(free, (t + seconds_of(n), w))
    return sorted(events)


def test_time_left_is_not_hours_while_only_sentences_at_the_budget_are_done():
    """Regression (issue 45): GUM's bar read "about 4:52:01 left" for a 10-minute parse while the first
    sentences done, the longest, all took their budget: a law of length fitted to bands at the budget
    is flat, and predicted 10,000 short sentences at seconds each."""
    budget = 10.0
    lengths = [n for n in range(1, 121) for _ in range(max(1, int(400 * 0.93 ** n)))] + [150, 180, 200]

    def seconds_of(n):
        return min(budget, 5e-6 * n ** 3)

    events = _replayed(lengths, seconds_of, budget)
    end = events[-1][0]
    left = TimeLeft(lengths, budget)
    ratios = []
    for i, (t, n, s) in enumerate(events, 1):
        left.done(n, s)
        if i in (3, 10, 30, 100, 300, 1000, 2000):
            ratios.append(left.seconds_left(t) / (end - t))
    assert seconds_of(lengths[-1]) == budget and len(lengths) > 3000
    assert all(0.5 < r < 2.0 for r in ratios), ratios
