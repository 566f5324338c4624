"""Tree drawings: each bracket's class against the other tree, and drawings of any depth."""
import re

from ranker.serve.svg import CROSSING, DIFFERENT, EXTRA, MATCHED, MISSING, compare_brackets, crosses, tree_svg
from ranker.trees.penn import parse_tree

GOLD = parse_tree("(S (NP-SBJ (DT the) (NN man)) (VP (VBD saw) (NP (NP (DT a) (NN dog)) (PP (IN with) (NP (NN fleas))))))")
# PP attached to the verb: the NP "a dog with fleas" is missing, the VP's inner span is extra
CAND = parse_tree("(S (NP (DT the) (NN man)) (VP (VP (VBD saw) (NP (DT a) (NN dog))) (PP (IN with) (NP (NN fleas)))))")


def test_crossing_spans_overlap_without_nesting():
    assert crosses((0, 3), (2, 5)) and crosses((2, 5), (0, 3))
    assert not crosses((0, 5), (2, 3)) and not crosses((0, 2), (2, 4)) and not crosses((1, 3), (1, 3))


def test_candidate_brackets_against_gold():
    got = compare_brackets(CAND, GOLD)
    assert got[("NP", 0, 2)] == MATCHED          # gold's NP-SBJ: function tags are ignored
    assert got[("S", 0, 7)] == MATCHED
    assert got[("PP", 5, 7)] == MATCHED
    assert got[("VP", 2, 5)] == CROSSING         # crosses gold's NP (3, 7)
    assert got[("NP", 3, 5)] == MATCHED


def test_gold_brackets_against_a_candidate_are_missing_or_crossing():
    got = compare_brackets(GOLD, CAND, MISSING)
    assert got[("NP", 3, 7)] == CROSSING         # crosses the candidate's VP (2, 5)
    assert got[("NP-SBJ", 0, 2)] == MATCHED
    assert set(got.values()) <= {MATCHED, CROSSING, MISSING}


def test_two_candidates_mark_what_the_other_lacks():
    other = parse_tree("(S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NN dog) (PP (IN with) (NP (NN fleas))))))")
    got = compare_brackets(CAND, other, DIFFERENT)
    assert got[("NP", 0, 2)] == MATCHED and got[("VP", 2, 5)] == CROSSING
    got = compare_brackets(other, CAND, DIFFERENT)
    assert got[("VP", 2, 7)] == MATCHED and got[("NP", 3, 7)] == CROSSING
    assert compare_brackets(CAND, None) == {}


def test_the_drawing_has_every_word_label_and_class():
    svg = tree_svg(CAND, compare_brackets(CAND, GOLD), "candidate <1>")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    words = re.findall(r'class="word">([^<]+)</text>', svg)
    assert words == list(CAND.words)
    assert svg.count('class="crossing"') == 1 and svg.count('class="tag"') == 7
    assert 'aria-label="candidate &lt;1&gt;"' in svg   # escaped, like every word and label


def test_words_and_labels_are_escaped():
    t = parse_tree('(S (NP (NN <b>)) (VP (VB "&")))')
    svg = tree_svg(t, {}, "")
    assert "<b>" not in svg and "&lt;b&gt;" in svg and "&amp;" in svg


def test_a_very_deep_tree_is_drawn_without_recursion():
    depth = 3000
    text = "(S " * depth + "(NN x)" + ")" * depth
    svg = tree_svg(parse_tree(text), {}, "deep")
    assert svg.count("<text") == depth + 2   # every S, the tag and the word


def test_a_long_label_over_one_word_widens_its_column():
    narrow = tree_svg(parse_tree("(S (VP (VBZ is) (RB now)))"), {}, "")
    wide = tree_svg(parse_tree("(S (VP (VBZ is) (ADVP-TMP (RB now))))"), {}, "")
    width = lambda svg: float(re.search(r'width="([\d.]+)"', svg).group(1))
    xs = lambda svg: [float(x) for x in re.findall(r'<text x="([\d.]+)"[^>]*class="word"', svg)]
    assert width(wide) > width(narrow)
    (is_, now) = xs(wide)
    assert now - is_ >= (len("VBZ") + len("ADVP-TMP")) * 7.2 / 2   # the two labels do not overlap


def test_the_vertical_layout_is_as_wide_as_the_tree_is_deep_with_the_same_classes_and_spans():
    import re

    from ranker.serve.svg import tree_svg, wide_width
    from ranker.trees.penn import parse_tree

    words = " ".join(f"(NP (DT the) (NN word{k}))" for k in range(40))
    tree = parse_tree(f"(S {words} (. .))")
    wide, tall = tree_svg(tree, {("NP", 0, 2): "matched"}), tree_svg(tree, {("NP", 0, 2): "matched"}, vertical=True)
    width = lambda svg: float(re.search(r'width="([\d.]+)"', svg).group(1))   # noqa: E731
    assert width(wide) == round(wide_width(tree)) > 2000 and width(tall) < 250
    spans = lambda svg: sorted(re.findall(r'class="(\w+)" data-span="([\d-]+)"', svg))   # noqa: E731
    assert spans(tall) == spans(wide) and ("matched", "0-2") in spans(tall)
    assert re.findall(r'class="word">([^<]+)<', tall) == list(tree.words)
