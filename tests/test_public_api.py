"""The public import surface: every name in ``ranker.__all__`` resolves to the real object."""
import importlib

import pytest

import ranker


@pytest.mark.parametrize("name", [n for n in ranker.__all__ if n != "__version__"])
def test_every_public_name_resolves_to_its_module_object(name):
    module = importlib.import_module(ranker._PUBLIC[name])
    assert getattr(ranker, name) is getattr(module, name)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError):
        ranker.NoSuchThing  # noqa: B018
