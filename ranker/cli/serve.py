"""``ranker serve``: browse a store's forests in a web browser and disambiguate them by discriminants."""
from __future__ import annotations

import contextlib


def add_parser(subparsers) -> None:
    """Register ``ranker serve``."""
    from ..pipeline.config import ServeSection
    from .options import add_source, add_store, config_default

    p = subparsers.add_parser(
        "serve", help="web page: browse forests, compare rankers, disambiguate by discriminants",
        description="Serve a store on a local web page: the sentences of a corpus and split with "
        "filters, each sentence's candidates ranked by a model with their probabilities, each "
        "ranker's choice and every metric's score against gold, trees drawn beside gold, and "
        "discriminants to accept or reject; decisions are stored as partial annotations of kind "
        "'user', which retraining (from the page) learns from. Needs the 'serve' extra: "
        "pip install 'ranker[serve]'.")
    add_store(p)
    add_source(p)
    p.add_argument("--model", default=None,
                   help="a stored model's key or unique prefix (ranker models list), or a model file "
                        "(default: the stored model chosen on held-out, else the first stored model "
                        "that carries its features; none: source order)")
    # defaults from ServeSection (the web page is no stage of an experiment config)
    host, port = config_default(ServeSection, "host"), config_default(ServeSection, "port")
    p.add_argument("--host", default=host,
                   help=f"address to listen on; anything but loopback lets other machines in (default {host})")
    p.add_argument("--port", type=int, default=port, help=f"port, 0 for any free one (default {port})")
    p.add_argument("--read-only", action="store_true", default=config_default(ServeSection, "read_only"),
                   help="browse only: the store is opened read-only and every POST is refused")
    p.set_defaults(func=run)


def run(args) -> int:
    """Serve the store until interrupted (a missing Flask is a one-line error naming the extra)."""
    from ..errors import RankerError

    try:
        import flask  # noqa: F401
    except ImportError:
        raise RankerError("ranker serve needs Flask, which is not installed: "
                          "pip install 'ranker[serve]' (the serve extra)") from None
    if not 0 <= args.port <= 65535:
        raise RankerError(f"--port {args.port}: not a port number (0-65535)")
    from werkzeug.serving import make_server

    from ..pipeline.config import ServeSection
    from ..serve.app import create_app

    app = create_app(args.store, model=args.model, read_only=args.read_only, source=args.source,
                     settings=ServeSection(host=args.host, port=args.port, read_only=args.read_only))
    listening = _listen(args.host, args.port)
    try:
        server = make_server(args.host, args.port, app, threaded=True, fd=listening.fileno())
    finally:
        listening.close()   # the server holds its own duplicate of the socket
    served = app.extensions["ranker"]
    model = served.model
    print(f"ranker serve: {args.store} on http://{args.host}:{server.port}/"
          f"{' (read-only)' if args.read_only else ''}, candidates of {served.source}, ranking with "
          f"{'model ' + model.key if model else 'no model (source order)'}; Ctrl-C (or SIGTERM) stops", flush=True)
    try:
        with _stopped_by_signals():
            server.serve_forever()
    except _Stop:
        pass
    finally:
        server.server_close()
        served.close()   # checkpoint: every decision in the .sqlite file itself, none only in -wal
    print(f"ranker serve: stopped; {args.store} holds every decision", flush=True)
    return 0


class _Stop(Exception):
    """SIGTERM or SIGINT arrived: leave the serving loop and shut down cleanly."""


@contextlib.contextmanager
def _stopped_by_signals():
    """SIGTERM and SIGINT (Ctrl-C) end the serving loop as an exception, so shutdown code runs.

    Killed by SIGTERM's default action, the process would leave recent decisions only in the
    store's ``-wal`` log. Handlers can only be set in the main thread; elsewhere nothing changes.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _Stop(signum)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


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
