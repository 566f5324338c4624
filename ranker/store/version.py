"""The version of the ranker code that is running, as each recorded run keeps it."""
from __future__ import annotations

from pathlib import Path


def code_version() -> str:
    """The ranker code that is running: its package version, and its git commit when run from a checkout.

    Read from the files (no ``git`` process), so recording a run costs nothing measurable.
    """
    import importlib.metadata as md

    try:
        version = md.version("ranker")
    except md.PackageNotFoundError:
        version = "unknown"
    git = Path(__file__).resolve().parents[2] / ".git"
    try:
        if git.is_file():                      # a worktree: "gitdir: PATH"
            git = Path(git.read_text().split(":", 1)[1].strip())
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = head[5:]
            common = (git / (git / "commondir").read_text().strip()).resolve() \
                if (git / "commondir").exists() else git
            loose = [d / ref for d in (git, common) if (d / ref).exists()]
            if loose:
                head = loose[0].read_text().strip()
            else:                              # packed: "SHA REF" lines
                packed = common / "packed-refs"
                lines = packed.read_text().splitlines() if packed.exists() else []
                head = next((ln.split()[0] for ln in lines if ln.endswith(" " + ref)), "")
        if head:
            version += f"+g{head[:12]}"
    except (OSError, IndexError):
        pass
    return version
