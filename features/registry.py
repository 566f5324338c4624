"""The registry of property-function families, by versioned name (``"local_trees/1"``).

A family turns one :class:`ranker.store.records.Candidate` into named counts (property name ->
value). Names carry a version so that an old feature configuration keeps meaning the same thing:
a family whose output changes is registered under a new version, the old one stays.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ranker.errors import RankerError

_REGISTRY: dict[str, type] = {}


class FeatureConfigError(RankerError):
    """An unknown family or option in a feature configuration."""


def register(name: str) -> Callable[[type], type]:
    """Class decorator registering a family under ``name`` (``"family/version"``)."""
    if "/" not in name:
        raise ValueError(f"family name {name!r} needs a version, as 'name/1'")

    def deco(cls: type) -> type:
        if name in _REGISTRY:
            raise ValueError(f"family {name!r} registered twice")
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def family_names() -> list[str]:
    """Every registered family name, sorted."""
    # (registers the built-in families)
    from . import auxdist, evidence, families, link_structure, parser_scores, reranker_families  # noqa: F401

    return sorted(_REGISTRY)


def family_class(name: str) -> type | None:
    """The class registered under ``name`` (None when unknown)."""
    from . import auxdist, evidence, families, link_structure, parser_scores, reranker_families  # noqa: F401

    return _REGISTRY.get(name)


def make_family(name: str, options: dict | None = None, source: str = "<config>"):
    """Build family ``name`` with ``options``.

    Raises
    ------
    FeatureConfigError
        If the name is not registered or an option is unknown.
    """
    from . import auxdist, evidence, families, link_structure, parser_scores, reranker_families  # noqa: F401

    cls = _REGISTRY.get(name)
    if cls is None:
        raise FeatureConfigError(f"{source}: unknown feature family {name!r} (known: "
                                 f"{', '.join(sorted(_REGISTRY))})")
    try:
        return cls(**(options or {}))
    except TypeError as e:
        raise FeatureConfigError(f"{source}: family {name!r}: {e}") from None


class Family:
    """Base of property-function families: ``family(candidate) -> iterable of (name, value)``.

    Families that learn from training data (the smoothed head-argument family) override
    :meth:`fit`; the others ignore it.
    """

    name = "family/0"
    #: True when the output depends on ``candidate.tree`` alone, so extraction computes it once
    #: per distinct tree of a sentence (Link Grammar's linkages often share one constituent tree).
    per_tree = False
    #: True for families that must be fitted on training data before extraction.
    needs_fit = False
    #: For families that need fitting: whether :meth:`fit` has run (or a table was loaded).
    fitted = True
    #: True for families that read a second source's candidates of each sentence
    #: (:attr:`ranker.store.records.Forest.evidence`, config ``[evidence] source``).
    needs_evidence = False

    def fit(self, forests: Iterable) -> "Family":
        """Learn from training forests (the default family learns nothing)."""
        return self

    def begin_forest(self, forest) -> None:
        """See a forest before its candidates are extracted (the default looks at nothing).

        Per-candidate families that compare a candidate with the rest of its sentence's forest
        (the parser's log-probability relative to its best parse) read what they need here.
        """

    def fingerprint(self) -> str:
        """Digest of what the family learned in :meth:`fit` ("" when it learns nothing).

        Part of the store key of extracted matrices, so a refitted family never reads a stale one.
        """
        return ""

    def __call__(self, candidate) -> Iterable[tuple[str, float]]:
        raise NotImplementedError


class NodeFamily(Family):
    """A tree-only family whose properties are a sum over the tree's nodes (plus a tree-level rest).

    :meth:`node_properties` may look at the node's subtree, the parent's category and the tree's
    words and tags inside the node's span, nothing else, so its result is the same wherever an
    equal subtree stands under a parent of the same category. Extraction computes it once per
    distinct (subtree, parent category) of a forest (the store shares equal subtrees between a
    sentence's linkages); :meth:`__call__` adds it up over one tree, the definition the shared
    computation is tested against.
    """

    per_tree = True

    def node_properties(self, node, up: str, tree) -> Iterable[tuple[str, float]]:
        """Properties contributed by ``node`` whose parent's category is ``up`` (``"TOP"``)."""
        raise NotImplementedError

    def tree_properties(self, tree) -> Iterable[tuple[str, float]]:
        """Properties of the tree as a whole (none by default)."""
        return ()

    def __call__(self, candidate) -> Iterable[tuple[str, float]]:
        from .families import facts

        t = candidate.tree
        for n, up in facts(t).walk:
            yield from self.node_properties(n, up, t)
        yield from self.tree_properties(t)
