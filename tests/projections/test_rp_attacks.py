"""What an attacker learns from a random-projection release (privlib.projections.attacks): the Gaussian
releases' μ-GDP guarantee and their attribute attack against G_{μ_i} (closed forms, 4 SE), the sign
releases' exact pair law against brute-force enumeration, the linkage attack against an independent
nearest-neighbour search and the pair guarantees against their formulas, the spec's linkage numbers,
the largest ε under a target, and the refusal of long work."""
import itertools
import json
import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import expit, ndtr, ndtri

from privlib.core.calibration import analytic_gaussian_sigma
from privlib.core.risk import DPCurve, FinitePairCurve, GDPCurve, tradeoff_curve
from privlib.projections import attacks
from privlib.projections.datasets import load_dataset
from privlib.projections.mechanisms import MECHANISMS, GaussianNoiseMechanism, SignMechanism, make_mechanism
from privlib.projections.projection import make_projection

GAUSSIAN = [name for name, cls in MECHANISMS.items() if issubclass(cls, GaussianNoiseMechanism)]
OTHERS = [name for name in MECHANISMS if name not in GAUSSIAN]


def within(value, expected, standard_error, sigmas=4.0):
    return abs(value - expected) <= sigmas * standard_error


# ---------------------------------------------------------------------------------------------
# the guarantees carry μ


@pytest.mark.parametrize("name", GAUSSIAN)
def test_gaussian_guarantees_carry_mu_and_give_a_gdp_curve(name):
    mechanism = make_mechanism(name, epsilon=1.0, delta=1e-5, k=16, p=64)
    guarantee = mechanism.guarantee
    public = mechanism.public_parameters()
    assert guarantee.kind == "gdp" and (guarantee.epsilon, guarantee.delta) == (1.0, 1e-5)
    assert guarantee.mu == pytest.approx(public["delta2"] / public["sigma"], rel=1e-9)  # μ = realised Δ₂/σ
    assert public["mu"] == pytest.approx(guarantee.mu, rel=1e-12)
    curve = tradeoff_curve(guarantee)
    assert isinstance(curve, GDPCurve) and curve.mu == guarantee.mu
    # the μ-GDP profile at ε is at most δ (Balle & Wang / Dong, Roth & Su: equality for the analytic σ*)
    assert curve.delta(1.0) <= 1e-5 * (1 + 1e-6)


@pytest.mark.parametrize("name", ["dp-rp-g-opt", "dp-oporp", "raw-data-g-opt", "dp-rp-g-opt-b"])
def test_the_analytic_calibration_is_tight_in_mu(name):
    # an independent route: the exact (ε, δ) profile of μ-GDP (core.risk) gives back δ at ε
    mechanism = make_mechanism(name, epsilon=2.0, delta=1e-6, k=16, p=64)
    assert GDPCurve(mechanism.guarantee.mu).delta(2.0) == pytest.approx(1e-6, rel=1e-6)


def test_kenthapadi_mu_is_the_closed_form():
    mechanism = make_mechanism("dp-rp-g", epsilon=1.0, delta=1e-5, k=16, p=64)
    assert mechanism.guarantee.mu == pytest.approx(1.0 / math.sqrt(2 * (math.log(1e5) + 1.0)), rel=1e-12)


def test_analytic_dp_rp_g_has_mu_only_with_the_dimension():
    without = make_mechanism("analytic-dp-rp-g", epsilon=1.0, delta=1e-5, k=16)
    assert without.guarantee.kind == "approximate-dp" and without.guarantee.mu is None
    assert isinstance(tradeoff_curve(without.guarantee), DPCurve)
    with_p = make_mechanism("analytic-dp-rp-g", epsilon=1.0, delta=1e-5, k=16, p=64)
    assert with_p.guarantee.kind == "gdp"


@pytest.mark.parametrize("name", OTHERS)
def test_no_other_mechanism_gets_a_gdp_curve(name):
    mechanism = make_mechanism(name, epsilon=1.0, delta=1e-5, k=16, p=64)
    assert mechanism.guarantee.mu is None and not isinstance(tradeoff_curve(mechanism.guarantee), GDPCurve)


# ---------------------------------------------------------------------------------------------
# attribute inference: Gaussian releases


@pytest.mark.parametrize("name, epsilon, params", [
    ("dp-oporp", 2.0, {"k": 32}), ("dp-rp-g-opt", 1.0, {"k": 16}), ("dp-rp-g-opt-b", 5.0, {"k": 16}),
    ("raw-data-g-opt", 3.0, {}), ("dp-rp-g", 2.0, {"k": 16, "seed": 3}),
])
def test_gaussian_attribute_attack_follows_g_mu(name, epsilon, params):
    result = attacks.attribute_inference(name, epsilon=epsilon, delta=1e-6, p=64, releases=20_000, seed=1,
                                         parameters=params)
    mechanism = make_mechanism(name, epsilon=epsilon, delta=1e-6, p=64, **params)
    # μ_i = β‖W_{i,:}‖₂/(√k σ) from the matrix itself, at the attribute of the largest row norm: μ_i = μ
    if mechanism.kind is None:
        norms = np.ones(64)
    else:
        projection = make_projection(mechanism.kind, 64, mechanism.k, mechanism.seed)
        norms = np.linalg.norm(np.asarray(projection.matrix) * projection.scale, axis=1)
    sigma = mechanism.public_parameters()["sigma"]
    assert result.attribute == int(np.argmax(norms))
    assert result.mu == pytest.approx(norms.max() / sigma, rel=1e-9)
    assert result.mu == pytest.approx(mechanism.guarantee.mu, rel=1e-9)  # the guarantee is attained
    assert isinstance(result.exact, GDPCurve) and isinstance(result.bound, GDPCurve)
    m = result.measured
    assert m.counted == 10_000 and m.selected == 10_000
    assert within(m.auc, float(ndtr(result.mu / math.sqrt(2))), m.auc_standard_error)
    assert within(m.success, float(ndtr(result.mu / 2)), m.success_standard_error)
    assert within(m.tpr_at, m.expected_tpr, m.tpr_at_standard_error)
    assert within(m.fpr_at, m.expected_fpr, m.fpr_at_standard_error)
    # the chosen test's exact rates lie on G_μ: TPR = Φ(Φ⁻¹(FPR) + μ)... written as 1 − G_μ(FPR)
    assert m.expected_tpr == pytest.approx(float(ndtr(ndtri(m.expected_fpr) + result.mu)), rel=1e-9)
    assert abs(m.expected_fpr - attacks.TARGET_FPR) < 0.004  # the threshold was chosen for 1 %


def test_half_the_noise_is_seen_by_the_attribute_attack(monkeypatch):
    """The comparison can fail: with σ halved behind the guarantee's back the measured AUC leaves G_μ."""
    from privlib.projections.mechanisms import DPOPORP

    honest = attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=64, releases=20_000, seed=2,
                                         parameters={"k": 16})
    original = DPOPORP._sigma
    monkeypatch.setattr(DPOPORP, "_sigma", lambda self, projection, p: {"sigma": original(self, projection, p)["sigma"] / 2})
    halved = attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=64, releases=20_000, seed=2,
                                         parameters={"k": 16})
    claimed_auc = float(ndtr(honest.bound.mu / math.sqrt(2)))
    assert within(honest.measured.auc, claimed_auc, honest.measured.auc_standard_error)
    assert halved.measured.auc > claimed_auc + 10 * halved.measured.auc_standard_error


# ---------------------------------------------------------------------------------------------
# attribute inference: sign releases (exact finite law)


def brute_force_law(plus_x, plus_y):
    """P and Q over all 2^k outputs of independent bits (the definition, no grouping)."""
    outputs = np.array(list(itertools.product((-1, 1), repeat=len(plus_x))))
    p = np.prod(np.where(outputs > 0, plus_x, 1 - plus_x), axis=1)
    q = np.prod(np.where(outputs > 0, plus_y, 1 - plus_y), axis=1)
    return outputs, p, q


def test_sign_pair_law_equals_brute_force_enumeration():
    plus_x = np.array([expit(0.7), expit(-0.7), 0.5, expit(1.3), expit(0.7), 0.9])
    plus_y = np.array([expit(-0.7), expit(0.7), 0.5, expit(1.3), expit(-0.7), 0.2])
    law = attacks.sign_pair_law(plus_x, plus_y)
    assert law.bits.tolist() == [0, 1, 4, 5] and law.sizes.sum() == 4
    outputs, p, q = brute_force_law(plus_x, plus_y)
    brute = FinitePairCurve(p, q)
    grid = np.linspace(0, 1, 501)
    assert np.allclose(law.curve.fnr(grid), brute.fnr(grid), atol=1e-12)
    eps = np.array([0.0, 0.3, 1.0, 2.0, 3.5])
    assert np.allclose(law.curve.delta(eps), brute.delta(eps), atol=1e-12)
    assert law.curve.guessing_chance(0.5) == pytest.approx(brute.guessing_chance(0.5), abs=1e-12)
    assert law.curve.privacy_loss == pytest.approx(brute.privacy_loss, rel=1e-12)
    # each output's outcome carries its own likelihood ratio, and the exact rates sum the law
    with np.errstate(divide="ignore"):
        ratio = np.log(p) - np.log(q)
    assert np.allclose(law.log_ratio[law.outcomes(outputs)], ratio, atol=1e-12)
    distinct = np.unique(np.round(ratio, 9))
    threshold = float(distinct[3] + distinct[4]) / 2  # between two values: no rounding decides
    assert law.rates(threshold) == pytest.approx((p[ratio >= threshold].sum(), q[ratio >= threshold].sum()), abs=1e-12)


@pytest.mark.parametrize("name", ["dp-signrp-rr", "dp-signrp-rr-smooth", "dp-signoporp-rr", "idp-signrp-rr"])
def test_sign_mechanism_pair_law_equals_enumeration_over_all_outputs(name):
    mechanism = make_mechanism(name, epsilon=1.5, k=6, p=5, seed=4)
    result = attacks.attribute_inference(name, epsilon=1.5, p=5, releases=200, seed=0, parameters={"k": 6, "seed": 4})
    x = np.zeros(5)
    y = np.zeros(5)
    x[result.attribute], y[result.attribute] = -0.5, 0.5
    plus_x = mechanism.plus_probabilities(mechanism.project(x[None]))[0]
    plus_y = mechanism.plus_probabilities(mechanism.project(y[None]))[0]
    _, p, q = brute_force_law(plus_x, plus_y)
    grid = np.linspace(0, 1, 301)
    assert np.allclose(result.exact.fnr(grid), FinitePairCurve(p, q).fnr(grid), atol=1e-12)


def test_one_oporp_bit_attains_pure_epsilon_exactly():
    result = attacks.attribute_inference("dp-signoporp-rr", epsilon=2.0, p=64, releases=20_000, seed=3,
                                         parameters={"k": 16})
    grid = np.linspace(0, 1, 401)
    assert result.informative_bits == 1
    assert np.allclose(result.exact.fnr(grid), DPCurve(2.0).fnr(grid), atol=1e-12)  # binary RR attains f_{ε,0}
    assert result.exact_success == pytest.approx(result.bound_success, rel=1e-12)
    m = result.measured
    assert within(m.success, expit(2.0), m.success_standard_error)
    assert within(m.auc, result.exact_auc, m.auc_standard_error)


@pytest.mark.parametrize("name", ["dp-signrp-rr", "dp-signrp-rr-smooth"])
def test_sign_attribute_attack_matches_its_exact_law_and_stays_under_the_bound(name):
    result = attacks.attribute_inference(name, epsilon=4.0, p=64, releases=20_000, seed=5, parameters={"k": 16})
    m = result.measured
    assert result.informative_bits == 16  # the zero vector: every bit's sign flips with the attribute
    assert within(m.auc, result.exact_auc, m.auc_standard_error)
    assert within(m.success, result.exact_success, m.success_standard_error)
    assert within(m.tpr_at, m.expected_tpr, m.tpr_at_standard_error)
    assert within(m.fpr_at, m.expected_fpr, m.fpr_at_standard_error)
    # k bits at ε/k each compose to a curve inside f_{ε,0}
    grid = np.linspace(0, 1, 401)
    assert np.all(result.exact.tpr(grid) <= result.bound.tpr(grid) + 1e-12)
    assert result.exact_success < result.bound_success


def test_laplace_attack_is_measured_and_stays_under_pure_epsilon():
    result = attacks.attribute_inference("dp-rp-l", epsilon=1.0, p=64, releases=20_000, seed=6, parameters={"k": 16})
    m = result.measured
    assert result.exact is None and m.expected_tpr is None
    assert m.success <= result.bound_success + 4 * m.success_standard_error
    assert m.tpr_at <= float(result.bound.tpr(m.fpr_at)) + 4 * m.tpr_at_standard_error
    assert m.success > 0.5 + 4 * m.success_standard_error  # it does learn something


def test_attribute_result_is_seeded_and_strict_json():
    first = attacks.attribute_inference("dp-signoporp-rr", epsilon=1.0, p=64, releases=500, seed=7)
    again = attacks.attribute_inference("dp-signoporp-rr", epsilon=1.0, p=64, releases=500, seed=7)
    other = attacks.attribute_inference("dp-signoporp-rr", epsilon=1.0, p=64, releases=500, seed=8)
    assert first.to_dict() == again.to_dict() and first.to_dict() != other.to_dict()
    json.dumps(first.to_dict(), allow_nan=False)
    idp = attacks.attribute_inference("idp-signrp-rr", epsilon=1.0, p=64, releases=500, seed=7)
    assert idp.bound is None and "no guarantee" in idp.sentence
    json.dumps(idp.to_dict(), allow_nan=False)


def test_attribute_sentence_has_the_numbers():
    result = attacks.attribute_inference("dp-oporp", epsilon=2.0, delta=1e-6, p=64, releases=2000, seed=0)
    sentence = result.sentence
    assert sentence.startswith("At ε = 2, somebody who sees one DP-OPORP release")
    assert f"{100 * result.exact_success:.3g} %" in sentence and "50 %" in sentence
    assert f"the guarantee allows at most {100 * result.bound_success:.3g} %" in sentence
    assert f"{100 * result.measured.success:.3g} % ± {200 * result.measured.success_standard_error:.3g} %" in sentence


# ---------------------------------------------------------------------------------------------
# record linkage


def test_gaussian_linkage_matches_an_independent_nearest_neighbour_search():
    data = load_dataset("digits")
    result = attacks.record_linkage("dp-rp-g-opt-b", epsilon=10.0, delta=1e-6, dataset=data, targets=300, seed=2,
                                    parameters={"k": 16})
    rows = attacks.candidate_rows(data)
    targets = attacks.target_rows(rows.shape[0], 300, 2)
    mechanism = make_mechanism("dp-rp-g-opt-b", epsilon=10.0, delta=1e-6, k=16, p=64)
    projected = mechanism.project(rows)
    rng = attacks.child_rng(2, "rp-linkage", "dp-rp-g-opt-b", 10.0)
    released = mechanism.release_projected(projected[targets], rng).values
    nearest = np.argmin(cdist(released, projected), axis=1)
    assert result.hits == int(np.count_nonzero(nearest == targets)) and result.targets == 300
    assert result.candidates == 1797 and result.chance == pytest.approx(1 / 1797)
    # the pair guarantees: μ_uv = ‖Wᵀ(u − v)‖₂/(√k σ) for the first targets
    mu = cdist(projected[targets[:attacks.PAIR_TARGETS]], projected) / mechanism.public_parameters()["sigma"]
    mu[np.arange(mu.shape[0]), targets[:attacks.PAIR_TARGETS]] = np.inf
    assert result.pair_nearest == pytest.approx(float(np.median(mu.min(axis=1))), rel=1e-9)


def test_sign_linkage_picks_a_candidate_at_the_least_hamming_distance():
    data = load_dataset("digits")
    rows = attacks.candidate_rows(data)
    mechanism = make_mechanism("dp-signoporp-rr", epsilon=3.0, k=16, p=64)
    projected = mechanism.project(rows)
    released = mechanism.release_projected(projected[:200], np.random.default_rng(0)).values
    found = attacks.nearest_candidates(released, projected, True, np.random.default_rng(1))
    signs = np.sign(projected)
    # Hamming distance with a zero projection counting half: Σ_j (1 − o_j s_j)/2
    distance = (16 - released.astype(float) @ signs.T) / 2
    assert np.all(distance[np.arange(200), found] == distance.min(axis=1))
    # ties are broken at random: another generator picks other rows among the tied
    again = attacks.nearest_candidates(released, projected, True, np.random.default_rng(2))
    assert np.all(distance[np.arange(200), again] == distance.min(axis=1)) and np.any(again != found)


@pytest.mark.parametrize("name", ["dp-signrp-rr", "dp-signrp-rr-smooth", "dp-signoporp-rr", "idp-signrp-rr",
                                  "idp-signrp-g"])
def test_sign_pair_losses_equal_the_bitwise_definition(name):
    mechanism = make_mechanism(name, epsilon=2.0, delta=1e-6, k=8, p=64)
    rows = attacks.candidate_rows(load_dataset("digits"))[:40]
    projected = mechanism.project(rows)
    losses = attacks.pair_losses(mechanism, projected[:5], projected)
    plus = mechanism.plus_probabilities(projected)
    for i in range(5):
        for v in range(40):
            a, b = plus[i], plus[v]
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.maximum(np.nan_to_num(np.abs(np.log(a) - np.log(b)), nan=0.0, posinf=np.inf),
                                   np.nan_to_num(np.abs(np.log1p(-a) - np.log1p(-b)), nan=0.0, posinf=np.inf))
            expected = float(terms.sum())
            assert losses[i, v] == pytest.approx(expected, rel=1e-12, abs=1e-12) or (
                math.isinf(expected) and math.isinf(losses[i, v]))
    if name in ("dp-signrp-rr", "dp-signoporp-rr"):  # flat RR: at most Σ_j ε′_j
        per_bit = mechanism.public_parameters()["epsilon_per_bit"]
        assert losses.max() <= 8 * per_bit + 1e-12
    if name == "dp-signrp-rr":  # no zero projection here: exactly ε′ per bit whose sign differs
        assert np.all(projected != 0)
        differ = (np.sign(projected[:5])[:, None, :] != np.sign(projected)[None, :, :]).sum(axis=2)
        assert np.allclose(losses, per_bit * differ, rtol=1e-12)


def test_laplace_pair_loss_is_epsilon_times_l1_over_delta1():
    mechanism = make_mechanism("dp-rp-l", epsilon=2.0, k=8, p=64)
    rows = attacks.candidate_rows(load_dataset("digits"))[:30]
    projected = mechanism.project(rows)
    delta1 = mechanism.public_parameters()["delta1"]
    expected = 2.0 * cdist(projected[:4], projected, "cityblock") / delta1
    assert np.allclose(attacks.pair_losses(mechanism, projected[:4], projected), expected, rtol=1e-12)


def test_linkage_is_seeded_json_and_said_not_covered():
    result = attacks.record_linkage("dp-oporp", epsilon=5.0, delta=1e-6, dataset="digits", targets=200, seed=0,
                                    parameters={"k": 16})
    again = attacks.record_linkage("dp-oporp", epsilon=5.0, delta=1e-6, dataset="digits", targets=200, seed=0,
                                   parameters={"k": 16})
    assert result.to_dict() == again.to_dict()
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["covered"] is False and data["pair_guarantee"]["kind"] == "gdp"
    assert "does not cover" in result.sentence and f"{100 * result.chance:.3g} %" in result.sentence
    idp = attacks.record_linkage("idp-signrp-rr", epsilon=5.0, dataset="digits", targets=100, seed=0,
                                 parameters={"k": 16})
    assert "no guarantee at all" in idp.sentence and idp.to_dict()["pair_guarantee"]["nearest_median"] is None
    json.dumps(idp.to_dict(), allow_nan=False)


#: The spec's linkage numbers (digits, Rademacher W, k = 16, the analytic σ at δ = 1e-6): 0.4 % at ε = 1, 4 % at 5,
#: 23 % at 10 and 69 % at 20, checked over five public projections (the spread between W draws is part of the error).
SPEC_LINKAGE = {1.0: 0.004, 5.0: 0.04, 10.0: 0.23, 20.0: 0.69}


@pytest.mark.parametrize("epsilon, expected", SPEC_LINKAGE.items())
def test_the_spec_linkage_numbers_hold(epsilon, expected):
    successes = [attacks.record_linkage("dp-rp-g-opt-b", epsilon=epsilon, delta=1e-6, dataset="digits", targets=1797,
                                        seed=seed, parameters={"k": 16, "seed": seed}).success
                 for seed in range(5)]
    mean = float(np.mean(successes))
    standard_error = float(np.std(successes, ddof=1) / math.sqrt(len(successes)))
    binomial = math.sqrt(mean * (1 - mean) / (5 * 1797))
    assert within(mean, expected, max(standard_error, binomial))


# ---------------------------------------------------------------------------------------------
# over ε, the largest ε under a target


def test_attack_curves_agree_with_the_single_attacks():
    eps = (1.0, 5.0)
    curves = attacks.attack_curves("dp-oporp", epsilons=eps, delta=1e-6, dataset="digits", targets=300, seed=1,
                                   parameters={"k": 16})
    for j, epsilon in enumerate(eps):
        link = attacks.record_linkage("dp-oporp", epsilon=epsilon, delta=1e-6, dataset="digits", targets=300, seed=1,
                                      parameters={"k": 16})
        assert curves.linkage_success[j] == link.success and curves.pair_nearest[j] == link.pair_nearest
        mu = 1 / analytic_gaussian_sigma(epsilon, 1e-6)
        assert curves.attribute_success[j] == pytest.approx(float(ndtr(mu / 2)), rel=1e-9)
        assert curves.attribute_bound[j] == pytest.approx(float(ndtr(mu / 2)), rel=1e-9)
    json.dumps(curves.to_dict(), allow_nan=False)


def curves_of(success, standard_error, bound, exact=False):
    eps = np.array([0.5, 1.0, 2.0, 5.0, 10.0])
    return attacks.AttackCurves("m", "M", eps, np.asarray(bound, float), np.asarray(success, float),
                                np.asarray(standard_error, float), exact, np.asarray(success, float),
                                np.asarray(standard_error, float), 0.01, None, None)


def test_largest_epsilon_under_by_bound_and_by_measure():
    curves = curves_of([0.52, 0.55, 0.575, 0.615, 0.65], [0.01] * 5, [0.53, 0.56, 0.62, 0.80, 0.95])
    answer = attacks.largest_epsilon_under(0.6, curves)
    assert answer.by_bound == 1.0  # the bound 0.62 > 0.6 at ε = 2
    assert answer.by_measure == 2.0  # + 2 SE: 0.595 at ε = 2, 0.635 at ε = 5
    assert answer.by_measure_optimistic == 5.0  # − 2 SE: 0.595 at ε = 5, 0.63 at ε = 10
    assert "by the guarantee's bound" in answer.sentence and "+2 SE" in answer.sentence
    assert attacks.largest_epsilon_under(0.9, curves).by_bound == 5.0
    assert attacks.largest_epsilon_under(0.45, curves).below_baseline
    linkage = attacks.largest_epsilon_under(0.6, curves, attack="linkage")
    assert linkage.by_bound is None and "does not cover" in linkage.sentence
    with pytest.raises(ValueError, match="target"):
        attacks.largest_epsilon_under(1.5, curves)


def test_largest_epsilon_by_bound_is_the_gdp_closed_form():
    eps = attacks.DEFAULT_EPSILONS
    curves = attacks.attack_curves("dp-rp-g-opt", epsilons=eps, delta=1e-6, dataset="digits", linkage=False,
                                   parameters={"k": 16})
    answer = attacks.largest_epsilon_under(0.7, curves)
    chance = [float(ndtr(1 / analytic_gaussian_sigma(e, 1e-6) / 2)) for e in eps]
    expected = max(e for e, c in zip(eps, chance) if c <= 0.7)
    assert answer.by_bound == expected == answer.by_measure  # exact: the attack attains the bound
    assert curves.linkage_success is None


# ---------------------------------------------------------------------------------------------
# cost, refusal, progress


def test_long_work_is_refused_unless_allowed(monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0")
    with pytest.raises(ValueError, match="allow_long=True"):
        attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=64, releases=100)
    with pytest.raises(ValueError, match="allow_long=True"):
        attacks.record_linkage("dp-oporp", epsilon=1.0, delta=1e-6, targets=10, parameters={"k": 8})
    seen = []
    attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=64, releases=100, allow_long=True,
                                progress=lambda fraction, message: seen.append(fraction))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


def test_the_estimate_grows_with_the_work():
    small, medium, large = (attacks.attack_seconds("dp-oporp", p=784, k=32, releases=n) for n in (10_000, 20_000, 30_000))
    assert large - medium == pytest.approx(medium - small, rel=1e-9) and medium - small > 0  # linear in the releases
    linkage = attacks.attack_seconds("dp-oporp", p=784, k=32, releases=0, candidates=5000, targets=2000)
    assert attacks.attack_seconds("dp-oporp", p=784, k=32, releases=0, candidates=5000, targets=2000,
                                  epsilons=12) > 10 * linkage > 0
    assert attacks.attack_seconds("raw-data-g-opt", p=784, k=32, releases=10_000) > 10 * small


def test_bad_input_says_what_to_do():
    with pytest.raises(ValueError, match="Unknown"):
        attacks.attribute_inference("dp-nope", epsilon=1.0, p=8)
    with pytest.raises(ValueError, match="delta"):
        attacks.attribute_inference("dp-oporp", epsilon=1.0, p=8)
    with pytest.raises(ValueError, match="releases"):
        attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=8, releases=3)
    with pytest.raises(ValueError, match="p = 64"):
        attacks.attribute_inference("dp-oporp", epsilon=1.0, delta=1e-6, p=64, parameters={"p": 8})
    with pytest.raises(ValueError, match="dataset"):
        attacks.record_linkage("dp-oporp", epsilon=1.0, delta=1e-6, dataset="cifar")
    with pytest.raises(ValueError, match="attack must be"):
        attacks.largest_epsilon_under(0.5, curves_of([0.5] * 5, [0] * 5, [0.5] * 5), attack="membership")


def test_only_sign_and_gaussian_mechanisms_have_exact_curves():
    for name, cls in MECHANISMS.items():
        mechanism = make_mechanism(name, epsilon=1.0, delta=1e-6, k=8, p=16)
        if issubclass(cls, (GaussianNoiseMechanism, SignMechanism)):
            assert attacks.exact_attribute_curve(mechanism, 16) is not None
        else:
            with pytest.raises(ValueError, match="no exact attribute curve"):
                attacks.exact_attribute_curve(mechanism, 16)
