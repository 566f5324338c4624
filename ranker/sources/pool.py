"""The process pool now lives in :mod:`ranker.parallel`; this name stays for old imports."""
from ..parallel import run_pool  # noqa: F401
