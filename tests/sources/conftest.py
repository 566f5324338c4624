"""Shared, read-once samples of the real corpora (NLTK_DATA) for the source tests."""
import pytest

from ranker.sources.treebank import treebank_sentences


@pytest.fixture(scope="session")
def treebank_sample():
    """Gold sentences of the whole NLTK treebank sample, read once per test session."""
    return list(treebank_sentences())
