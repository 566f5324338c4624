"""``ranker serve``: browse a store's forests in a web browser and disambiguate them by discriminants;
``ranker serve users``: the accounts annotators sign in with."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    """Register ``ranker serve``."""
    from ..pipeline.config import ServeSection
    from .options import EVIDENCE_OF_MODEL, add_evidence, add_source, add_store, config_default

    p = subparsers.add_parser(
        "serve", help="web page: browse forests, compare rankers, disambiguate by discriminants",
        description="Serve a store on a local web page: the sentences of a corpus and split with "
        "filters, each sentence's candidates ranked by a model with their probabilities, each "
        "ranker's choice and every metric's score against gold, trees drawn beside gold, and "
        "discriminants to accept or reject; decisions are stored as partial annotations of kind "
        "'user', which retraining (from the page) learns from. With accounts (--users) annotators "
        "answer, give verdicts and comment, and adjudicators also pick whose work stands where "
        "annotators conflict and retrain (a new model reaches the others' pages at their next "
        "sentence); without accounts everyone may do everything. A restart keeps the team's state: "
        "the model a retrain switched to ranks again (recorded in the store), and with accounts "
        "everyone stays signed in (the cookies' secret is kept in USERS.secret beside the users "
        "file, mode 0600; delete it to sign everybody out). Roles: an annotator answers "
        "discriminants, confirms a sentence's one bracketing, says 'no correct candidate' and "
        "comments; an adjudicator also assigns work (the page's 'assignments', or ranker serve "
        "assign), picks whose work stands where annotators conflict and retrains. Each annotator's "
        "list shows their assignment first with their progress; with blind double annotation on (ranker "
        "serve assign blind on, or the /assign page) an annotator sees nobody else's work on a sentence "
        "until everyone on it is done. Keys on a sentence page: a accept, "
        "r reject the outlined discriminant (j/k or the arrows outline another), u undo, c confirm, "
        "n next, p previous. Exports: ranker store export S --trees (the team's finished trees and "
        "a listing of every sentence), ranker annotate --kind user --export FILE (the decisions), "
        "ranker store stats (agreement, and the runs, retrains from the page included). Needs the "
        "'serve' extra: pip install 'ranker[serve]'.")
    add_store(p)
    add_source(p)
    add_evidence(p, EVIDENCE_OF_MODEL)
    p.add_argument("--model", default=None,
                   help="a stored model's key or unique prefix (ranker models list), or a model file "
                        "(default: the model this store's server ranked with last, a retrain's "
                        "included; else the stored model chosen on held-out, else the first stored model "
                        "that carries its features; none: source order)")
    # defaults from ServeSection (the web page is no stage of an experiment config)
    host, port = config_default(ServeSection, "host"), config_default(ServeSection, "port")
    p.add_argument("--host", default=host,
                   help=f"address to listen on; anything but loopback lets other machines in (default {host})")
    p.add_argument("--port", type=int, default=port, help=f"port, 0 for any free one (default {port})")
    p.add_argument("--read-only", action="store_true", default=config_default(ServeSection, "read_only"),
                   help="browse only: the store is opened read-only and every POST is refused (the one "
                        "way to serve beyond loopback without accounts)")
    p.add_argument("--users", default=None, metavar="FILE",
                   help="accounts file (ranker serve users): every annotator signs in and decisions are "
                        "the account's; required when --host is not loopback (default STORE.users when it "
                        "holds an account). Sign-in is throttled: 5 failures for one name (20 from one address) in 15 "
                        "minutes lock it for a minute, doubling with each further failure (at most an "
                        "hour); failed and refused sign-ins are logged on stderr")
    p.add_argument("--public-read", action="store_true",
                   help="with accounts: pages may be read without signing in (deciding still needs it)")
    p.set_defaults(func=run)
    sub = p.add_subparsers(dest="serve_command", metavar="ACTION")
    _add_users_commands(sub)
    _add_assign_commands(sub)


def _add_users_commands(sub) -> None:
    """``ranker serve users add|list|remove``: the accounts file the server signs annotators in with."""
    import argparse

    u = sub.add_parser("users", help="manage the accounts annotators sign in with",
                       description="Manage the accounts file (name, role, salted password hash; "
                       "readable by its owner only). Without --users it is STORE.users beside the store, which must "
                       "exist.")
    actions = u.add_subparsers(dest="users_command", metavar="ACTION")
    actions.required = True
    from .options import add_store

    common = argparse.ArgumentParser(add_help=False)
    add_store(common)   # the users file is STORE.users unless --users
    common.add_argument("--users", default=None, metavar="FILE", help="accounts file (default STORE.users)")
    a = actions.add_parser("add", parents=[common], help="add an account, or set its password and role",
                           description="The password is asked twice at a terminal, or read from the first "
                           "line of standard input (echo ... | ranker serve users add NAME).")
    a.add_argument("name", help="account name (1-40 letters, digits, spaces, apostrophes or .@-)")
    a.add_argument("--role", choices=["annotator", "adjudicator"], default="annotator",
                   help="annotators answer, give verdicts and comment; adjudicators may also resolve "
                        "conflicts between annotators and retrain the served model (default annotator)")
    a.set_defaults(func=run_users_add)
    ls = actions.add_parser("list", parents=[common], help="the accounts and their roles")
    ls.set_defaults(func=run_users_list)
    rm = actions.add_parser("remove", parents=[common], help="remove an account (its decisions stay)")
    rm.add_argument("name")
    rm.set_defaults(func=run_users_remove)


def _add_assign_commands(sub) -> None:
    """``ranker serve assign add|list|clear``: the work plan the page's assignment form makes too."""
    import argparse

    from ..pipeline.config import DataSection
    from .options import add_source, add_store, config_option

    u = sub.add_parser("assign", help="give documents or sentence ranges to annotators",
                       description="Give a selection's sentences with candidates (corpus order) to annotators, "
                       "one stretch each in the order named, a share of them also to the next annotator "
                       "(double annotation, for agreement); kept in the store, where the page's "
                       "assignment form (adjudicators) keeps it too. Each annotator's sentence list shows "
                       "their assignment first, with their progress on it.")
    actions = u.add_subparsers(dest="assign_command", metavar="ACTION")
    actions.required = True
    common = argparse.ArgumentParser(add_help=False)
    add_store(common)
    add_source(common)
    selection = argparse.ArgumentParser(add_help=False)
    config_option(selection, "--corpus", section=DataSection, key="corpus", help="the stored corpus")
    selection.add_argument("--split", default=None,
                           help="documents: a named split (train, heldout, test), document ranges like "
                                "wsj_0170-0172, a glob (news_*) or @FILE (default: the whole corpus)")
    selection.add_argument("--first", default=None, metavar="SENTENCE",
                           help="the first sentence id of the range (default: the selection's first)")
    selection.add_argument("--last", default=None, metavar="SENTENCE",
                           help="the last sentence id of the range, inclusive (default: the selection's last)")
    a = actions.add_parser("add", parents=[common, selection],
                           help="assign a selection (replacing its earlier assignment)")
    a.add_argument("annotators", nargs="+", metavar="ANNOTATOR",
                   help="annotator names, each given one stretch in this order (accounts of the users "
                        "file, when the store has one: STORE.users or --users)")
    a.add_argument("--double", default="0", metavar="SHARE",
                   help="share of the selection double-annotated, as 20%% or 0.2 (default none)")
    a.add_argument("--users", default=None, metavar="FILE", help="accounts file (default STORE.users)")
    a.add_argument("--by", default=None, help="who assigns (default the system user)")
    a.set_defaults(func=run_assign_add)
    ls = actions.add_parser("list", parents=[common], help="each annotator's assignment and progress")
    ls.set_defaults(func=run_assign_list)
    c = actions.add_parser("clear", parents=[common, selection], help="take a selection's assignment back")
    c.add_argument("--annotator", default=None, help="only this annotator's (default everyone's)")
    c.set_defaults(func=run_assign_clear)
    b = actions.add_parser("blind", parents=[common], help="blind double annotation: on, off, or say which",
                           description="With blind double annotation on, an annotator sees nobody else's work "
                           "on a sentence of theirs (not who else has it, their answers, comments or conflicts; "
                           "nor the agreement pages) until everyone on it is done or an adjudicator decided it; "
                           "adjudicators see everything. Kept in the store, so every server on it (and a "
                           "restart) follows it at once; the /assign page turns it on and off too. It binds "
                           "signed-in annotators: without accounts everyone may adjudicate. Default off.")
    b.add_argument("state", nargs="?", choices=["on", "off"], help="turn it on or off (default: say which it is)")
    b.set_defaults(func=run_assign_blind)


def _assign_selection(st, args) -> list[str]:
    """The sentence ids the selection options name, those with candidates of the served source."""
    from ..pipeline.stages import stored_source
    from ..serve.app import forest_summary
    from ..serve.assignment import select_sentences

    sizes = forest_summary(st, stored_source(st, args.source))[0]
    return select_sentences(st, args.corpus, args.split, args.first, args.last, has_forest=lambda sid: bool(sizes.get(sid)))


def run_assign_add(args) -> int:
    import getpass

    from ..serve.assignment import check_annotators, make_assignment, parse_share
    from ..serve.users import default_users_file, read_users, users_file_exists
    from .recorded import recorded_store

    users = args.users or default_users_file(args.store)
    accounts = read_users(users) if (args.users or users_file_exists(users)) else {}
    names = check_annotators(args.annotators, accounts or None)
    share = parse_share(args.double)
    with recorded_store(args, "serve assign") as (st, _):
        ids = _assign_selection(st, args)
        pairs = make_assignment(st, ids, names, share, args.by or getpass.getuser())
    print(f"{args.store}: assigned {len(ids)} sentences to {', '.join(names)} "
          f"({len(pairs) - len(ids)} double-annotated)")
    return 0


def run_assign_list(args) -> int:
    from ..pipeline.stages import stored_source
    from ..serve.assignment import StoreForests, progress
    import sys

    from ..serve.blind import blind_on
    from ..serve.listing import Statuses
    from ..store import Store

    with Store.open(args.store, create=False, readonly=True) as st:
        statuses = Statuses(st, StoreForests(st, stored_source(st, args.source)))
        rows = progress(st.assignments(), lambda sid, who: statuses.of(sid, who)[1])
        blind = blind_on(st)
    for r in rows:
        print(f"{r.who}\tassigned {r.assigned}\tdouble-annotated {r.double}\tdone {r.done}\tstarted {r.started}"
              f"\tconflict {r.conflict}")
    if not rows:
        print(f"{args.store}: nothing assigned")
    if blind:
        print(f"{args.store}: blind double annotation on", file=sys.stderr)
    return 0


def run_assign_blind(args) -> int:
    from ..serve.blind import blind_on, set_blind
    from ..store import Store
    from .recorded import recorded_store

    if args.state is None:
        with Store.open(args.store, create=False, readonly=True) as st:
            on = blind_on(st)
    else:
        with recorded_store(args, "serve assign") as (st, _):
            set_blind(st, args.state == "on")
            on = blind_on(st)
    print(f"{args.store}: blind double annotation {'on' if on else 'off'}")
    return 0


def run_assign_clear(args) -> int:
    from .recorded import recorded_store

    with recorded_store(args, "serve assign") as (st, _):
        ids = _assign_selection(st, args)
        n = st.unassign(ids, args.annotator)
    print(f"{args.store}: took back {n} assignments")
    return 0


def _users_file(args):
    """The users file the command manages: --users, or STORE.users beside a store that exists."""
    from pathlib import Path

    from ..atomicfile import check_not_store
    from ..serve.users import default_users_file

    if args.users:   # rewritten whole by add and remove: never over the store or its log
        check_not_store(args.users, args.store, "--users", users=False)
        return args.users
    if not Path(args.store).is_file():   # add made nosuch.sqlite.users for a store that is not there
        from ..errors import RankerError

        raise RankerError(f"--store {args.store}: no such store (its users file would be "
                          f"{default_users_file(args.store)}); name the store, or the file with --users")
    return default_users_file(args.store)


def _read_password() -> str:
    import getpass
    import sys

    from ..errors import RankerError

    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise RankerError("the two passwords differ; nothing changed")
        return first
    line = sys.stdin.readline()
    return line.removesuffix("\n").removesuffix("\r")   # a CRLF line (a Windows file) keeps no \r


def run_users_add(args) -> int:
    from ..serve.users import account_name, add_user

    _need_flask()   # Werkzeug hashes the password
    account_name(args.name)   # before asking for a password
    path = _users_file(args)
    user = add_user(path, args.name, _read_password(), args.role)
    print(f"{path}: account {user.name} ({user.role})")
    return 0


def run_users_list(args) -> int:
    from ..serve.users import read_users

    path = _users_file(args)
    users = read_users(path)
    for u in users.values():
        print(f"{u.name}\t{u.role}")
    if not users:
        print(f"{path}: no accounts")
    return 0


def run_users_remove(args) -> int:
    from ..serve.users import remove_user

    path = _users_file(args)
    remove_user(path, args.name)
    print(f"{path}: account {args.name} removed")
    return 0


def run(args) -> int:
    """Serve the store until interrupted (a missing Flask is a one-line error naming the extra)."""
    from pathlib import Path

    from ..errors import RankerError

    _need_flask()
    if not 0 <= args.port <= 65535:
        raise RankerError(f"--port {args.port}: not a port number (0-65535)")
    from werkzeug.serving import make_server

    from ..pipeline.config import ServeSection
    from ..serve.users import default_users_file, needs_accounts, read_users, users_file_exists
    from ..serve.app import create_app

    users = args.users
    beside = default_users_file(args.store)
    # STORE.users is used when it holds an account: once the last one is removed (serve users remove)
    # the file stays, empty, and must not stop serving on loopback without accounts (beyond loopback
    # no accounts is refused below); an unreadable one is one error line
    if users is None and users_file_exists(beside) and read_users(beside):
        users = beside
    if users is not None and not Path(users).is_file():
        raise RankerError(f"--users {users}: no such file (make it with ranker serve users add NAME --users {users})")
    if needs_accounts(args.host) and users is None and not args.read_only:
        raise RankerError(f"--host {args.host} lets other machines in, so everyone must sign in: add accounts "
                          f"(ranker serve users add NAME --store {args.store}) or serve --read-only")
    if args.public_read and users is None:
        raise RankerError("--public-read opens pages that would need signing in: it needs accounts (--users)")
    app = create_app(args.store, model=args.model, read_only=args.read_only, source=args.source,
                     settings=ServeSection(host=args.host, port=args.port, read_only=args.read_only),
                     users=users, public_read=args.public_read, evidence=args.evidence)
    listening = _listen(args.host, args.port)
    try:
        server = make_server(args.host, args.port, app, threaded=True, fd=listening.fileno())
    finally:
        listening.close()   # the server holds its own duplicate of the socket
    served = app.extensions["ranker"]
    model = served.model
    print(f"ranker serve: {args.store} on http://{args.host}:{server.port}/"
          f"{' (read-only)' if args.read_only else ''}"
          f"{f', accounts of {users}' if users is not None else ''}, candidates of {served.source}, ranking with "
          f"{f'model {model.key} ({served.model_origin})' if model else 'no model (source order)'}"
          f"{f' (evidence: {served.evidence})' if served.evidence else ''}; Ctrl-C (or SIGTERM) stops", flush=True)
    _log_to_stderr()   # refused sign-ins (ranker.serve), beside Werkzeug's access log
    from .signals import Stopped, stopped_by_signals

    try:
        with stopped_by_signals():   # SIGTERM too: stop cleanly, every decision in the store file
            server.serve_forever()
    except Stopped:
        pass
    finally:
        server.server_close()
        served.close()   # checkpoint: every decision in the .sqlite file itself, none only in -wal
    print(f"ranker serve: stopped; {args.store} holds every decision", flush=True)
    return 0


def _log_to_stderr() -> None:
    """The server's own log lines (logger ``ranker.serve``: failed and refused sign-ins) on stderr."""
    import logging
    import sys

    logger = logging.getLogger("ranker.serve")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s ranker serve: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def _need_flask() -> None:
    """A one-line error naming the extra when Flask (and the Werkzeug it brings) is not installed."""
    from ..errors import RankerError

    try:
        import flask  # noqa: F401
        import werkzeug.security  # noqa: F401
    except ImportError:
        raise RankerError("ranker serve needs Flask, which is not installed: "
                          "pip install 'ranker[serve]' (the serve extra)") from None


def _listen(host: str, port: int):
    """A socket listening on ``host:port``, bound here so that a refusal is a :class:`RankerError`.

    Werkzeug binds by itself otherwise, and on a port in use prints its own two lines and exits
    with status 1 (``sys.exit`` inside ``make_server``); given the socket it binds nothing.
    """
    import errno
    import socket

    from werkzeug.serving import get_sockaddr, select_address_family

    from ..errors import RankerError

    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as Werkzeug's server does
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(128)
    except OSError as e:
        sock.close()
        why = e.strerror or str(e)
        if e.errno == errno.EADDRINUSE:
            why += ": another program is using the port; stop it, or choose another with --port (0: any free one)"
        raise RankerError(f"cannot listen on {host}:{port}: {why}") from None
    return sock
