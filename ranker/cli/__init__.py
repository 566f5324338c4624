"""The ``ranker`` command: one module per subcommand, dispatched by :mod:`ranker.cli.main`."""
