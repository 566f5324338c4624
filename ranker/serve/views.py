"""The pages and actions of ``ranker serve``: sentence list, sentence page, decisions, retraining.

Every GET only reads. Every POST checks the session token first (:func:`.forms.check_token`),
is refused on a read-only server, validates each parameter (:mod:`.forms`), and answers with a
redirect back to the page (post/redirect/get), so a reload never repeats an action.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, redirect, render_template, request, session, url_for

from ..errors import RankerError
from ..store.errors import StoreError
from ..store.team import MAX_COMMENT
from . import forms
from .accounts import annotator, current_annotator, set_name
from .forms import FormError

bp = Blueprint("serve", __name__)


def served():
    """The :class:`~.app.Served` state of this application."""
    return current_app.extensions["ranker"]


@bp.app_context_processor
def _common():
    s = served()
    with s.lock:
        model, origin = s.model, s.model_origin
    return {"token": forms.session_token(session), "read_only": s.read_only, "who": session.get("who", ""),
            "token_field": forms.TOKEN_FIELD, "store_name": s.store_path.name, "source": s.source,
            "served_model": None if model is None else model.key, "served_origin": origin,
            "max_comment": MAX_COMMENT, "blind": _blind()}


def _blind() -> bool:
    """Whether the store's team annotates blind (:mod:`.blind`); False when the store cannot be read."""
    from .blind import blind_on

    try:
        return blind_on(served().store())
    except (RankerError, OSError):
        return False


@bp.app_errorhandler(FormError)
def _form_error(e: FormError):
    return render_template("error.html", message=str(e), status=e.status), e.status


@bp.app_errorhandler(413)
def _too_large(e):
    message = (f"the form sent is larger than this server reads ({forms.MAX_BODY // 1024} KB), so nothing of it "
               f"was kept: a comment holds at most {MAX_COMMENT} characters; go back, shorten it and save again")
    return render_template("error.html", message=message, status=413), 413


@bp.app_errorhandler(RankerError)
def _ranker_error(e: RankerError):
    # the store refusing a write (locked, disk full) is the server's trouble, anything else the request's
    status = 503 if isinstance(e, StoreError) else 400
    return render_template("error.html", message=str(e), status=status), status


@bp.before_request
def _guard_posts():
    if request.method == "POST":
        if served().read_only:
            return render_template("error.html", message="this server is read-only (--read-only): "
                                   "browsing only", status=403), 403
        forms.check_token(session, request.form, request.headers)
    return None


@bp.after_request
def _headers(resp):
    # no framing by other sites, no foreign scripts or styles: everything is served from here
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; "
                            "style-src 'self'; script-src 'self'; frame-ancestors 'none'")
    return resp


# ---------------------------------------------------------------------------------- list
@bp.get("/")
def index():
    """Start at the sentence list of the treebank (or the store's first corpus)."""
    s = served()
    corpus = "treebank" if "treebank" in s.corpora else next(iter(s.corpora), "treebank")
    return redirect(url_for("serve.sentences", corpus=corpus))


@bp.get("/sentences")
def sentences():
    """The sentence list of a corpus and split, filtered, with the progress count."""
    from .listing import CANDIDATES, PAGE, QUALITIES, STATUSES, Filters, list_rows, splits_of

    s = served()
    a = request.args
    corpus = forms.choice(a.get("corpus"), "corpus", sorted(s.corpora), next(iter(sorted(s.corpora)), None))
    if corpus is None:
        raise FormError("the store holds no sentences", 404)
    splits = splits_of(corpus)
    f = Filters(corpus=corpus,
                split=forms.choice(a.get("split"), "split", splits, None),
                quality=forms.choice(a.get("quality"), "quality", QUALITIES),
                min_size=forms.integer(a.get("min_size"), "min_size", 0, 10**9),
                max_size=forms.integer(a.get("max_size"), "max_size", 0, 10**9),
                disagree=None if not a.get("disagree") else forms.boolean(a.get("disagree"), "disagree"),
                status=forms.choice(a.get("status"), "status", STATUSES),
                page=forms.integer(a.get("page"), "page", 0, 10**6, 0),
                mine=None if not a.get("mine") else forms.boolean(a.get("mine"), "mine"),
                candidates=forms.choice(a.get("candidates"), "candidates", CANDIDATES))
    rows, listing = list_rows(s.store(), s, f, who=current_annotator())
    session[LIST_FILTER] = f._replace(page=0)._asdict()   # "next" on a sentence page walks this list
    matching = len(listing.rows)
    end = bool(a.get("end")) and forms.boolean(a.get("end"), "end")   # "next" past the assignment's last
    return render_template("list.html", rows=rows, f=f, corpora=sorted(s.corpora), splits=splits,
                           qualities=QUALITIES, statuses=STATUSES, candidates=CANDIDATES, end=end,
                           matching=matching, done=listing.done,
                           total=listing.with_forest, listing=listing, me=current_annotator(),
                           pages=(matching + PAGE - 1) // PAGE, args=a)


# ---------------------------------------------------------------------------------- sentence
@bp.get("/sentence")
def sentence():
    """One sentence: ranked candidates, rankers' choices, trees, discriminants, this annotator's decisions."""
    return _sentence_page(forms.sentence_id(served().store(), request.args.get("id")))


def _sentence_page(sid: str, refused: str | None = None, status: int = 200, draft: dict | None = None):
    """The sentence page, with ``refused`` (why an answer was refused: 409) shown above it when given
    (a *conflict* is the team's disagreement, :mod:`.teamwork`: another word, another element), and
    ``draft`` (``{"comment", "error"}``: a verdict refused) kept in its form."""
    from .listing import ranker_choices
    from .sentence import default_pair, sentence_view
    from .teamwork import own_decisions, sentence_team
    from .svg import CROSSING, DIFFERENT, EXTRA, MATCHED, MISSING, class_counts, compare_brackets, tree_svg

    s = served()
    st = s.store()
    model, previous, pinned = _page_model(s, sid)
    view = sentence_view(s.forest_data(sid), own_decisions(st.decisions(sid)), s.model_scores(model, sid),
                         s.model_scores(previous, sid), ranker_choices(s, sid, model),
                         None if model is None else model.key)
    n = len(view.trees)
    show_all = bool(request.args.get("all")) and forms.boolean(request.args.get("all"), "all")
    first, second = default_pair(view)   # never two identical trees by default
    a = forms.integer(request.args.get("a"), "a", 0, max(n - 1, 0), first)
    if request.args.get("a") and request.args.get("b") is None and second is not None:
        # a chosen, b not: the best candidate of another bracketing than a's
        a_spans = s.forest_data(sid).spans[a]
        second = next((p.row.index for p in view.packs if s.forest_data(sid).spans[p.row.index] != a_spans),
                      second)
    b = forms.integer(request.args.get("b"), "b", 0, max(n - 1, 0), a if second is None else second)
    drawings = {}
    layout = _layout(view.trees[a] if n else None)
    if n:
        ta, tb = view.trees[a], view.trees[b]
        vertical = layout == "vertical"
        ca = compare_brackets(ta, view.gold)
        drawings["a_gold"] = tree_svg(ta, ca, f"candidate {a} against gold", vertical)
        drawings["a_gold_counts"] = class_counts(ca, (MATCHED, CROSSING, EXTRA))
        if view.gold is not None:
            cg = compare_brackets(view.gold, ta, MISSING)
            drawings["gold"] = tree_svg(view.gold, cg, "gold", vertical)
            drawings["gold_counts"] = class_counts(cg, (MATCHED, CROSSING, MISSING))
        drawings["a"] = tree_svg(ta, compare_brackets(ta, tb, DIFFERENT), f"candidate {a}", vertical)
        drawings["b"] = tree_svg(tb, compare_brackets(tb, ta, DIFFERENT), f"candidate {b}", vertical)
    shown = view.packs if show_all else [p for p in view.packs if p.row.remaining]
    listed = _list_filter()
    neighbours = None
    if listed is not None:
        from .listing import filtered_neighbours

        neighbours = filtered_neighbours(st, s, listed, view.sentence, current_annotator())
    if neighbours is None:
        listed, neighbours = None, s.neighbours(view.sentence)
    mine = {x.sentence_id for x in st.assignments(current_annotator())} if current_annotator() else set()
    end_of_assignment = sid in mine and neighbours[1] not in mine
    if end_of_assignment:   # "next" says the assignment is finished, never opens work given to nobody
        neighbours = (neighbours[0], None)
    s.prefetch(neighbours[1])   # the annotator's likely next page
    team = sentence_team(s, st, sid)
    from ..sources.adjudication import AnnotatorWork
    from ..sources.finished import work_status

    my_status = work_status(AnnotatorWork(team.who or "", tuple(view.decisions), team.verdict),
                         s.forest_data(sid).spans) if team.who else None
    return render_template("sentence.html", v=view, a=a, b=b, drawings=drawings, shown=shown,
                           show_all=show_all, n=n, here=url_for("serve.sentence", id=sid),
                           one_bracketing=len(view.packs) == 1,
                           listed={k: (int(v) if isinstance(v, bool) else v) for k, v in listed._asdict().items()
                                   if v is not None and k != "page"} if listed else None,
                           neighbours=neighbours, end_of_assignment=end_of_assignment,
                           discs=view.discriminants[:s.settings.discriminants_shown],
                           rankers=[r for r in ("native", "heidorn", "loglinear", "oracle") if r in view.choices],
                           retrain=s.retrain, refused=refused, team=team,
                           # after "no correct candidate" there is nothing to answer: no discriminant is offered
                           said_none=bool(team.verdict and team.verdict.no_correct),
                           my_status=my_status, settled=view.n_remaining > 0 and not view.discriminants,
                           a_default=request.args.get("a") is None,
                           beside=max((_drawn_width(d) for d in drawings.values() if isinstance(d, str)),
                                      default=0) <= BESIDE_LIMIT,
                           pinned=pinned, draft=draft, layout=layout,
                           # blind double annotation: nobody else's name until everyone on it is done
                           assigned=[x.who for x in st.assignments(sentence_id=sid)
                                     if not team.blind or x.who == team.who]), status


#: Session key of the tree layout this session chose (``?layout=wide|vertical|auto``).
LAYOUT = "layout"
LAYOUTS = ("auto", "wide", "vertical")
#: Two drawings side by side wider than this (pixels) are drawn vertically when the layout is auto:
#: the trees' box of a 1,400-pixel window is about 1,330 pixels wide.
WIDE_LIMIT = 1200


#: Trees drawn at most this wide (pixels) go beside the discriminants on a 1,400-pixel window
#: (one under another); wider ones (a long sentence's) go under them, across the page.
BESIDE_LIMIT = 600


def _drawn_width(svg: str) -> float:
    """The width an SVG drawing of :mod:`.svg` declares (0 for none)."""
    import re

    got = re.search(r'<svg [^>]*width="([0-9.]+)"', svg)
    return float(got.group(1)) if got else 0.0


def _layout(tree) -> str:
    """``wide`` or ``vertical``: the layout chosen with ``?layout=`` (kept for the session), or
    with ``auto`` (the default) vertical when two of ``tree``'s drawings side by side would not fit."""
    from .svg import wide_width

    asked = forms.choice(request.args.get("layout"), "layout", LAYOUTS)
    if asked is not None and asked != session.get(LAYOUT, "auto"):
        session[LAYOUT] = asked
    chosen = session.get(LAYOUT, "auto") if asked is None else asked
    if chosen in ("wide", "vertical"):
        return chosen
    return "vertical" if tree is not None and 2 * wide_width(tree) > WIDE_LIMIT else "wide"


#: Session key of the sentence this session is on and the model that ranks it: a retrain takes
#: effect for an annotator at their next sentence, never under their cursor.
PIN = "pin"


def _page_model(s, sid: str):
    """``(model, previous, pinned)``: the model ranking this session's page of ``sid``.

    The served model, except on the sentence this session was on when a retrain switched models:
    there the model it was ranked with stays (so the order of the candidates and discriminants
    does not change under the annotator) until they open another sentence; ``pinned`` is then True
    and no "before" column is shown. The session that started the retrain sees the new model at once.
    """
    with s.lock:
        model, previous, recent, job = s.model, s.previous, dict(s.recent), s.retrain
    pin = session.get(PIN)
    if model is None:
        return None, None, False
    mine = job is not None and job.by is not None and job.by == current_annotator()
    if (isinstance(pin, list) and len(pin) == 2 and pin[0] == sid and pin[1] != model.key
            and pin[1] in recent and not mine):
        return recent[pin[1]], None, True
    if pin != [sid, model.key]:
        session[PIN] = [sid, model.key]
    return model, previous, False


#: Session key of the sentence list's filters last shown, so "previous" and "next" walk that list.
LIST_FILTER = "list_filter"


def _list_filter():
    """The :class:`~.listing.Filters` of the list this session last showed, or None."""
    from .listing import Filters

    got = session.get(LIST_FILTER)
    try:
        return Filters(**got) if isinstance(got, dict) else None
    except TypeError:   # a cookie of an older server
        return None


def _back(sid: str):
    return redirect(url_for("serve.sentence", id=sid))


@bp.post("/decide")
def decide():
    """Store an answer (accept or reject) to one discriminant of a sentence, if it still is one.

    The answer is checked against the decisions stored when it is written
    (:func:`ranker.sources.discriminants.decide`): an answer from a page loaded before someone
    else's answer that would leave no candidate, or a span no candidate holds, is refused with
    409 and the sentence page as it is now, the refusal named above it.
    """
    from ..sources.discriminants import DecisionRefused, decide, decision, span_key

    s = served()
    st = s.store()
    sid = forms.sentence_id(st, request.form.get("id"))
    label, start, end = forms.discriminant(request.form.get("key"), len(st.sentence(sid).tokens))
    accept = forms.boolean(request.form.get("accept"), "accept")
    who = annotator()
    if any(v.who == who and v.no_correct for v in st.verdicts(sid)):   # a stale page, or a script
        raise FormError("you said no candidate of this sentence is correct, so there is nothing to answer: "
                        "untick it in your verdict to answer again", 409)
    answer = decision(span_key(label, start, end), accept, who)
    try:
        decide(st, sid, s.forest_data(sid).spans, answer)   # checked against this annotator's own answers
    except DecisionRefused as e:
        return _sentence_page(sid, refused=str(e), status=409)
    return _back(sid)


@bp.post("/undo")
def undo():
    """Take back this annotator's latest answer on a sentence (not another person's); with more
    than one bracketing left after it, their confirmation is withdrawn too (:func:`.teamwork.undo_own`)."""
    from .teamwork import undo_own

    s = served()
    st = s.store()
    sid = forms.sentence_id(st, request.form.get("id"))
    undo_own(st, sid, annotator(), s.forest_data(sid).spans)
    return _back(sid)


@bp.post("/who")
def set_who():
    """Remember the annotator's name for this session's decisions (every parameter checked first)."""
    name = forms.who(request.form.get("who"))
    back = _back_to(request.form.get("id"))
    set_name(served().store(), name)
    return back


def _back_to(value: str | None):
    """The redirect after a POST: to the sentence ``value`` names, or to the list (checked before any effect)."""
    if value:
        return _back(forms.sentence_id(served().store(), value))
    return redirect(url_for("serve.index"))


# ---------------------------------------------------------------------------------- retrain
@bp.post("/retrain")
def retrain():
    """Start retraining from the team's work in the background (an adjudicator's action: it changes
    the ranking and the order of discriminants for everyone, from their next sentence on)."""
    from .accounts import may_adjudicate
    from .retrain import start_retrain

    if not may_adjudicate():
        raise FormError("only an account with the adjudicator role may retrain: it changes the ranking "
                        "for everyone", 403)
    back = _back_to(request.form.get("id"))   # a bad id is refused before anything starts
    start_retrain(served(), annotator())
    return back


@bp.get("/retrain/status")
def retrain_status():
    """The retraining job's state and progress, as JSON (the page polls it)."""
    job = served().retrain
    if job is None:
        return jsonify({"state": "idle", "progress": 0.0, "message": ""})
    return jsonify(job.status())


@bp.get("/favicon.ico")
def favicon():
    """No icon: answer 404 without a page."""
    abort(404)
