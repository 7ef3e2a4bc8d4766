"""The projection mechanisms: noise scales from the realised sensitivities against exact values,
keep / flip probabilities against §4's reference values, sampled noise and flip rates against their
laws (4 standard errors), sgn(0) as a fair coin, public vs fresh randomness, N₊ with a public norm
bound, the registry, and the input checks."""
from __future__ import annotations

import dataclasses
import inspect
import json
import math

import numpy as np
import pytest
from scipy.special import ndtr

import privlib.projections.mechanisms as mechanisms_module
from privlib.core.calibration import analytic_gaussian_sigma
from privlib.core.mechanism import Mechanism, Parameter
from privlib.core.statistics import binomial_standard_error
from privlib.projections.mechanisms import (
    ALL_MECHANISMS,
    DPOPORP,
    DPRPG,
    DPRPL,
    MECHANISMS,
    NEIGHBOURS,
    AnalyticDPRPG,
    DPRPGOpt,
    DPRPGOptB,
    DPSignOPORPRR,
    DPSignOPORPRRSmooth,
    DPSignRPRR,
    DPSignRPRRSmooth,
    IDPSignRPG,
    IDPSignRPRR,
    ProjectionMechanism,
    RawDataGaussianOpt,
    Release,
    make_mechanism,
    oporp_repetition_seeds,
    signs_with_coins,
)
from privlib.projections.projection import make_projection

SIGMA_STAR_EPS1 = 4.224678889  # σ*(1, 1e-6, 1), §4 table
SIGN_MECHANISMS = [cls for cls in ALL_MECHANISMS if cls.output == "sign"]
REAL_MECHANISMS = [cls for cls in ALL_MECHANISMS if cls.output == "real"]


def uniform_data(n, p, seed=0, low=0.0):
    return np.random.default_rng(seed).uniform(low, 1.0, (n, p))


def within(observed, expected, se, z=4.0):
    return abs(observed - expected) <= z * se


# ------------------------------------------------------------------------------------------------
# Noise scales (§3) against exact values
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon, sigma", [(1.0, 7.347686), (10.0, 0.9236837)])
def test_analytic_dp_rp_g_sigma_reference_values(epsilon, sigma):
    mech = AnalyticDPRPG(epsilon=epsilon, delta=1e-6, k=256, p=784)
    public = mech.public_parameters()
    assert public["sigma"] == pytest.approx(sigma, rel=1e-6)
    assert public["lemma33_bound"] > 1.0 and public["bound_holds"] == (public["delta2"] <= public["lemma33_bound"])


def test_gaussian_mechanisms_use_the_realised_delta2():
    p, k, eps, delta, beta = 784, 256, 1.0, 1e-6, 0.5
    gaussian = make_projection("gaussian", p, k, seed=3)
    d2 = gaussian.delta2(beta)
    assert d2 > beta  # ≈ 1.14β: pitfall 1 (a Gaussian W is not Δ₂ = β)
    opt = DPRPGOpt(epsilon=eps, delta=delta, beta=beta, k=k, seed=3, p=p).public_parameters()
    assert opt["sigma"] == pytest.approx(SIGMA_STAR_EPS1 * d2, rel=1e-9)
    assert opt["delta2"] == d2 and opt["projection"] == gaussian.to_dict()
    kenthapadi = DPRPG(epsilon=eps, delta=delta, beta=beta, k=k, seed=3, p=p).public_parameters()["sigma"]
    assert kenthapadi == pytest.approx(d2 * math.sqrt(2 * (math.log(1 / delta) + eps)) / eps, rel=1e-12)
    for kind in ("gaussian", "uniform", "sparse"):
        proj = make_projection(kind, p, k, seed=3, s=10)
        mech = DPRPGOptB(epsilon=eps, delta=delta, beta=beta, k=k, seed=3, p=p, projection=kind, s=10)
        assert mech.public_parameters()["sigma"] == pytest.approx(SIGMA_STAR_EPS1 * proj.delta2(beta), rel=1e-9)
    # Rademacher and OPORP: Δ₂ = β exactly, σ = σ*(ε, δ, β)
    assert DPRPGOptB(epsilon=eps, delta=delta, beta=beta, k=k, seed=3, p=p).public_parameters()[
        "sigma"] == pytest.approx(
        SIGMA_STAR_EPS1 * beta, rel=1e-9)
    assert DPOPORP(epsilon=eps, delta=delta, beta=beta, k=k, seed=3, p=p).public_parameters()["sigma"] == pytest.approx(
        SIGMA_STAR_EPS1 * beta, rel=1e-9)
    assert RawDataGaussianOpt(epsilon=eps, delta=delta, beta=beta, p=p).public_parameters()["sigma"] == pytest.approx(
        SIGMA_STAR_EPS1 * beta, rel=1e-9)


def test_dp_rp_l_scale_is_realised_delta1_over_epsilon():
    mech = DPRPL(epsilon=2.0, beta=1.0, k=256, seed=0, p=784)
    public = mech.public_parameters()
    d1 = make_projection("gaussian", 784, 256, 0).delta1(1.0)
    assert public["laplace_scale"] == pytest.approx(d1 / 2.0, rel=1e-14)
    assert public["delta"] is None and mech.guarantee.text.startswith("ε-DP") and mech.guarantee.kind == "pure-dp"


@pytest.mark.parametrize("cls", [c for c in REAL_MECHANISMS if c is not DPRPL])
def test_gaussian_noise_sd_matches_sigma(cls):
    n, p, k = 3000, 64, 64
    X = uniform_data(n, p, seed=1)
    mech = cls(epsilon=3.0, delta=1e-5, beta=1.0, k=k, seed=2)
    release = mech.release(X, np.random.default_rng(5))
    noise = release.values - mech.project(X)
    sigma = release.sigma
    assert sigma == release.public["sigma"] and release.values.dtype == np.float64
    assert release.values.shape == (n, p if cls is RawDataGaussianOpt else k)
    m = noise.size
    assert within(noise.std(), sigma, sigma / math.sqrt(2 * m))
    assert within(noise.mean(), 0.0, sigma / math.sqrt(m))


def test_laplace_noise_variance_matches_its_scale():
    X = uniform_data(3000, 64, seed=1)
    mech = DPRPL(epsilon=50.0, k=64, seed=2)
    release = mech.release(X, np.random.default_rng(6))
    noise = release.values - mech.project(X)
    b = release.public["laplace_scale"]
    m = noise.size
    assert release.sigma is None
    assert within(np.mean(noise**2), 2 * b * b, math.sqrt(20.0 / m) * b * b)  # Var(X²) = 20b⁴ for Laplace(b)
    assert within(np.mean(np.abs(noise)), b, b / math.sqrt(m))  # E|X| = b, Var|X| = b²


# ------------------------------------------------------------------------------------------------
# Keep and flip probabilities against §4
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("eps_per_bit, keep", [(0.1, .5249791875), (1.0, .7310585786), (2.0, .8807970780),
                                               (5.0, .9933071491)])
def test_rr_keep_probabilities(eps_per_bit, keep):
    k = 4
    mech = DPSignRPRR(epsilon=eps_per_bit * k, k=k, p=6)
    x = np.array([[0.3, -0.2, 1e-300, -5.0]])
    plus = mech.plus_probabilities(x)
    np.testing.assert_allclose(plus, [[keep, 1 - keep, keep, 1 - keep]], rtol=0, atol=1e-10)
    oporp = DPSignOPORPRR(epsilon=eps_per_bit * 2, k=k, p=6, t=2)  # ε/t per bit
    np.testing.assert_allclose(oporp.plus_probabilities(x), [[keep, 1 - keep, keep, 1 - keep]], rtol=0, atol=1e-10)


@pytest.mark.parametrize("level, flip", [(1, .2689414214), (2, .1192029220), (3, .0474258732), (5, .0066928509)])
def test_smooth_flip_probabilities(level, flip):
    """Fig. 6 (ε = 1, k = 1): flip = 1/(e^{L·ε/k} + 1) for L = ⌈|z|/D⌉."""
    dense = DPSignRPRRSmooth(epsilon=1.0, k=1, p=5, seed=0)
    public = dense.public_parameters()
    D = public["D"][0]
    x = np.array([[(level - 0.5) * D * public["scale"]], [-(level - 0.01) * D * public["scale"]]])
    plus = dense.plus_probabilities(x)
    assert 1 - plus[0, 0] == pytest.approx(flip, abs=1e-10) and plus[1, 0] == pytest.approx(flip, abs=1e-10)
    oporp = DPSignOPORPRRSmooth(epsilon=1.0, k=1, p=5, seed=0)
    plus = oporp.plus_probabilities(np.array([[level - 0.5], [-(level - 0.01)]]))
    assert 1 - plus[0, 0] == pytest.approx(flip, abs=1e-10) and plus[1, 0] == pytest.approx(flip, abs=1e-10)


def test_keep_probabilities_do_not_overflow():
    mech = DPSignOPORPRR(epsilon=1000.0, k=4, p=6)
    plus = mech.plus_probabilities(np.array([[1.0, -1.0, 0.0, 2.0]]))
    assert np.all(np.isfinite(plus))
    np.testing.assert_array_equal(plus, [[1.0, 0.0, 0.5, 1.0]])


# ------------------------------------------------------------------------------------------------
# Sampled flip rates against their probabilities
# ------------------------------------------------------------------------------------------------

def true_signs(projected):
    return np.sign(projected)


@pytest.mark.parametrize("cls", SIGN_MECHANISMS)
def test_every_sign_mechanism_flips_at_its_stated_rate(cls):
    """Total flips against Σ flip probabilities (independent bits, exact variance), 4 SE."""
    X = uniform_data(1500, 256, seed=3)
    mech = cls(epsilon=20.0, delta=1e-6, beta=1.0, k=64, seed=4)
    projected = mech.project(X)
    release = mech.release_projected(projected, np.random.default_rng(7), X=X)
    assert release.values.dtype == np.int8 and set(np.unique(release.values)) <= {-1, 1}
    plus = mech.plus_probabilities(projected, X)
    nonzero = projected != 0
    s = true_signs(projected)
    flip_probability = np.where(s > 0, 1 - plus, plus)[nonzero]
    flips = (release.values != s)[nonzero]
    expected = flip_probability.sum()
    se = math.sqrt(np.sum(flip_probability * (1 - flip_probability)))
    assert within(flips.sum(), expected, se)


def test_dp_signrp_rr_flip_rate_is_expit_minus_eps_over_k():
    X = uniform_data(2000, 128, seed=8)
    k, eps = 128, 64.0
    release = DPSignRPRR(epsilon=eps, k=k, seed=1).release(X, np.random.default_rng(2))
    flip = 1 / (math.exp(eps / k) + 1)
    assert release.epsilon_per_bit == eps / k and release.public["n_plus"] == k
    projected = make_projection("gaussian", 128, k, 1).apply(X)
    rate = np.mean(release.values != np.sign(projected))
    assert within(rate, flip, binomial_standard_error(flip, release.values.size))


def test_smooth_flip_rate_per_level():
    X = uniform_data(3000, 64, seed=9, low=-1.0)
    k, eps = 64, 32.0  # ε/k = 0.5 per level
    mech = DPSignRPRRSmooth(epsilon=eps, k=k, seed=2)
    release = mech.release(X, np.random.default_rng(3))
    levels = release.diagnostics["levels"]
    projected = mech.project(X)
    flips = release.values != np.sign(projected)
    checked = 0
    for level in range(1, levels.max() + 1):
        mask = levels == level
        if mask.sum() < 1000:
            continue
        flip = 1 / (math.exp(level * eps / k) + 1)
        assert within(flips[mask].mean(), flip, binomial_standard_error(flip, mask.sum()))
        checked += 1
    assert checked >= 3
    # L_j = ⌈|z_j|/D_j⌉ with z unscaled, D_j = β·maxᵢ|W_ij|
    W = make_projection("gaussian", 64, k, 2).matrix
    np.testing.assert_array_equal(levels, np.ceil(np.abs(X @ W) / np.abs(W).max(axis=0)))


def test_signoporp_flip_rates_with_repetitions():
    X = uniform_data(2000, 256, seed=10)
    eps, t, k = 4.0, 2, 64
    mech = DPSignOPORPRR(epsilon=eps, k=k, t=t, seed=5)
    projected = mech.project(X)
    release = mech.release_projected(projected, np.random.default_rng(4), X=X)
    flip = 1 / (math.exp(eps / t) + 1)
    nonzero = projected != 0
    rate = np.mean((release.values != np.sign(projected))[nonzero])
    assert release.epsilon_per_bit == eps / t
    assert within(rate, flip, binomial_standard_error(flip, nonzero.sum()))
    smooth = DPSignOPORPRRSmooth(epsilon=eps, k=k, t=t, seed=5)
    release = smooth.release_projected(projected, np.random.default_rng(5), X=X)
    levels = release.diagnostics["levels"]
    np.testing.assert_array_equal(levels, np.ceil(np.abs(projected)))
    for level in (1, 2, 3):
        mask = levels == level
        flip = 1 / (math.exp(level * eps / t) + 1)
        assert within(np.mean((release.values != np.sign(projected))[mask]), flip,
                      binomial_standard_error(flip, mask.sum()))


def test_idp_bits_outside_a_are_exact_and_inside_a_are_randomised():
    X = uniform_data(2000, 256, seed=11)
    k, eps = 64, 1.0
    for cls in (IDPSignRPRR, IDPSignRPG):
        mech = cls(epsilon=eps, delta=1e-6, k=k, seed=6)
        projected = mech.project(X)
        release = mech.release_projected(projected, np.random.default_rng(8), X=X)
        A = np.abs(projected) <= 1.0 / math.sqrt(k) * (1 + 1e-9)
        np.testing.assert_array_equal(release.diagnostics["n_tilde"], A.sum(axis=1))
        s = np.sign(projected)
        np.testing.assert_array_equal(release.values[~A], s[~A])
        assert 0 < A.mean() < 0.5  # ≈ 2Φ(β/‖u‖) − 1 ≈ 0.09 at ‖u‖ ≈ 9.2
        assert release.epsilon_per_bit is None and release.sigma is None
        if cls is IDPSignRPRR:
            counts = A.sum(axis=1)
            flip = np.broadcast_to((1 / (np.exp(eps / np.maximum(counts, 1)) + 1))[:, None], A.shape)[A]
        else:
            sigma = analytic_gaussian_sigma(eps, 1e-6, 1.0) * np.sqrt(A.sum(axis=1) / k)
            np.testing.assert_allclose(release.diagnostics["sigma"], sigma, rtol=1e-12)
            flip = ndtr(-np.abs(projected) / np.where(sigma > 0, sigma, 1.0)[:, None])[A]
        flips = (release.values != s)[A]
        assert within(flips.sum(), flip.sum(), math.sqrt(np.sum(flip * (1 - flip))))


def test_idp_with_no_bit_at_risk_is_the_plain_signrp():
    X = uniform_data(200, 16, seed=14)
    for cls in (IDPSignRPRR, IDPSignRPG):
        mech = cls(epsilon=0.01, delta=1e-6, k=4, seed=0)
        projected = mech.project(X)
        release = mech.release_projected(projected, np.random.default_rng(0), X=X)
        far = release.diagnostics["n_tilde"] == 0
        assert 10 < far.sum() < 190
        np.testing.assert_array_equal(np.all(np.abs(projected) > 0.5, axis=1), far)
        np.testing.assert_array_equal(release.values[far], np.sign(projected[far]))


# ------------------------------------------------------------------------------------------------
# sgn(0) is a fair coin, never 0
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", SIGN_MECHANISMS)
def test_sign_of_zero_is_a_fair_coin(cls):
    X = np.zeros((1000, 32))
    release = cls(epsilon=2.0, delta=1e-6, k=64, seed=1).release(X, np.random.default_rng(9))
    values = release.values
    assert values.dtype == np.int8 and not np.any(values == 0)
    assert set(np.unique(values)) == {-1, 1}
    assert within(np.mean(values == 1), 0.5, binomial_standard_error(0.5, values.size))


def test_signs_with_coins():
    values = np.zeros((400, 100))
    values[:, :10] = 2.0
    values[:, 10:20] = -1e-300
    signs = signs_with_coins(values, np.random.default_rng(1))
    assert signs.dtype == np.int8
    assert np.all(signs[:, :10] == 1) and np.all(signs[:, 10:20] == -1)
    coins = signs[:, 20:]
    assert not np.any(coins == 0)
    assert within(np.mean(coins == 1), 0.5, binomial_standard_error(0.5, coins.size))


def test_empty_oporp_bins_give_coins():
    """p = 2048, k = 128, 80 nonzeros: most bins are empty (pitfall 8) and each gives a coin."""
    rng = np.random.default_rng(12)
    X = np.zeros((500, 2048))
    for row in X:
        row[rng.choice(2048, 80, replace=False)] = rng.uniform(0.5, 1.0, 80)
    mech = DPSignOPORPRR(epsilon=1000.0, k=128, seed=3)  # keep ≈ 1: only the coins are random
    projected = mech.project(X)
    empty = projected == 0
    assert 60 < empty.sum(axis=1).mean() < 75  # ≈ 67 (§6, pitfall 8)
    values = mech.release_projected(projected, rng, X=X).values
    assert within(np.mean(values[empty] == 1), 0.5, binomial_standard_error(0.5, empty.sum()))
    np.testing.assert_array_equal(values[~empty], np.sign(projected[~empty]))


# ------------------------------------------------------------------------------------------------
# Public randomness drawn once; noise and coins fresh
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [c for c in ALL_MECHANISMS if c is not RawDataGaussianOpt])
def test_public_projection_is_reported_and_noise_is_fresh(cls):
    X = uniform_data(50, 40, seed=2)
    mech = cls(epsilon=5.0, delta=1e-6, k=16, seed=21)
    first = mech.release(X, np.random.default_rng(1))
    again = mech.release(X, np.random.default_rng(1))
    other = cls(epsilon=5.0, delta=1e-6, k=16, seed=21).release(X, np.random.default_rng(2))
    np.testing.assert_array_equal(first.values, again.values)
    assert not np.array_equal(first.values, other.values)
    rng = np.random.default_rng(3)
    assert not np.array_equal(mech.release(X, rng).values, mech.release(X, rng).values)
    kind = mech.kind
    if cls in (DPSignOPORPRR, DPSignOPORPRRSmooth):
        assert first.public["projection"] == make_projection("oporp", 40, 16, 21).to_dict()
    else:
        assert first.public["projection"] == make_projection(kind, 40, 16, 21).to_dict()
    assert first.mechanism == cls.name and first.guarantee == mech.guarantee.text
    # the projection depends on the public configuration only, not on ε
    np.testing.assert_array_equal(mech.project(X), cls(epsilon=0.5, delta=1e-6, k=16, seed=21).project(X))
    replay = mech.release_projected(mech.project(X), np.random.default_rng(1), X=X)
    np.testing.assert_array_equal(replay.values, first.values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.mechanism = "other"


def test_signoporp_repetitions_are_independent_oporps_concatenated():
    X = uniform_data(20, 50, seed=4)
    mech = DPSignOPORPRR(epsilon=4.0, k=16, t=4, seed=7)
    projections = mech.projections(50)
    seeds = oporp_repetition_seeds(7, 4)
    assert len(projections) == 4 and len(set(seeds)) == 4
    assert all(pr.kind == "oporp" and pr.k == 4 and pr.seed == s for pr, s in zip(projections, seeds))
    np.testing.assert_array_equal(mech.project(X), np.concatenate([pr.apply(X) for pr in projections], axis=1))
    assert [d["seed"] for d in mech.public_parameters(50)["projection"]] == list(seeds)
    assert oporp_repetition_seeds(7, 1) == (7,)
    np.testing.assert_array_equal(DPSignOPORPRR(epsilon=4.0, k=16, seed=7).project(X),
                                  DPOPORP(epsilon=4.0, delta=1e-6, k=16, seed=7).project(X))


# ------------------------------------------------------------------------------------------------
# DP-SignRP-RR with a public norm bound m > 0 (N₊, eqs. 26-27)
# ------------------------------------------------------------------------------------------------

def test_n_plus_with_a_public_norm_bound():
    mech = DPSignRPRR(epsilon=400.0, delta=1e-6, beta=1.0, k=512, p=1024, m=10.0)
    public = mech.public_parameters()
    assert public["n_plus"] == pytest.approx(206.8022620, rel=1e-8)
    assert public["epsilon_per_bit"] == pytest.approx(400.0 / 206.8022620, rel=1e-8)
    plus = mech.plus_probabilities(np.array([[-1.0] * 512]))
    assert plus[0, 0] == pytest.approx(0.1262848, abs=1e-7)  # the flip at ε = 400 (the paper: N₊ ≈ 200, 11.9%)
    assert "δ" in str(mech.guarantee) and "PUBLIC W" in str(mech.guarantee)
    assert mech.guarantee.kind == "approximate-dp" and mech.guarantee.delta == 1e-6
    bounded = {"epsilon": 1.0, "delta": 1e-6, "k": 512, "p": 1024}
    assert DPSignRPRR(**bounded, m=2.0).public_parameters()["n_plus"] == 512.0  # capped at k
    assert DPSignRPRR(**bounded, m=5.0).public_parameters()["n_plus"] == pytest.approx(351.942661, rel=1e-8)
    plain = DPSignRPRR(epsilon=1.0, k=512, p=1024)
    assert plain.public_parameters()["n_plus"] == 512.0
    assert plain.guarantee.text.startswith("ε-DP") and plain.delta is None
    assert plain.public_parameters()["delta"] is None and public["delta"] == 1e-6


def test_n_plus_release_flip_rate_and_the_norm_bound_is_enforced():
    X = uniform_data(300, 1024, seed=13)  # ‖u‖ ≈ 18.5 ≥ m = 10
    mech = DPSignRPRR(epsilon=400.0, delta=1e-6, k=512, seed=2, m=10.0)
    projected = mech.project(X)
    release = mech.release_projected(projected, np.random.default_rng(1), X=X)
    flip = 1 / (math.exp(400.0 / release.public["n_plus"]) + 1)
    rate = np.mean(release.values != np.sign(projected))
    assert within(rate, flip, binomial_standard_error(flip, release.values.size))
    low = X.copy()
    low[7] = 0.1
    with pytest.raises(ValueError, match="m = 10"):
        mech.release(low, np.random.default_rng(0))
    with pytest.raises(ValueError, match="needs X"):
        mech.release_projected(projected, np.random.default_rng(0))


# ------------------------------------------------------------------------------------------------
# Registry and description
# ------------------------------------------------------------------------------------------------

def test_registry_lists_every_mechanism_class():
    defined = {obj for _, obj in inspect.getmembers(mechanisms_module, inspect.isclass)
               if issubclass(obj, ProjectionMechanism) and obj.name}
    assert defined == set(ALL_MECHANISMS)
    assert len(ALL_MECHANISMS) == 13 and set(MECHANISMS) == {cls.name for cls in ALL_MECHANISMS}
    for cls in ALL_MECHANISMS:
        assert cls.label and cls.output in ("real", "sign")
        assert cls.is_dp == (not cls.name.startswith("idp"))
        mech = make_mechanism(cls.name, epsilon=1.0, delta=1e-6, k=8, p=10)
        info = mech.describe()
        assert isinstance(mech, Mechanism) and set(cls.PARAMETERS) >= {"beta", "k", "seed", "p"}
        assert not {"epsilon", "delta"} & set(cls.PARAMETERS)  # PARAMETERS: besides ε and δ
        assert all(isinstance(parameter, Parameter) for parameter in cls.PARAMETERS.values())
        assert info["name"] == cls.name and info["is_dp"] == cls.is_dp and info["guarantee"] == mech.guarantee.text
        assert info["public"]["p"] == 10 and set(info["parameters"]) == set(cls.PARAMETERS)
        assert json.loads(json.dumps(info)) == info  # plain numbers only: the CLI prints it as JSON
        guarantee = mech.guarantee
        assert guarantee.neighbours == NEIGHBOURS and guarantee.epsilon == 1.0
        if cls.is_dp:
            assert "-DP under β-adjacency" in guarantee.text and "not DP" not in guarantee.text
            gaussian = issubclass(cls, mechanisms_module.GaussianNoiseMechanism)  # exactly μ-GDP
            assert guarantee.kind == ("gdp" if gaussian else "approximate-dp" if cls.USES_DELTA else "pure-dp")
            assert guarantee.delta == (1e-6 if cls.USES_DELTA else None)
        else:
            assert guarantee.text.startswith("individual DP — not DP") and guarantee.kind == "none"


def test_make_mechanism_rejects_unknown_names_and_parameters():
    with pytest.raises(ValueError, match="Unknown mechanism"):
        make_mechanism("dp-magic", epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="no parameter"):
        make_mechanism("dp-oporp", epsilon=1.0, delta=1e-6, t=2)
    assert make_mechanism("dp-signoporp-rr", epsilon=1.0, delta=1e-6, k=8, t=2).t == 2


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", ALL_MECHANISMS)
@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 0.0}, "epsilon"), ({"epsilon": -1.0}, "epsilon"), ({"epsilon": math.inf}, "epsilon"),
    ({"epsilon": 1.0, "delta": 0.0}, "delta"), ({"epsilon": 1.0, "delta": 1.0}, "delta"),
    ({"epsilon": 1.0, "delta": -0.1}, "delta"), ({"epsilon": 1.0, "beta": 0.0}, "beta"),
    ({"epsilon": 1.0, "k": 0}, "k"), ({"epsilon": 1.0, "seed": -2}, "seed"),
])
def test_bad_parameters_raise(cls, kwargs, match):
    kwargs = {"delta": 1e-6, **kwargs}
    if kwargs["delta"] == 0.0 and not cls.USES_DELTA:
        cls(**kwargs)  # an ε-DP mechanism accepts δ = 0 (pure DP) and does not use it
        return
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)


@pytest.mark.parametrize("cls", ALL_MECHANISMS)
def test_constructors_are_keyword_only_and_delta_is_required_where_it_is_used(cls):
    with pytest.raises(TypeError):
        cls(1.0, 1e-6)
    if cls.USES_DELTA:
        with pytest.raises(ValueError, match="delta"):
            cls(epsilon=1.0)
    else:
        assert cls(epsilon=1.0).delta is None and cls(epsilon=1.0, delta=1e-6).delta is None
    with pytest.raises(ValueError, match="delta"):
        DPSignRPRR(epsilon=1.0, m=2.0)  # with a norm bound N₊ holds with probability 1 − δ


@pytest.mark.parametrize("cls", ALL_MECHANISMS)
def test_data_outside_the_box_raises(cls):
    mech = cls(epsilon=1.0, delta=1e-6, k=4)
    for X, match in [(np.full((2, 6), 1.5), "scale the data with PUBLIC constants"),
                     (np.full((2, 6), -1.01), r"\[-1, 1\]"),
                     (np.array([[0, 0, np.nan, 0, 0, 0]]), "nan"),
                     (np.zeros(6), "2-D")]:
        with pytest.raises(ValueError, match=match):
            mech.release(X, np.random.default_rng(0))


def test_specific_bad_parameters():
    with pytest.raises(ValueError, match="must divide k"):
        DPSignOPORPRR(epsilon=1.0, k=10, t=4)
    with pytest.raises(ValueError, match="must divide k"):
        DPSignOPORPRRSmooth(epsilon=1.0, k=6, t=4)
    with pytest.raises(ValueError, match="at least beta"):
        DPSignRPRR(epsilon=1.0, beta=1.0, m=0.5)
    with pytest.raises(ValueError, match="m"):
        DPSignRPRR(epsilon=1.0, delta=1e-6, m=-1.0)
    with pytest.raises(ValueError, match="Unknown projection kind"):
        DPRPGOptB(epsilon=1.0, delta=1e-6, projection="hadamard")
    with pytest.raises(ValueError, match="DP-OPORP"):
        DPRPGOptB(epsilon=1.0, delta=1e-6, projection="oporp")
    with pytest.raises(ValueError, match="delta < 1/2"):
        DPRPG(epsilon=1.0, delta=0.6)
    with pytest.raises(ValueError, match="delta < 1/2"):
        AnalyticDPRPG(epsilon=1.0, delta=0.5)
    with pytest.raises(ValueError, match="s"):
        DPRPGOptB(epsilon=1.0, delta=1e-6, projection="sparse", s=0.5)
    with pytest.raises(ValueError, match="beta"):
        DPRPGOpt(epsilon=1.0, delta=1e-6, beta=2.5)


def test_release_projected_checks_its_inputs():
    mech = DPRPGOpt(epsilon=1.0, delta=1e-6, k=4)
    X = uniform_data(3, 6)
    projected = mech.project(X)
    with pytest.raises(ValueError, match="data dimension"):
        mech.release_projected(projected, np.random.default_rng(0))
    with pytest.raises(ValueError, match="4 columns"):
        mech.release_projected(np.zeros((3, 5)), np.random.default_rng(0), X=X)
    with pytest.raises(ValueError, match="rows"):
        mech.release_projected(projected[:2], np.random.default_rng(0), X=X)
    with pytest.raises(ValueError, match="p = 7"):
        DPRPGOpt(epsilon=1.0, delta=1e-6, k=4, p=7).release(X, np.random.default_rng(0))
    released = DPRPGOpt(epsilon=1.0, delta=1e-6, k=4, p=6).release_projected(projected, np.random.default_rng(0))
    assert isinstance(released, Release)
