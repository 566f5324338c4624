"""The one base class for errors a user caused (bad input, bad config, missing data).

The command line prints these as one line and exits non-zero; anything else is a bug and keeps
its traceback.
"""


class RankerError(Exception):
    """An error in what the user gave us; its message names the file, line or key at fault."""
