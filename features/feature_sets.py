"""A feature configuration read and checked: which families, with which options, and the cut-off.

A feature set is a TOML file (``configs/features/<name>.toml``, or any path) of ``name``,
``cutoff`` and one ``[[family]]`` table per family; :class:`FeatureSet` is it resolved, with the
digest that keys the matrices extracted with it in the store (:attr:`FeatureSet.version`). Apart
from the extraction (:mod:`.vectorizer`) because a configuration is read, checked and saved
beside a model (``ranker apply``, ``ranker validate``) where nothing is extracted.
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import NamedTuple

from ranker.shipped import shipped_file
from ranker.textfiles import read_text

from .registry import FeatureConfigError, make_family


class FeatureSet(NamedTuple):
    """A resolved feature configuration: which families with which options, and the cut-off."""

    name: str
    families: tuple[tuple[str, tuple[tuple[str, object], ...]], ...]   # (family, sorted options)
    cutoff: int

    @property
    def version(self) -> str:
        """Digest of the families and options: the store key of matrices extracted with them."""
        doc = json.dumps([[f, [list(o) for o in opts]] for f, opts in self.families], sort_keys=True)
        return f"{self.name}-{hashlib.sha256(doc.encode()).hexdigest()[:12]}"

    def to_dict(self) -> dict:
        return {"name": self.name, "cutoff": self.cutoff,
                "family": [{"name": f, **dict(opts)} for f, opts in self.families]}

    def build(self) -> list:
        """The family objects, in configuration order."""
        return [make_family(f, dict(opts), self.name) for f, opts in self.families]

    def evidence_families(self) -> list[str]:
        """The families that read a second source's candidates (``[evidence] source``), unbuilt."""
        from .registry import family_class

        return [f for f, _ in self.families if getattr(family_class(f), "needs_evidence", False)]


def feature_set_path(path_or_name) -> Path:
    """The file of a feature configuration: ``path_or_name`` itself, or the shipped set of that name."""
    path = Path(path_or_name)
    if not path.exists() and not path.suffix:
        return shipped_file("features", str(path_or_name), ".toml") or path
    return path


def load_feature_set(path_or_name) -> FeatureSet:
    """Read a feature configuration (a path, or a name in ``configs/features/``).

    The file holds ``name``, ``cutoff`` and one ``[[family]]`` table per family: its ``name``
    (``"local_trees/1"``) and its options.

    Raises
    ------
    FeatureConfigError
        Unreadable TOML, unknown keys, families or options.
    """
    path = feature_set_path(path_or_name)
    try:
        doc = tomllib.loads(read_text(path, "feature configuration"))
    except FileNotFoundError as e:
        raise FeatureConfigError(str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise FeatureConfigError(f"{path}: {e}") from None
    return feature_set_from_dict(doc, str(path))


def feature_set_from_dict(doc: dict, source: str = "<features>") -> FeatureSet:
    """Validate a parsed feature configuration (see :func:`load_feature_set`)."""
    unknown = set(doc) - {"name", "cutoff", "family"}
    if unknown:
        raise FeatureConfigError(f"{source}: unknown key(s) {sorted(unknown)} (expected name, cutoff, [[family]])")
    cutoff = doc.get("cutoff", 1)
    if not isinstance(cutoff, int) or isinstance(cutoff, bool) or cutoff < 0:
        raise FeatureConfigError(f"{source}: cutoff must be an integer >= 0, not {cutoff!r}")
    fams = []
    for i, entry in enumerate(doc.get("family", [])):
        if "name" not in entry:
            raise FeatureConfigError(f"{source}: [[family]] number {i + 1} has no name")
        opts = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                            for k, v in entry.items() if k != "name"))
        fams.append((entry["name"], opts))
    if not fams:
        raise FeatureConfigError(f"{source}: no [[family]] given")
    fs = FeatureSet(str(doc.get("name", Path(source).stem)), tuple(fams), cutoff)
    for f, opts in fs.families:  # unknown families and options fail here, naming the file
        make_family(f, dict(opts), source)
    return fs
