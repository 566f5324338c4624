"""The feature registry's table of entries (ranker.features.registry.FAMILIES) names each family
as the family names itself, and a family of one's own is registered beside them."""
import pytest

from ranker.features import registry
from ranker.features.base import Family, named


@pytest.mark.parametrize("name", sorted(registry.FAMILIES))
def test_each_entry_is_the_class_of_that_name(name):
    cls = registry.family_class(name)
    assert issubclass(cls, Family) and cls.name == name


def test_a_family_of_ones_own_is_registered_beside_the_table(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", {})

    @registry.register("mine/1")
    class Mine(Family):
        def __call__(self, candidate):
            yield ("mine", 1.0)

    assert Mine.name == "mine/1" and registry.family_class("mine/1") is Mine
    assert "mine/1" in registry.family_names() and isinstance(registry.make_family("mine/1"), Mine)
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("local_trees/1")(Mine)
    with pytest.raises(ValueError, match="needs a version"):
        named("mine")
    with pytest.raises(registry.FeatureConfigError, match="unknown feature family 'nope/1'"):
        registry.make_family("nope/1")
