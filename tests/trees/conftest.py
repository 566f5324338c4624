"""Shared fixtures: the NLTK WSJ sample, read once per session."""
import os

import pytest

from ranker.trees.tree import Tree


@pytest.fixture(scope="session")
def wsj_trees():
    """All 3,914 trees of NLTK's WSJ sample (NLTK_DATA must point at the shared data)."""
    assert os.environ.get("NLTK_DATA"), "set NLTK_DATA to the folder holding corpora/treebank"
    from nltk.corpus import treebank

    return [Tree.from_nltk(t) for t in treebank.parsed_sents()]
