"""A team on one store: each annotator's own work, verdicts, and the adjudication of conflicts.

The sentence page shows the current annotator's decisions only, and the remaining candidates
follow from those (:func:`own_decisions`), so two people disambiguate the same sentence
independently and their agreement means something. Where their work conflicts
(:mod:`ranker.sources.adjudication`), ``/adjudicate`` lists the sentences with the agreement per
sentence and overall, and an adjudicator (an account with the ``adjudicator`` role; anyone when
the server runs without accounts) picks whose work stands. Training reads that adjudicated set.

A verdict (``/verdict``) is an annotator's word on the whole sentence: "no correct candidate"
(counted done, left out of training) and a free comment (shown escaped, as everything is).
``/confirm`` says that the one bracketing left is correct: a forest of one bracketing (or one
pack of identical bracketings) has no discriminant to answer, and this is how it is checked and
counted done (and finished, :mod:`ranker.sources.finished`).
"""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from ..sources.adjudication import reopened, store_team_work, work_digest
from ..store.team import MAX_COMMENT
from . import forms, views
from .accounts import annotator, may_adjudicate
from .forms import FormError
# the team's work as a sentence page shows it (serve/teamwork.py, which the pages read without
# importing this module); own_decisions, sentence_team and SentenceTeam were written here first
from .teamwork import SentenceTeam, own_decisions, sentence_agreement_of, sentence_team, spans_of  # noqa: F401

bp = Blueprint("team", __name__)
# the same checks as every other POST: token first, nothing on a read-only server
bp.before_request(views._guard_posts)


# ---------------------------------------------------------------------------------- verdicts
@bp.post("/verdict")
def verdict():
    """Record this annotator's verdict on a sentence: no correct candidate, and a comment."""
    s = views.served()
    st = s.store()
    sid = forms.sentence_id(st, request.form.get("id"))
    no_correct = forms.boolean(request.form.get("no_correct") or "0", "no_correct")
    comment = request.form.get("comment", "")
    if len(comment.strip()) > MAX_COMMENT:   # the page again, the text kept in its field
        return views._sentence_page(sid, status=400, draft={
            "comment": comment, "error": f"not saved: a comment holds at most {MAX_COMMENT} characters and "
                                         f"this one has {len(comment.strip())}; shorten it and save again"})
    who = annotator()
    before = next((v for v in st.verdicts(sid) if v.who == who), None)
    # a confirmation stands until withdrawn, or until the annotator says no candidate is correct
    st.set_verdict(sid, who, no_correct, comment, confirmed=bool(before and before.confirmed) and not no_correct)
    return redirect(url_for("serve.sentence", id=sid))


@bp.post("/confirm")
def confirm():
    """Confirm that the one bracketing this annotator's decisions leave is correct (``withdraw=1``
    takes the confirmation back). Refused while two or more bracketings remain: answer the
    discriminants first."""
    from ..sources.discriminants import packs, remaining_mask
    from ..sources.finished import settled

    s = views.served()
    st = s.store()
    sid = forms.sentence_id(st, request.form.get("id"))
    withdraw = forms.boolean(request.form.get("withdraw") or "0", "withdraw")
    who = annotator()
    before = next((v for v in st.verdicts(sid) if v.who == who), None)
    if not withdraw:
        spans = s.forest_data(sid).spans
        if not spans:
            raise FormError("this sentence has no candidates: there is no bracketing to confirm")
        mask = remaining_mask(spans, [d for d in st.decisions(sid) if d.who == who])
        if not settled(spans, mask):
            left = len(packs(spans, mask))
            raise FormError(f"{left} bracketings remain: answer the discriminants until one is left, "
                            "then confirm it", 409)
    st.set_verdict(sid, who, False, before.comment if before else "", confirmed=not withdraw)
    return redirect(url_for("serve.sentence", id=sid))


# ---------------------------------------------------------------------------------- adjudication
@bp.get("/adjudicate")
def adjudicate_list():
    """Sentences two or more annotators worked on, conflicts first, with the agreement per sentence and overall."""
    from ..sources.adjudication import agreement

    from .blind import blind_on

    s = views.served()
    st = s.store()
    if blind_on(st) and not may_adjudicate():
        raise FormError("blind double annotation: the agreement pages are the adjudicator's (you see another "
                        "annotator's work on a sentence of yours on its page once everyone on it is done)", 403)
    team = store_team_work(st)
    overall = agreement(team.by_sentence, spans_of(s), team.adjudications,
                        row_of=lambda sid, work: sentence_agreement_of(s, sid, work))
    only = forms.choice(request.args.get("show"), "show", ("conflicts", "all"), "conflicts")
    rows = [r for r in overall.sentences if only == "all" or r.conflict]
    rows.sort(key=lambda r: (not r.conflict, r.sentence_id in team.adjudications, r.sentence_id))
    return render_template("adjudicate.html", rows=rows, overall=overall, adjudications=team.adjudications,
                           reopened=team.reopened, show=only, texts={r.sentence_id: " ".join(st.sentence(r.sentence_id).tokens)
                                             for r in rows})


@bp.get("/adjudicate/sentence")
def adjudicate_sentence():
    """One sentence's annotators side by side: their decisions, verdicts and selected trees."""
    from ..sources.adjudication import work_by_annotator
    from ..sources.discriminants import remaining_mask
    from .svg import DIFFERENT, compare_brackets, tree_svg

    from .blind import Blinds

    s = views.served()
    st = s.store()
    sid = forms.sentence_id(st, request.args.get("id"))
    if Blinds.of_sentence(st, s, sid, None, may_adjudicate()).hidden(sid):
        raise FormError("blind double annotation: the annotators' work on this sentence is shown once "
                        "everyone on it is done (an adjudicator sees it at once)", 403)
    work = {w: aw for w, aw in work_by_annotator(st.decisions(sid), st.verdicts(sid)).items() if aw.present}
    data = s.forest_data(sid)
    row = sentence_agreement_of(s, sid, work) if len(work) >= 2 else None
    picks = {}
    for who, w in work.items():
        mask = remaining_mask(data.spans, w.decisions) if data.spans and not w.no_correct else []
        picks[who] = [i for i, keep in enumerate(mask) if keep]
    names = list(work)
    drawings = {}
    for k, who in enumerate(names):
        other = names[(k + 1) % len(names)] if len(names) > 1 else who
        if picks[who]:
            tree = data.forest.candidates[picks[who][0]].tree
            against = data.forest.candidates[picks[other][0]].tree if picks[other] else None
            drawings[who] = tree_svg(tree, compare_brackets(tree, against, DIFFERENT),
                                     f"{who}: candidate {picks[who][0]}", views._layout(tree) == "vertical")
    adj = st.adjudications().get(sid)
    own = _adjudicator_work(s, st, sid, work)
    if own["first"] is not None:
        tree = data.forest.candidates[own["first"]].tree
        drawings[ADJUDICATION_DRAWING] = tree_svg(tree, compare_brackets(tree, None, DIFFERENT),
                                                  f"the adjudication's candidate {own['first']}",
                                                  views._layout(tree) == "vertical")
    return render_template("adjudicate_sentence.html", sentence=st.sentence(sid), work=work, row=row,
                           picks=picks, drawings=drawings, adjudication=adj,
                           reopened=adj is not None and reopened(adj, work),
                           digests={who: work_digest(w) for who, w in work.items()}, own=own,
                           drawing_key=ADJUDICATION_DRAWING)


#: The drawings' key of the adjudicator's own remaining candidate (no account is named so).
ADJUDICATION_DRAWING = "(adjudication)"


def _adjudicator_work(s, st, sid: str, work: dict) -> dict:
    """The adjudicators' own answers on a sentence and what they leave: ``decisions``,
    ``discriminants`` (each with every annotator's answer on its span), ``left`` (bracketings),
    ``settled`` and ``first`` (the first remaining candidate, None before any answer)."""
    from ..sources.discriminants import discriminants, packs, remaining_mask
    from ..sources.finished import settled

    spans = s.forest_data(sid).spans
    decisions = st.decisions(sid, adjudication=True)
    if not spans:
        return {"decisions": decisions, "discriminants": [], "left": 0, "settled": False, "first": None,
                "answers": {}}
    mask = remaining_mask(spans, decisions)
    answers = {who: {(d.label, d.start, d.end): bool(d.accept) for d in w.decisions} for who, w in work.items()}
    remaining = [i for i, keep in enumerate(mask) if keep]
    return {"decisions": decisions, "discriminants": discriminants(spans, mask)[:s.settings.discriminants_shown],
            "left": len(packs(spans, mask)), "settled": settled(spans, mask), "answers": answers,
            "first": remaining[0] if decisions and remaining else None}


def _adjudicator_sentence():
    """The sentence of an adjudicator's POST (403 for anyone else, before anything is read)."""
    if not may_adjudicate():
        raise FormError("only an account with the adjudicator role may adjudicate", 403)
    s = views.served()
    st = s.store()
    return s, st, forms.sentence_id(st, request.form.get("id"))


@bp.post("/adjudicate/decide")
def adjudicate_decide():
    """An adjudicator answers a discriminant on the adjudication page: the adjudication's own
    answers, checked against the adjudicators' answers before, no annotator's work (they enter no
    agreement and no conflict); "these decisions stand" makes them the sentence's."""
    from ..sources.discriminants import DecisionRefused, decide, decision, span_key

    s, st, sid = _adjudicator_sentence()
    label, start, end = forms.discriminant(request.form.get("key"), len(st.sentence(sid).tokens))
    accept = forms.boolean(request.form.get("accept"), "accept")
    if not s.forest_data(sid).spans:
        raise FormError("this sentence has no candidates: there is nothing to decide")
    try:
        decide(st, sid, s.forest_data(sid).spans, decision(span_key(label, start, end), accept, annotator()),
               adjudication=True)
    except DecisionRefused as e:
        raise FormError(str(e), 409) from None
    return redirect(url_for("team.adjudicate_sentence", id=sid))


@bp.post("/adjudicate/undo")
def adjudicate_undo():
    """Take back the adjudicators' latest answer on a sentence; an adjudication that made their
    answers stand is withdrawn with it when more than one bracketing is left after it (one transaction)."""
    from ..sources.discriminants import remaining_mask
    from ..sources.finished import settled

    s, st, sid = _adjudicator_sentence()
    spans = s.forest_data(sid).spans
    with st.batch():
        if st.undo_decision(sid, adjudication=True) is not None:
            adj = st.adjudications().get(sid)
            left = st.decisions(sid, adjudication=True)
            if adj is not None and adj.decided and not (left and settled(spans, remaining_mask(spans, left))):
                st.clear_adjudication(sid)
    return redirect(url_for("team.adjudicate_sentence", id=sid))


@bp.post("/adjudicate")
def adjudicate():
    """An adjudicator picks whose work stands on a sentence, rules that none is right (``none=1``
    with a ``comment``: the sentence goes to "no correct candidate"), makes their own answers on
    the page stand (``decided=1``, once they leave one bracketing), or clears the ruling."""
    from ..store.records import NONE_IS_RIGHT

    if not may_adjudicate():
        raise FormError("only an account with the adjudicator role may adjudicate", 403)
    s = views.served()
    st = s.store()
    sid = forms.sentence_id(st, request.form.get("id"))
    clear = forms.boolean(request.form.get("clear") or "0", "clear")
    none = forms.boolean(request.form.get("none") or "0", "none")
    decided = forms.boolean(request.form.get("decided") or "0", "decided")
    chosen = None
    if decided and not clear and not none:   # the adjudicators' own answers stand
        from ..sources.discriminants import remaining_mask
        from ..sources.finished import settled
        from ..store.records import ADJUDICATOR_DECIDED

        spans = s.forest_data(sid).spans
        with st.batch():
            own = st.decisions(sid, adjudication=True)
            if not own or not settled(spans, remaining_mask(spans, own)):
                raise FormError("your decisions leave more than one bracketing: answer the discriminants "
                                "until one is left, then make them stand", 409)
            st.adjudicate(sid, ADJUDICATOR_DECIDED, annotator())
        return redirect(url_for("team.adjudicate_sentence", id=sid))
    if none and not clear:
        comment = (request.form.get("comment") or "").strip()
        if not comment or len(comment) > MAX_COMMENT:
            raise FormError("parameter comment: say why no candidate is right (1-" f"{MAX_COMMENT} characters): "
                            "the annotators and the export's listing read it")
        st.adjudicate(sid, NONE_IS_RIGHT, annotator(), comment=comment)
        return redirect(url_for("team.adjudicate_sentence", id=sid))
    if not clear:
        from ..sources.adjudication import work_by_annotator

        work = work_by_annotator(st.decisions(sid), st.verdicts(sid))
        present = [w for w, aw in work.items() if aw.present]
        chosen = forms.choice(request.form.get("chosen"), "chosen", present)
        if chosen is None:
            raise FormError("parameter chosen: name the annotator whose work stands")
        digest = work_digest(work[chosen])
        reviewed = request.form.get("work") or digest   # the work the adjudicator's page showed
        if reviewed != digest:
            raise FormError(f"{chosen} changed their answers since your page was loaded: review their work "
                            "again before it stands", 409)
    if clear:
        st.clear_adjudication(sid)
    else:
        st.adjudicate(sid, chosen, annotator(), work=digest)
    return redirect(url_for("team.adjudicate_sentence", id=sid))
