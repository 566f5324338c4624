"""Partial bracketings and the consistent sets X(y, z) they pick out of each forest.

Crouch et al. (2002, section 2.1) train from a stripped-down treebank that keeps only brackets
reliable for grammatical relations: every ``-SBJ`` phrase, NP under VP (objects), every ``-LGS``
(logical subject of passives) and ``-PRD`` (predicative) phrase, VP under VP, and SBAR. Their
example, ``wsj_1305``: *[NP-SBJ His credibility] is also [PP-PRD on the line] in the investment
community*. :func:`riezler_brackets` derives that bracketing from a gold tree. CoNLL-2000 chunks and
user bracket files give other partial bracketings.

A candidate is consistent with an annotation when it contains every annotated span with an
equivalent label (and so crosses none) and none of its rejected spans (a person's ``user``
decisions, :mod:`.discriminants`); :func:`check_candidate` counts the annotated brackets it fails
(``missing``) and those it crosses (``crossing``). The store turns the counts into X(y, z).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, NamedTuple

from ..errors import RankerError
from ..shipped import shipped_dir
from ..store.records import Annotation, Bracket
from ..textfiles import read_text
from ..trees.penn import parse_tree
from ..trees.transforms import base_label, function_tags
from ..trees.tree import Tree

DEFAULT_EQUIVALENCES = shipped_dir("labels") / "annotation-equivalences.tsv"
_KEPT_TAGS = ("SBJ", "LGS", "PRD")


def riezler_brackets(gold: Tree) -> tuple[Bracket, ...]:
    """The labelled partial bracketing of Crouch et al. section 2.1 derived from a gold tree.

    Kept: phrases with function tag SBJ, LGS or PRD (labelled ``BASE-TAG``, e.g. ``NP-SBJ``,
    ``PP-PRD``), NP directly under VP (``NP``), VP directly under VP (``VP``) and every SBAR
    (``SBAR``). Verb tags under VP are tags, not brackets, and candidates carry gold tags anyway.

    Parameters
    ----------
    gold
        A gold tree with function tags, empty elements already removed.

    Returns
    -------
    tuple of Bracket
        Distinct brackets sorted by start, then widest first.
    """
    out: set[Bracket] = set()

    def visit(n, parent_base: str | None) -> None:
        if n.is_preterminal:
            return
        base = base_label(n.label)
        tags = function_tags(n.label)
        kept = next((t for t in _KEPT_TAGS if t in tags), None)
        if kept:
            out.add(Bracket(f"{base}-{kept}", n.start, n.end))
        elif base == "NP" and parent_base == "VP":
            out.add(Bracket("NP", n.start, n.end))
        elif base == "VP" and parent_base == "VP":
            out.add(Bracket("VP", n.start, n.end))
        elif base == "SBAR":
            out.add(Bracket("SBAR", n.start, n.end))
        for c in n.child_nodes():
            visit(c, base)

    visit(gold.root, None)
    return tuple(sorted(out, key=lambda b: (b.start, -b.end, b.label or "")))


class LabelEquivalences:
    """Which candidate labels count as an annotated label (after stripping function tags)."""

    def __init__(self, table: dict[str, frozenset[str]] | None = None, labelled: bool = True):
        self.table = table or {}
        self.labelled = labelled

    @classmethod
    def load(cls, path: str | Path = DEFAULT_EQUIVALENCES, labelled: bool = True) -> "LabelEquivalences":
        """Read a two-column TSV (annotated label, candidate labels); ``#`` starts a comment.

        Raises
        ------
        RankerError
            Naming file and line of a malformed row.
        """
        path = Path(path)
        table: dict[str, frozenset[str]] = {}
        for no, line in enumerate(read_text(path, "label equivalence table").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 2 or not cols[0].strip() or not cols[1].split():
                raise RankerError(f"{path}:{no}: expected 'label<TAB>labels...', found {line[:60]!r}")
            table[cols[0].strip()] = frozenset(cols[1].split())
        return cls(table, labelled)

    def accepts(self, annotated: str | None) -> frozenset[str] | None:
        """Candidate base labels that match ``annotated``; None means any label (unlabelled)."""
        if annotated is None or not self.labelled:
            return None
        base = base_label(annotated)
        return self.table.get(base, frozenset({base}))


def candidate_spans(tree: Tree) -> frozenset[tuple[str, int, int]]:
    """The labelled spans ``(base label, start, end)`` a candidate offers to an annotation.

    Labels lose their function tags (``NP-SBJ`` -> ``NP``); preterminals and the unlabelled root
    wrapper are not constituents a candidate can offer.
    """
    return frozenset(_offered(tree))


def _offered(tree: Tree):
    root = tree.root
    for n in root.subtrees():
        if not (n.is_preterminal or (n.label == "" and n is root)):
            yield base_label(n.label), n.start, n.end


def check_candidate(tree: Tree, brackets: Iterable[Bracket], eq: LabelEquivalences) -> tuple[int, int]:
    """``(missing, crossing)``: annotated brackets the candidate fails, and those it crosses.

    An accepted bracket fails when the candidate lacks it (and may cross it); a rejected bracket
    (``accept`` False) fails when the candidate contains it, and is never counted as crossed.
    """
    spans: dict[tuple[int, int], set[str]] = {}
    for label, s, e in _offered(tree):      # candidate_spans without building the set
        spans.setdefault((s, e), set()).add(label)
    missing = crossing = 0
    for b in brackets:
        have = spans.get((b.start, b.end))
        ok = have is not None
        if ok:
            want = eq.accepts(b.label)
            ok = want is None or not want.isdisjoint(have)
        if not b.accept:
            missing += ok
            continue
        if not ok:
            missing += 1
            if any(s < b.start < e < b.end or b.start < s < b.end < e for s, e in spans):
                crossing += 1
    return missing, crossing


def riezler_annotations(gold_items) -> list[Annotation]:
    """Kind ``riezler`` annotations from ``(sentence_id, gold tree)`` pairs."""
    return [Annotation(sid, "riezler", riezler_brackets(tree)) for sid, tree in gold_items]


def read_bracket_file(path: str | Path, kind: str, known_ids=None) -> list[Annotation]:
    """A user bracket file: ``sentence_id <TAB> label <TAB> start <TAB> end [<TAB> accept|reject]`` per line.

    ``label`` ``*`` means unlabelled; ``start``/``end`` are 0-based token offsets, end exclusive;
    the optional fifth column ``reject`` makes a rejected span (a candidate must not contain it, as
    a discriminant a person said no to; :func:`write_bracket_file` writes decisions so);
    ``#`` starts a comment. Brackets of one sentence form one annotation, in file order.

    Raises
    ------
    RankerError
        Naming file and line for a malformed row, an empty label, a bad span, an unknown sentence
        id or a span both accepted and rejected; naming the file when it holds no bracket.
    """
    path = Path(path)
    text = read_text(path, "bracket file")
    by_sentence: dict[str, list[Bracket]] = {}
    said: dict[tuple, tuple[int, bool]] = {}   # (sentence, label, start, end) -> (line, accepted)
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) not in (4, 5):
            raise RankerError(f"{path}:{no}: expected 4 tab-separated columns "
                              f"(sentence_id, label, start, end) and optionally accept or reject, found {len(cols)}")
        sid, label, s, e = (c.strip() for c in cols[:4])
        answer = cols[4].strip() if len(cols) == 5 else "accept"
        if not sid or not label:
            raise RankerError(f"{path}:{no}: an empty {'sentence id' if not sid else 'label'} "
                              "(give a label, or * for an unlabelled span)")
        if answer not in ("accept", "reject"):
            raise RankerError(f"{path}:{no}: the fifth column must be accept or reject, found {answer[:20]!r}")
        try:
            start, end = int(s), int(e)
        except ValueError:
            raise RankerError(f"{path}:{no}: start and end must be integers, found {s!r} {e!r}") from None
        if known_ids is not None:
            n = known_ids.get(sid)
            if n is None:
                raise RankerError(f"{path}:{no}: no stored sentence {sid!r}")
            if not 0 <= start < end <= n:
                raise RankerError(f"{path}:{no}: span [{start}, {end}) is not inside the {n} tokens of {sid}")
        elif not 0 <= start < end:
            raise RankerError(f"{path}:{no}: span [{start}, {end}) is empty or negative")
        before = said.setdefault((sid, label, start, end), (no, answer == "accept"))
        if before[1] != (answer == "accept"):
            raise RankerError(f"{path}:{no}: {sid} {label} [{start}, {end}) is {answer}ed here but "
                              f"{'accepted' if before[1] else 'rejected'} on line {before[0]}")
        by_sentence.setdefault(sid, []).append(Bracket(None if label == "*" else label, start, end,
                                                       answer == "accept"))
    if not by_sentence:
        raise RankerError(f"{path}: no brackets (every line is blank or a # comment): nothing to annotate")
    return [Annotation(sid, kind, tuple(bs)) for sid, bs in by_sentence.items()]


def write_bracket_file(path: str | Path, annotations: Iterable[Annotation], header: str = "") -> int:
    """Write annotations as a bracket file :func:`read_bracket_file` reads back to the same brackets.

    Rejected brackets get the fifth column ``reject``; the file is replaced only once complete.
    Returns the number of brackets written.
    """
    from ..atomicfile import atomic_write

    n = 0
    with atomic_write(path) as out:
        if header:
            out.write("".join(f"# {line}\n" for line in header.splitlines()))
        for a in annotations:
            for b in a.brackets:
                out.write(f"{a.sentence_id}\t{'*' if b.label is None else b.label}\t{b.start}\t{b.end}"
                          f"{'' if b.accept else chr(9) + 'reject'}\n")
                n += 1
    return n


class CheckSummary(NamedTuple):
    """What :func:`check_store` did."""

    sentences: int
    candidates: int


def _check_handler(eq: LabelEquivalences):
    def handle(item):
        sid, brackets, rows = item           # rows: (source, rank, tree text) in forest order
        seen: dict[str, tuple[int, int]] = {}   # equal text, equal tree: check once
        out = []
        for source, rank, text in rows:
            r = seen.get(text)
            if r is None:
                r = seen[text] = check_candidate(parse_tree(text, f"candidate:{sid}:{source}:{rank}"),
                                                 brackets, eq)
            out.append((sid, source, rank, *r))
        return sid, out

    return handle


def _check_failed(item, reason):
    return item[0], RankerError(f"checking {item[0]} failed: {reason}")


def check_store(store, kind: str, eq: LabelEquivalences, recheck: bool = False,
                batch_size: int = 200, progress: bool = False, workers: int = 1,
                source: str | None = None) -> CheckSummary:
    """Check every candidate of every sentence annotated with ``kind`` and store the counts.

    Only candidates never checked are read unless ``recheck`` (needed after changing the label
    equivalences or the annotations). With ``workers`` > 1 the trees are parsed and checked in
    that many processes while this one reads and writes the store. ``source`` limits the check to
    that source's candidates (None: every source's), so a second source kept for its evidence
    (``[evidence]``) is not checked against annotations it is never trained from.
    """
    from ..parallel import run_pool

    if recheck:
        store.clear_annotation_checks(kind)
    todo = sorted({sid for sid, src, _ in store.unchecked_candidates(kind)
                   if source is None or src == source})
    if not todo:
        return CheckSummary(0, 0)
    annotated = store.annotations(kind)
    rows: list[tuple] = []
    n = 0
    bar = None
    if progress:
        from tqdm import tqdm

        tqdm.monitor_interval = 0
        bar = tqdm(total=len(todo), unit="sent", desc=f"check {kind}", dynamic_ncols=True)

    def items():
        for sid in todo:
            yield sid, annotated[sid].brackets, store.candidate_rows(sid, source)

    try:
        if workers > 1:
            results = run_pool(items(), _check_handler, eq, workers, _check_failed)
        else:
            handle = _check_handler(eq)
            results = (handle(item) for item in items())
        for sid, checked in results:
            if isinstance(checked, Exception):
                raise checked
            rows.extend(checked)
            n += len(checked)
            if bar is not None:
                bar.update(1)
            if len(rows) >= batch_size:
                store.put_annotation_checks(kind, rows)
                rows = []
        if rows:
            store.put_annotation_checks(kind, rows)
    finally:
        if bar is not None:
            bar.close()
    return CheckSummary(len(todo), n)
