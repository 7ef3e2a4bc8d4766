"""Every topic follows the one pattern of privlib.core (ARCHITECTURE.md, "The pattern"): every
mechanism class of every topic subclasses `privlib.core.mechanism.Mechanism` and is listed in its
topic's registry, and every topic's sweep returns a `privlib.core.sweep.SweepResult`.

The walk finds mechanism classes by what they do, not by their names: a class defined in a topic
package that releases data (it defines ``release`` or ``_release``) is a mechanism; a law that
only draws samples (e.g. label DP's ``AbsLaw``) is not."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from privlib.core.mechanism import Mechanism

TOPICS = ("words", "projections", "label_dp", "erm")
RELEASING = ("release", "_release")


def topic_modules(topic: str):
    package = importlib.import_module(f"privlib.{topic}")
    yield package
    for info in pkgutil.walk_packages(package.__path__, prefix=f"privlib.{topic}."):
        yield importlib.import_module(info.name)


def topic_classes(topic: str) -> list[type]:
    found = {}
    for module in topic_modules(topic):
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(found.values())


def releasing_classes(topic: str) -> list[type]:
    return [cls for cls in topic_classes(topic) if any(name in vars(cls) for name in RELEASING)]


@pytest.mark.parametrize("topic", TOPICS)
def test_every_mechanism_class_subclasses_the_core_base(topic):
    classes = releasing_classes(topic)
    assert classes, f"no mechanism found in privlib.{topic}"
    outside = [cls.__qualname__ for cls in classes if not issubclass(cls, Mechanism)]
    assert not outside, f"privlib.{topic}: {outside} release data but do not subclass privlib.core.mechanism.Mechanism"


@pytest.mark.parametrize("topic", TOPICS)
def test_every_concrete_mechanism_is_in_its_topics_registry(topic):
    registry = importlib.import_module(f"privlib.{topic}.mechanisms").MECHANISMS
    concrete = {cls for cls in topic_classes(topic) if issubclass(cls, Mechanism) and cls.name}
    assert concrete, f"no named mechanism in privlib.{topic}"
    assert concrete == set(registry.values()), sorted(c.__qualname__ for c in concrete ^ set(registry.values()))
    for name, cls in registry.items():
        assert cls.name == name and cls.label
        assert all(key not in ("epsilon", "delta") for key in cls.PARAMETERS), cls  # ε, δ: the protocol's


def test_the_walk_finds_a_planted_stray_mechanism(monkeypatch):
    """The walk can fail: a releasing class outside the protocol is reported."""
    import privlib.projections.mechanisms as module

    class Stray:
        def release(self, X, rng):
            return X

    Stray.__module__ = module.__name__
    monkeypatch.setattr(module, "Stray", Stray, raising=False)
    assert Stray in releasing_classes("projections")
    assert not issubclass(Stray, Mechanism)
