"""Issue 10: trees 1,000 to 100,000 levels deep score in every scheme, without RecursionError.

Every walk over a tree is iterative; the shapes below are the three ways to be deep (a right- or
left-branching spine, a unary chain). Expected counts follow from the shapes: over n words a
right-branching tree has the brackets [i, n) and a left-branching one [0, j); they share only
[0, n), and every other left-branching bracket crosses [1, n).
"""
import json
import random
import sys

import pytest

from ranker.cli.main import main
from ranker.registries import SCHEMES as REGISTERED
from ranker.evaluation.evalb import _greedy_matches
from ranker.evaluation.evalb_params import EvalbParams
from ranker.trees.penn import format_tree, parse_tree
from ranker.trees.tree import equal_trees

SCHEMES = REGISTERED.names(bare=True)   # every --scheme of ranker evaluate


def right(n):
    return "".join(f"(X (NN w{i}) " for i in range(n - 1)) + f"(NN w{n - 1})" + ")" * (n - 1)


def left(n):
    return "(X " * (n - 1) + "(NN w0)" + "".join(f" (NN w{i}))" for i in range(1, n))


def unary(n):
    return "(S " * n + "(NN a)" + ")" * n


def _json(capsys, *argv):
    assert main(["evaluate", *map(str, argv), "--format", "json"]) == 0
    return json.loads(capsys.readouterr()[0])


@pytest.mark.parametrize("shape", [right, left, unary])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_deep_tree_against_itself_in_every_scheme(tmp_path, capsys, shape, scheme):
    n = 3000                       # three times Python's default recursion limit
    assert n > sys.getrecursionlimit()
    (tmp_path / "t").write_text(shape(n) + "\n")
    extra = ("--keys-as-given",) if scheme == "flat" else ()
    r = _json(capsys, tmp_path / "t", tmp_path / "t", "--scheme", scheme, *extra)
    assert r["sentences"] == 1 and r["recall"] == r["precision"] == 100.0
    assert r["gold_brackets"] == r["test_brackets"] == r["matched"]


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["evalb", "parseval", "flat"])
def test_right_against_left_branching_counts(tmp_path, capsys, scheme):
    n = 20000
    (tmp_path / "g").write_text(right(n) + "\n")
    (tmp_path / "t").write_text(left(n) + "\n")
    extra = ("--keys-as-given",) if scheme == "flat" else ()
    r = _json(capsys, tmp_path / "g", tmp_path / "t", "--scheme", scheme, *extra)
    assert (r["gold_brackets"], r["test_brackets"], r["matched"]) == (n - 1, n - 1, 1)
    # flat counts violated KEY constituents: every right-branching [i, n), 1 < i < n - 1, is
    # crossed by [0, i + 1); [1, n) by [0, 2) as well
    assert r["crossing"] == n - 2


def test_ranker_evalb_on_100000_levels(tmp_path, capsys):
    n = 100000
    (tmp_path / "g").write_text(right(n) + "\n")
    (tmp_path / "t").write_text(left(n) + "\n")
    assert main(["evalb", "-p", "COLLINS", str(tmp_path / "g"), str(tmp_path / "t")]) == 0
    line = capsys.readouterr()[0].splitlines()[3].split()
    # ID, length, status, recall, precision, matched, gold, test, crossing, words, tags
    assert line[:3] == ["1", str(n), "0"] and line[5:10] == ["1", str(n - 1), str(n - 1), str(n - 2), str(n)]


@pytest.mark.slow
def test_deep_tree_reads_writes_and_compares():
    t = parse_tree(right(100000))
    assert format_tree(t) == right(100000)
    assert equal_trees(t, parse_tree(right(100000))) and not equal_trees(t, parse_tree(left(100000)))
    # indented text grows with the square of the depth (10 GB at 100,000 levels): 3,000 here
    assert format_tree(parse_tree(right(3000)), indent=1).count("\n") == 2 * (3000 - 2)


def test_greedy_matching_is_evalbs_scan():
    """The queued matching of :func:`_greedy_matches` against EVALB's scan, on random brackets."""

    def scan(gb, tb, params):       # evalb.c's loop as written (quadratic)
        free = [True] * len(tb)
        matched = 0
        for s, e, g in gb:
            for k, (ts, te, t) in enumerate(tb):
                if free[k] and (s, e) == (ts, te) and (not params.labeled or params.label_equal(g, t)):
                    free[k] = False
                    matched += 1
                    break
        return matched

    rng = random.Random(7)
    for _ in range(5000):
        eq = tuple((rng.choice("ABCD"), rng.choice("ABCD")) for _ in range(rng.randint(0, 3)))
        params = EvalbParams(labeled=rng.random() < 0.8, eq_labels=eq)
        gb, tb = ([(rng.randint(0, 2), rng.randint(3, 4), rng.choice("ABCD"))
                   for _ in range(rng.randint(0, 8))] for _ in range(2))
        assert _greedy_matches(gb, tb, params) == scan(gb, tb, params)
