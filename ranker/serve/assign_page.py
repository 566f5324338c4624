"""The assignment page of ``ranker serve``: an adjudicator gives documents or sentence ranges to
annotators, a share of them double-annotated, and sees each annotator's progress on theirs.

Only an adjudicator (anyone, without accounts) may see or change it: the plan is the team lead's.
The work is done by :mod:`.assignment`, which ``ranker serve assign`` shares.
"""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from ..errors import RankerError
from . import forms, views
from .accounts import accounts, annotator, may_adjudicate
from .forms import FormError

bp = Blueprint("assign", __name__)
# the same checks as every other POST: token first, nothing on a read-only server
bp.before_request(views._guard_posts)


def _adjudicator_only() -> None:
    if not may_adjudicate():
        raise FormError("only an account with the adjudicator role may assign work", 403)


def _account_names() -> list[str] | None:
    """The accounts' names (None: the server has no accounts, names are typed)."""
    acc = accounts()
    return None if acc is None else sorted(acc.users())


def _page(form: dict, error: str = "", status: int = 200, made: dict | None = None):
    from .assignment import by_document, progress
    from .listing import Statuses

    s = views.served()
    st = s.store()
    statuses = Statuses(st, s)
    assignments = st.assignments()
    rows = progress(assignments, lambda sid, who: statuses.of(sid, who)[1])
    documents = by_document((x for c in sorted(s.corpora) for x in s.corpora[c]), lambda sid: bool(s.sizes.get(sid)),
                            assignments)
    from .blind import blind_on

    return render_template("assign.html", rows=rows, corpora=sorted(s.corpora), names=_account_names(),
                           form=form, error=error, made=made, documents=documents,
                           blind_on=blind_on(st)), status


@bp.get("/assign")
def assign_page():
    """The assignment form and every annotator's progress on their assignment."""
    _adjudicator_only()
    s = views.served()
    made = None
    if request.args.get("assigned"):
        made = {"assigned": forms.integer(request.args.get("assigned"), "assigned", 0, 10**9),
                "sentences": forms.integer(request.args.get("sentences"), "sentences", 0, 10**9, 0),
                "cleared": forms.boolean(request.args.get("cleared") or "0", "cleared")}
    corpus = "treebank" if "treebank" in s.corpora else next(iter(sorted(s.corpora)), "")
    return _page({"corpus": corpus, "documents": "", "first": "", "last": "", "annotators": [], "double": "",
                  "places": {}}, made=made)


@bp.post("/assign")
def assign():
    """Assign the selection to the annotators named (replacing its earlier assignment), or with
    ``clear=1`` take the selection's assignment back."""
    from .assignment import check_annotators, make_assignment, parse_share, select_sentences

    _adjudicator_only()
    s = views.served()
    st = s.store()
    f = request.form
    names = _account_names()
    typed = f.getlist("annotator") if names is not None else (f.get("annotators") or "").split(",")
    places = {n: (f.get(f"place-{n}") or "").strip() for n in names or ()}
    form = {"corpus": f.get("corpus", ""), "documents": (f.get("documents") or "").strip(),
            "first": (f.get("first") or "").strip(), "last": (f.get("last") or "").strip(),
            "annotators": [n.strip() for n in typed if n.strip()], "double": f.get("double", ""),
            "places": {n: p for n, p in places.items() if p}}
    clear = forms.boolean(f.get("clear") or "0", "clear")
    try:
        if names is not None:   # the order the lead gave (places 1, 2, ...), else the accounts' order
            rank = {n: forms.integer(places.get(n) or None, f"place-{n}", 1, 10**4, 10**4 + k)
                    for k, n in enumerate(names)}
            form["annotators"].sort(key=lambda n: rank.get(n, 2 * 10**4))
        corpus = forms.choice(form["corpus"], "corpus", sorted(s.corpora))
        if corpus is None:
            raise FormError("parameter corpus: choose a corpus")
        ids = select_sentences(st, corpus, form["documents"] or None, form["first"] or None,
                               form["last"] or None, has_forest=lambda sid: bool(s.sizes.get(sid)))
        if clear:
            st.unassign(ids)
            return redirect(url_for("assign.assign_page", assigned=0, sentences=len(ids), cleared=1))
        who = check_annotators(form["annotators"], None if names is None else dict.fromkeys(names))
        pairs = make_assignment(st, ids, who, parse_share(form["double"]), annotator())
    except RankerError as e:
        if isinstance(e, FormError) and e.status != 400:
            raise
        return _page(form, error=str(e), status=400)
    return redirect(url_for("assign.assign_page", assigned=len(pairs), sentences=len(ids)))


@bp.post("/assign/blind")
def blind():
    """Turn blind double annotation on or off (``blind=on|off``) for every server on the store
    (:mod:`.blind`: an annotator sees nobody else's work on a sentence until everyone on it is done)."""
    from .blind import set_blind

    _adjudicator_only()
    on = forms.choice(request.form.get("blind"), "blind", ("on", "off"))
    if on is None:
        raise FormError("parameter blind: on or off")
    set_blind(views.served().store(), on == "on")
    return redirect(url_for("assign.assign_page"))
