"""The one base class for errors a user caused (bad input, bad config, missing data).

The command line prints these as one line and exits non-zero; anything else is a bug and keeps
its traceback.
"""


class RankerError(Exception):
    """An error in what the user gave us; its message names the file, line or key at fault.

    It crosses process boundaries whole: a worker's error is pickled to the parent, and an
    exception whose ``__init__`` takes other arguments than its message (``TreeSyntaxError(message,
    source, line, column)``) cannot be rebuilt the default way, from its ``args``. A pool's result
    thread died of that and the pool waited forever for the result (issue 44, item 8), so every
    subclass is rebuilt from its message and attributes instead, whatever its ``__init__`` takes.
    """

    def __reduce__(self):
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(cls, args: tuple, state: dict) -> RankerError:
    """A pickled :class:`RankerError` (of any subclass) made again without calling its ``__init__``."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error
