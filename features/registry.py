"""The registry of property-function families, by versioned name (``"local_trees/1"``).

A family turns one :class:`ranker.store.records.Candidate` into named counts (property name ->
value). Names carry a version so that an old feature configuration keeps meaning the same thing:
a family whose output changes is registered under a new version, the old one stays.

The built-in families are the entries of :data:`FAMILIES`, each its class by ``"module:Class"``,
imported on first use. The family modules import :mod:`ranker.features.base` (their base classes
and shared facts), never this module, so the registry sits above the families it names.
:func:`register` adds a family of one's own.
"""
from __future__ import annotations

from importlib import import_module
from typing import Callable

# The base classes and the configuration error, importable from here as before features/base.py
from .base import FeatureConfigError, Family, NodeFamily, named  # noqa: F401

#: The built-in families by versioned name: the class of each, by ``"module:Class"`` (a module of
#: this package). A class's own ``name`` (:func:`ranker.features.base.named`) is its key here
#: (tests/features/test_registry_table.py checks it).
FAMILIES: dict[str, str] = {
    # features/families.py
    "local_trees/1": "families:LocalTrees",
    "embedding/1": "families:Embedding",
    "right_branching/1": "families:RightBranching",
    "weight/1": "families:ConstituentWeight",
    "coordination/1": "families:Coordination",
    "sibling_ngrams/1": "families:SiblingNgrams",
    "edges/1": "families:Edges",
    "head_deps/1": "families:HeadDependencies",
    "link_grammar/1": "families:LinkGrammar",
    "quality/1": "families:Quality",
    "heidorn/1": "families:HeidornScore",
    "source_rank/1": "families:SourceRank",
    # features/reranker_families.py
    "rule/1": "reranker_families:Rule",
    "redwoods_rules/1": "reranker_families:RedwoodsRules",
    "ngram/1": "reranker_families:NGram",
    "heads/1": "reranker_families:Heads",
    "pp_attach/1": "reranker_families:PPAttach",
    "head_tree/1": "reranker_families:HeadTree",
    "ngram_tree/1": "reranker_families:NGramTree",
    "heavy/1": "reranker_families:Heavy",
    "neighbours/1": "reranker_families:Neighbours",
    "right_branch/1": "reranker_families:RightBranch",
    "copar/1": "reranker_families:CoPar",
    "colenpar/1": "reranker_families:CoLenPar",
    "word/1": "reranker_families:Word",
    "wproj/1": "reranker_families:WProj",
    "edges/2": "reranker_families:EdgesOutside",
    # features/auxdist.py
    "head_arg_aux/1": "auxdist:HeadArgumentAuxiliary",
    # features/evidence.py
    "evidence_spans/1": "evidence:EvidenceSpans",
    "evidence_deps/1": "evidence:EvidenceDependencies",
    "evidence_heads/1": "evidence:EvidenceHeads",
    # features/link_structure.py
    "lg_disjuncts/1": "link_structure:Disjuncts",
    "lg_link_pairs/1": "link_structure:LinkPairs",
    "lg_link_lengths/1": "link_structure:LinkLengths",
    "lg_nulls/1": "link_structure:NullLinks",
    "lg_costs/1": "link_structure:CostParts",
    # features/parser_scores.py
    "parser_logprob/1": "parser_scores:ParserLogProb",
    "parser_rank/1": "parser_scores:ParserRank",
}

#: Families added by :func:`register` (none built in).
_REGISTRY: dict[str, type] = {}


def register(name: str) -> Callable[[type], type]:
    """Class decorator registering a family of one's own under ``name`` (``"family/version"``)."""
    give_name = named(name)

    def deco(cls: type) -> type:
        if name in _REGISTRY or name in FAMILIES:
            raise ValueError(f"family {name!r} registered twice")
        _REGISTRY[name] = give_name(cls)
        return cls

    return deco


def family_names() -> list[str]:
    """Every registered family name, sorted."""
    return sorted({*FAMILIES, *_REGISTRY})


def family_class(name: str) -> type | None:
    """The class registered under ``name`` (None when unknown)."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    entry = FAMILIES.get(name)
    if entry is None:
        return None
    module, _, attr = entry.partition(":")
    return getattr(import_module(f".{module}", __package__), attr)


def make_family(name: str, options: dict | None = None, source: str = "<config>"):
    """Build family ``name`` with ``options``.

    Raises
    ------
    FeatureConfigError
        If the name is not registered or an option is unknown.
    """
    cls = family_class(name)
    if cls is None:
        raise FeatureConfigError(f"{source}: unknown feature family {name!r} (known: "
                                 f"{', '.join(family_names())})")
    try:
        return cls(**(options or {}))
    except TypeError as e:
        raise FeatureConfigError(f"{source}: family {name!r}: {e}") from None
