"""Every topic follows the one pattern of privlib.core (ARCHITECTURE.md, "The pattern"): every
mechanism class of every topic subclasses `privlib.core.mechanism.Mechanism` and is listed in its
topic's registry, and every topic's sweep returns a `privlib.core.sweep.SweepResult`.

The walk finds mechanism classes by what they do, not by their names: a class defined in a topic
package that releases data (it defines ``release`` or ``_release``) is a mechanism; a law that
only draws samples (e.g. label DP's ``AbsLaw``) is not."""
from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import numpy as np
import pytest

from privlib.core.mechanism import Mechanism
from privlib.core.sweep import SweepResult

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


def small_sweeps():
    """Each topic's sweep on a small problem, as (topic, result)."""
    from privlib.erm.sweep import sweep as erm_sweep
    from privlib.label_dp.sweep import sweep as label_sweep
    from privlib.projections.datasets import load_dataset
    from privlib.projections.sweep import sweep as projection_sweep
    from privlib.words.embeddings import EmbeddingSpace
    from privlib.words.experiments import sweep as word_sweep
    from privlib.words.mechanisms import MultivariateLaplace

    space = EmbeddingSpace.glove_6b_50d(vocab_size=2000)
    yield "words", word_sweep(space, [MultivariateLaplace.family()], [1, 30], repeats=3, seed=0)
    yield "projections", projection_sweep(load_dataset("digits"), ["dp-oporp"], [1, 10], repeats=2, seed=0, k=8,
                                          R=10, queries=20)
    yield "label_dp", label_sweep("fig1", ["rr"], [1], repeats=2, seed=0)
    yield "erm", erm_sweep("diabetes", ["output"], [1, 10], repeats=2, seed=0)


def test_every_topics_sweep_returns_one_sweep_result():
    """mechanism × ε × repetition × metric, with the seed and repetitions asked for."""
    seen = set()
    for topic, result in small_sweeps():
        assert isinstance(result, SweepResult), topic
        assert result.values.ndim == 4 and result.values.shape[0] == len(result.mechanisms), topic
        assert result.repeats >= 2 and result.seed == 0, topic
        assert np.isfinite(result.mean(result.mechanisms[0], result.metrics[0])).all(), topic
        json.loads(result.to_json())
        seen.add(topic)
    assert seen == set(TOPICS)
