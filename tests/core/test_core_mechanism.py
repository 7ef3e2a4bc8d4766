"""The one mechanism protocol of privlib.core.mechanism: construction validated once, ε required,
δ only where the guarantee has one, the structured guarantee, release → _release."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.core.mechanism import GUARANTEE_KINDS, Guarantee, Mechanism, Parameter
from privlib.core.registry import make_from_registry, registry_by_name


class Coin(Mechanism):
    """A test mechanism: binary randomised response of one bit (pure ε-DP)."""

    name = "coin"
    label = "Coin"
    PARAMETERS = {"bias": Parameter(0.0, low=0.0, high=0.5, help="extra flip probability")}
    EPSILON_ZERO_ALLOWED = True

    def __init__(self, *, epsilon, bias=0.0):
        if not 0.0 <= bias <= 0.5:
            raise ValueError("bias must be in [0, 0.5].")
        self.bias = bias
        super().__init__(epsilon=epsilon)

    def _guarantee(self):
        return Guarantee("pure-dp", f"ε-DP (ε = {self.epsilon:g})", neighbours="one bit", epsilon=self.epsilon)

    def release(self, bits, rng):
        bits = np.asarray(bits)
        if not np.isin(bits, (0, 1)).all():
            raise ValueError("bits must be 0 or 1.")
        return self._release(bits, rng)

    def _release(self, bits, rng):
        flip = rng.random(bits.shape) < 1.0 / (1.0 + math.exp(self.epsilon))
        return np.where(flip, 1 - bits, bits)


class GaussianSum(Mechanism):
    name = "gaussian-sum"
    label = "Gaussian sum"
    USES_DELTA = True

    def _guarantee(self):
        return Guarantee("approximate-dp", "(ε, δ)-DP", epsilon=self.epsilon, delta=self.delta)


class Reference(Mechanism):
    name = "reference"
    label = "Non-private reference"
    REQUIRES_EPSILON = False

    def __init__(self):
        super().__init__(epsilon=None)

    def _guarantee(self):
        return Guarantee("none", "no privacy guarantee")


def test_epsilon_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        Coin()  # no default ε
    with pytest.raises(TypeError):
        GaussianSum(1.0, 1e-6)  # keyword-only
    assert Coin(epsilon=2).epsilon == 2.0


@pytest.mark.parametrize("epsilon", [-1, math.nan, math.inf, "1", True, None])
def test_an_invalid_epsilon_is_refused_at_construction(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        Coin(epsilon=epsilon)


def test_epsilon_zero_only_where_the_mechanism_allows_it():
    assert Coin(epsilon=0).epsilon == 0.0
    with pytest.raises(ValueError, match="greater than 0"):
        GaussianSum(epsilon=0, delta=1e-6)


@pytest.mark.parametrize("delta", [None, 0, 1, 1.5, -0.1, math.nan])
def test_delta_is_required_and_checked_where_the_guarantee_has_one(delta):
    with pytest.raises(ValueError, match="delta"):
        GaussianSum(epsilon=1, delta=delta)


def test_a_pure_mechanism_accepts_a_valid_delta_but_keeps_none():
    coin = Coin(epsilon=1)
    assert coin.delta is None
    with pytest.raises(ValueError, match="delta"):
        Mechanism.__init__(coin, epsilon=1, delta=2.0)


def test_a_non_private_reference_takes_no_epsilon():
    reference = Reference()
    assert reference.epsilon is None and not reference.guarantee.is_private
    with pytest.raises(ValueError, match="takes no epsilon"):
        Mechanism.__init__(reference, epsilon=1.0)


def test_the_guarantee_is_structured_and_prints_its_text():
    guarantee = GaussianSum(epsilon=0.5, delta=1e-6).guarantee
    assert (guarantee.kind, guarantee.epsilon, guarantee.delta) == ("approximate-dp", 0.5, 1e-6)
    assert str(guarantee) == "(ε, δ)-DP" and guarantee.is_private
    assert guarantee.to_dict()["kind"] == "approximate-dp"
    with pytest.raises(ValueError, match="Unknown guarantee kind"):
        Guarantee("almost-dp", "?")
    assert set(GUARANTEE_KINDS) >= {"pure-dp", "approximate-dp", "gdp", "metric-dp", "label-dp", "local-dp", "none"}


def test_release_validates_then_calls_the_subclass():
    coin = Coin(epsilon=50.0)  # flips with probability e^-50: never in practice
    out = coin.release(np.array([0, 1, 1, 0]), np.random.default_rng(0))
    assert out.tolist() == [0, 1, 1, 0]
    with pytest.raises(ValueError, match="0 or 1"):
        coin.release(np.array([2]), np.random.default_rng(0))


def test_describe_repr_and_parameters():
    coin = Coin(epsilon=1, bias=0.25)
    assert coin.parameters == {"bias": 0.25}
    assert repr(coin) == "Coin(epsilon=1.0, bias=0.25)"
    described = coin.describe()
    assert described["name"] == "coin" and described["guarantee"] == "ε-DP (ε = 1)"
    assert described["guarantee_kind"] == "pure-dp"
    assert described["parameters"]["bias"] == {"default": 0.0, "low": 0.0, "high": 0.5, "choices": [],
                                               "help": "extra flip probability"}


def test_the_registry_builds_by_name_and_names_what_is_valid():
    registry = registry_by_name([Coin, GaussianSum])
    assert list(registry) == ["coin", "gaussian-sum"]
    assert make_from_registry(registry, "coin", {"epsilon": 1, "bias": 0.1}).bias == 0.1
    with pytest.raises(ValueError, match="choose one of: coin, gaussian-sum"):
        make_from_registry(registry, "cion", {"epsilon": 1})
    with pytest.raises(ValueError, match="its parameters are: bias"):
        make_from_registry(registry, "coin", {"epsilon": 1, "speed": 3})
