"""``ranker serve``: a web page to browse forests and disambiguate them by discriminants.

The package needs the optional ``serve`` extra (Flask); nothing here is imported by the rest of
ranker. :func:`ranker.serve.app.create_app` builds the application.
"""
