"""Compiled kernels of the scorers: C files of this package, built once by the C compiler and cached.

Why: users call evalb and ``ranker evaluate`` in loops, and a Python process that imports numpy
already takes longer than ``evalb.c`` needs for a whole file; a small C kernel called through
:mod:`ctypes` costs a few milliseconds to load. A kernel is compiled on first use with ``$CC``
(default ``cc``) into a cache directory (``$RANKER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ranker``,
else ``~/.cache/ranker``) under a name that digests its source, the compiler and the platform, so
an edited kernel is rebuilt and later runs only load it. Without a working compiler
:func:`load_kernel` returns ``None`` and callers use their Python path (same counts, slower);
``RANKER_EVALB_KERNEL=numpy`` switches every kernel off (tests compare the two paths).
"""
from __future__ import annotations

import ctypes
import os
import sys
import zlib
from pathlib import Path

_loaded: dict[str, ctypes.CDLL | None] = {}
#: The compiler's optimisation flags (part of the cached file's digest).
FLAGS = ("-O2",)


def cache_dir() -> Path:
    """Where compiled kernels are kept between runs."""
    if os.environ.get("RANKER_CACHE_DIR"):
        return Path(os.environ["RANKER_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ranker"


def _build(source: bytes, name: str, target: Path, compiler: str) -> bool:
    """Compile ``source`` into ``target`` atomically (a temporary name, then a rename)."""
    import subprocess
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        src = Path(tmp) / name
        src.write_bytes(source)
        out = Path(tmp) / target.name
        try:
            r = subprocess.run([*compiler.split(), *FLAGS, "-shared", "-fPIC", "-o", str(out), str(src)],
                               capture_output=True)
        except OSError:      # no compiler
            return False
        if r.returncode != 0 or not out.exists():
            return False
        os.replace(out, target)
    return True


def load_kernel(name: str) -> ctypes.CDLL | None:
    """The compiled kernel of this package's C file ``name``, built on first use; ``None`` when it
    cannot be built or kernels are switched off."""
    if name in _loaded:
        return _loaded[name]
    _loaded[name] = None
    if os.environ.get("RANKER_EVALB_KERNEL", "c") != "c":
        return None
    try:
        source = Path(__file__).with_name(name).read_bytes()
        compiler = os.environ.get("CC", "cc")
        digest = zlib.crc32(b"\0".join((source, compiler.encode(), " ".join(FLAGS).encode(), sys.platform.encode(),
                                        str(ctypes.sizeof(ctypes.c_void_p)).encode())))
        target = cache_dir() / f"{Path(name).stem}-{len(source)}-{digest:08x}.so"
        if not target.exists() and not _build(source, name, target, compiler):
            return None
        lib = ctypes.CDLL(str(target))
    except OSError:          # unreadable source, unwritable cache, a library that does not load
        return None
    _loaded[name] = lib
    return lib
