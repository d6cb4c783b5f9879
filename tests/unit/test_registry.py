import pytest

from mlbench.errors import ConfigError
from mlbench.methods import registry


def test_unknown_method_suggests_closest():
    registry.discover()
    names = [s.name for s in registry.all_methods()]
    assert names
    with pytest.raises(ConfigError, match="did you mean"):
        registry.get(names[0] + "x")


def test_register_twice_with_other_class_is_an_error():
    class A:
        pass

    class B:
        pass

    registry.register("__test-a", A, family="test", paper="platform")
    registry.register("__test-a", A, family="test", paper="platform")  # same: fine
    with pytest.raises(ValueError):
        registry.register("__test-a", B, family="test", paper="platform")
    del registry._REGISTRY["__test-a"]
