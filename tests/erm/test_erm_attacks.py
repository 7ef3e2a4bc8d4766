"""What an attacker learns from a private model (privlib.erm.attacks): the batched fits against the one-at-a-time
solver and the per-record protocol's exact moments, the ROC/AUC/DeLong numbers against brute force, the
input perturbation residual's covariance against simulation, the spec's non-private membership numbers, every
measured attack under its bound (4 SE) and a miscalibrated mechanism caught above it, Obj-Gauss never with a
μ-GDP curve, the submission bound, the largest ε under a target, the sentences, and bad input."""
import dataclasses
import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from privlib.core.risk import DPCurve, GDPCurve
from privlib.erm import attacks
from privlib.erm import mechanisms as erm_mechanisms
from privlib.erm.calibration import local_guarantee, safe_input_calibration
from privlib.erm.datasets import synthetic_block
from privlib.erm.losses import make_loss
from privlib.erm.solver import minimise_in_ball

DELTA = 1e-6


# ---------------------------------------------------------------------------------------------
# the batched pieces


def test_the_batched_solver_is_the_one_at_a_time_solver():
    rng = np.random.default_rng(3)
    k, d = 600, 6
    A = rng.standard_normal((k, 9, d))
    H = np.einsum("kni,knj->kij", A, A) / 9
    H[:50, :, -1] = H[:50, -1, :] = 0.0  # singular: handed to the scalar solver
    g = rng.standard_normal((k, d)) * rng.choice([0.05, 1.0, 20.0], size=(k, 1))
    W = attacks.minimise_in_ball_batch(H, g, 1.0)
    expected = np.array([minimise_in_ball(H[i], g[i], 1.0) for i in range(k)])
    np.testing.assert_allclose(W, expected, atol=1e-10)
    on_sphere = np.isclose(np.linalg.norm(expected, axis=1), 1.0)
    assert 0.2 < on_sphere.mean() < 0.9  # both cases are exercised


def test_batched_noisy_sums_have_the_per_record_protocols_exact_moments():
    """Σ(a + η)(a + η)ᵀ with η ~ N(0, σ²I): E H₀₀ = S₀₀ + nσ², Var H₀₀ = 2nσ⁴ + 4σ²S₀₀; E H₀₁ = S₀₁,
    Var H₀₁ = nσ⁴ + σ²(S₀₀ + S₁₁); Σb̃ = b + N(0, nσ_b²I). Checked at 4 SE over 40,000 draws."""
    rng = np.random.default_rng(0)
    n, d, sigma, sigma_b, draws = 30, 3, 0.7, 2.0, 40_000
    a = synthetic_block(rng.standard_normal((n, d + 1)))[:, :d]
    S = a.T @ a
    b = rng.standard_normal(d)
    H, g = attacks.noisy_sums_batch(np.broadcast_to(S, (draws, d, d)), np.broadcast_to(b, (draws, d)), n, sigma,
                                    sigma_b, np.random.default_rng(1))
    for values, mean, var in [
            (H[:, 0, 0], S[0, 0] + n * sigma**2, 2 * n * sigma**4 + 4 * sigma**2 * S[0, 0]),
            (H[:, 0, 1], S[0, 1], n * sigma**4 + sigma**2 * (S[0, 0] + S[1, 1])),
            (g[:, 2], b[2], n * sigma_b**2)]:
        assert abs(values.mean() - mean) <= 4 * math.sqrt(var / draws)
        centred = (values - values.mean()) ** 2
        assert abs(centred.mean() - var) <= 4 * centred.std() / math.sqrt(draws)


def test_the_input_residuals_covariance_matches_simulation():
    """Cov(2E₀w + Σξ) for the per-record noise (E₀ = Σ aηᵀ + ηaᵀ + ηηᵀ − σ²I) against 20,000 simulated draws,
    each entry within 4 of its own empirical standard errors."""
    rng = np.random.default_rng(5)
    n, d, sigma_a, sigma_b, draws = 25, 3, 0.4, 1.5, 20_000
    a = synthetic_block(rng.standard_normal((n, d + 1)))[:, :d]
    S = a.T @ a
    w = np.array([0.3, -0.5, 0.2])
    eta = sigma_a * rng.standard_normal((draws, n, d))
    xi = sigma_b * math.sqrt(n) * rng.standard_normal((draws, d))
    E0w = (np.einsum("ni,kn->ki", a, eta @ w) + np.einsum("kni,n->ki", eta, a @ w)
           + np.einsum("kni,kn->ki", eta, eta @ w) - n * sigma_a**2 * w)
    u = 2.0 * E0w + xi
    _, C = attacks.input_residual(S[None], np.zeros((1, d)), w[None], n, sigma_a, sigma_b)
    products = u[:, :, None] * u[:, None, :]
    empirical = products.mean(axis=0)
    se = products.std(axis=0) / math.sqrt(draws)
    assert np.all(np.abs(empirical - C[0]) <= 4 * se), (empirical, C[0])


@pytest.mark.parametrize("name, kwargs", [
    ("non_private", {}), ("output", {"epsilon": 2.0}), ("obj_gauss", {"epsilon": 2.0, "delta": DELTA}),
    ("input_safe", {"epsilon": 2.0, "delta": DELTA}), ("input_asymptotic", {"epsilon": 2.0, "delta": DELTA}),
    ("input_safe", {"epsilon": 2.0, "delta": DELTA, "inflate": 4.0})])
def test_a_batched_release_has_the_law_of_the_mechanisms_own_release(name, kwargs):
    """Means and variances of every coordinate of w: 3,000 batched releases against 3,000 of ``release`` (two-
    sample, 4 SE); the non-private fit exactly."""
    loss = make_loss("squared")
    rng = np.random.default_rng(8)
    n, d, draws = 600, 3, 3_000
    Z = synthetic_block(rng.standard_normal((n, d + 1)))
    sums = loss.sums(Z[:, :d], Z[:, d])
    mechanism = erm_mechanisms.make_mechanism(name, **kwargs)
    batch = attacks.release_batch(mechanism, np.broadcast_to(sums.S, (draws, d, d)),
                                  np.broadcast_to(sums.b_sum, (draws, d)), n, loss, np.random.default_rng(1))
    single = np.array([mechanism.release(sums, loss, np.random.default_rng(10_000 + i)).w for i in range(draws)])
    if name == "non_private":
        np.testing.assert_allclose(batch, single, atol=1e-12)
        return
    se = np.sqrt(batch.var(axis=0) / draws + single.var(axis=0) / draws)
    assert np.all(np.abs(batch.mean(axis=0) - single.mean(axis=0)) <= 4 * se)
    squares = [(x - x.mean(axis=0)) ** 2 for x in (batch, single)]
    se_var = np.sqrt(sum(q.var(axis=0) for q in squares) / draws)
    assert np.all(np.abs(squares[0].mean(axis=0) - squares[1].mean(axis=0)) <= 4 * se_var)


# ---------------------------------------------------------------------------------------------
# ROC, AUC, success


def test_measure_against_brute_force_with_ties_and_clusters():
    rng = np.random.default_rng(2)
    k = 300
    member = np.round(rng.normal(0.4, 1.0, k), 1)  # rounded: many ties
    nonmember = np.round(rng.normal(0.0, 1.0, k), 1)
    block = np.repeat(np.arange(100), 3)
    m = attacks.measure("loss_threshold", member, nonmember, block)
    wins = (member[:, None] > nonmember[None, :]) + 0.5 * (member[:, None] == nonmember[None, :])
    assert m.auc == pytest.approx(wins.mean(), abs=1e-12)
    pair = (member > nonmember) + 0.5 * (member == nonmember)
    assert m.success == pytest.approx(pair.mean(), abs=1e-12)
    # DeLong's placements by brute force, summed within each game and then within each cluster
    v10, v01 = wins.mean(axis=1), wins.mean(axis=0)
    totals = np.bincount(block, weights=v10 + v01 - 2 * wins.mean())
    assert m.auc_se == pytest.approx(math.sqrt(totals @ totals) / k, rel=1e-10)
    totals = np.bincount(block, weights=pair - pair.mean())
    assert m.success_se == pytest.approx(math.sqrt(totals @ totals) / k, rel=1e-10)
    # the ROC: from (0, 0) to (1, 1), monotone, and through every threshold's (FPR, TPR)
    assert (m.fpr[0], m.tpr[0], m.fpr[-1], m.tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.all(np.diff(m.fpr) >= 0) and np.all(np.diff(m.tpr) >= 0)
    for t in (-0.5, 0.0, 0.7):
        point = ((nonmember >= t).mean(), (member >= t).mean())
        assert any(np.isclose(m.fpr, point[0]) & np.isclose(m.tpr, point[1]))
    assert m.tpr_at_fpr is None  # 300 non-members: the 1 % tail is not measured


def test_tpr_at_one_percent_fpr_needs_ten_thousand_non_members():
    rng = np.random.default_rng(4)
    k = attacks.ROC_MIN_NONMEMBERS
    member, nonmember = rng.normal(1.0, 1.0, k), rng.normal(0.0, 1.0, k)
    m = attacks.measure("known_neighbour", member, nonmember, np.arange(k))
    assert m.tpr_at_fpr == pytest.approx((member > np.sort(nonmember)[9899]).mean())
    # the Gaussian pair with μ = 1: TPR at 1 % FPR is Φ(Φ⁻¹(0.01) + 1) = 0.0945
    assert abs(m.tpr_at_fpr - float(ndtr(ndtri(0.01) + 1.0))) <= 4 * m.tpr_at_fpr_se + 0.003  # + the threshold's own error
    short = attacks.measure("known_neighbour", member[:-1], nonmember[:-1], np.arange(k - 1))
    assert short.tpr_at_fpr is None and short.tpr_at_fpr_se is None


# ---------------------------------------------------------------------------------------------
# the game


@pytest.mark.parametrize("n, spec_auc", [(20, 0.70), (50, 0.58), (354, 0.51)])
def test_the_specs_non_private_loss_threshold_numbers(n, spec_auc):
    """Spec §3: d = 10, the loss-threshold AUC of the non-private model is 0.70 at n = 20, 0.58 at 50, 0.51
    at 354 (two decimals: ± 0.005 of rounding, plus 4 SE)."""
    study = attacks.membership_attack(1.0, DELTA, n=n, d=10, methods=("non_private",), games=10_000, seed=0)
    measured = study.at("non_private", 1.0).attacks["loss_threshold"]
    assert abs(measured.auc - spec_auc) <= 4 * measured.auc_se + 0.005, (measured.auc, measured.auc_se)


@pytest.fixture(scope="module")
def study():
    return attacks.membership_study((1.0, 10.0), DELTA, n=410, d=10, games=3_000, seed=0)


def test_obj_gauss_and_input_have_their_epsilon_delta_curve_never_a_gdp_curve(study):
    for epsilon in study.epsilons:
        for method in ("obj_gauss", "input_safe"):
            bound = study.at(method, epsilon).bound
            assert isinstance(bound, DPCurve) and not isinstance(bound, GDPCurve)
            assert (bound.epsilon, bound.delta) == (epsilon, DELTA)
        output = study.at("output", epsilon).bound
        assert isinstance(output, DPCurve) and output.delta == 0
        assert study.at("non_private", epsilon).bound is None
    # also where the μ of the noise would be easy to quote: any ε, n, d
    for epsilon, n in [(0.5, 5_000), (3.0, 410), (30.0, 100)]:
        small = attacks.membership_attack(epsilon, 1e-5, n=n, d=3, methods=("obj_gauss",), games=10, seed=1)
        assert small.at("obj_gauss", epsilon).bound.kind == "dp"


def test_every_measured_attack_stays_under_its_bound(study):
    for method in ("input_safe", "obj_gauss", "output"):
        for epsilon in study.epsilons:
            result = study.at(method, epsilon)
            assert result.valid
            for m in result.attacks.values():
                assert m.success <= result.bound_success + 4 * m.success_se
                assert m.auc <= result.bound_auc + 4 * m.auc_se
    bound = DPCurve(1.0, DELTA)
    assert study.at("obj_gauss", 1.0).bound_success == pytest.approx(bound.guessing_chance(0.5))
    # the (ε, δ) curve's area: 1 − ∫f = 1 − (1 − δ)²/(1 + e^ε) (two triangles meeting at α = (1 − δ)/(1 + e^ε))
    assert study.at("obj_gauss", 1.0).bound_auc == pytest.approx(1 - (1 - DELTA) ** 2 / (1 + math.e), abs=1e-9)


def test_the_known_neighbour_attack_wins_every_game_without_noise_and_beats_loss_at_large_epsilon(study):
    assert study.at("non_private", 1.0).attacks["known_neighbour"].success == 1.0
    strong = attacks.membership_attack(1000.0, DELTA, n=1_000, d=10, methods=("obj_gauss",), games=3_000, seed=0)
    known, loss = (strong.at("obj_gauss", 1000.0).attacks[name] for name in ("known_neighbour", "loss_threshold"))
    assert known.success > 0.5 + 4 * known.success_se
    assert known.success - loss.success > 2 * math.hypot(known.success_se, loss.success_se)


def test_a_noise_scale_n_times_too_small_is_caught_above_the_bound(monkeypatch):
    """The bug: output perturbation's scale 2ζ/(nΛε) divided by n once more; the known-neighbour attack then
    names the member far more often than ε = 1 allows (73 %)."""
    right = erm_mechanisms.cached_output_calibration

    def too_small(epsilon, n, d, zeta):
        cal = right(epsilon, n, d, zeta)
        return dataclasses.replace(cal, scale=cal.scale / n)

    monkeypatch.setattr(erm_mechanisms, "cached_output_calibration", too_small)
    result = attacks.membership_attack(1.0, DELTA, n=1_000, d=10, methods=("output",), games=1_000, seed=0)
    output = result.at("output", 1.0)
    known = output.attacks["known_neighbour"]
    assert known.success - 4 * known.success_se > output.bound_success


def test_input_below_its_smallest_n_gives_no_model_and_is_not_attacked():
    result = attacks.membership_attack(1.0, DELTA, n=409, d=10, methods=("input_safe",), games=10, seed=0)
    inp = result.at("input_safe", 1.0)
    assert not inp.valid and inp.attacks == {} and "410" in inp.reason
    assert "releases no model" in attacks.plain_sentence(inp, 409)


def test_one_seed_the_same_games_for_every_method_and_progress(study):
    calls = []
    alone = attacks.membership_study((1.0, 10.0), DELTA, n=410, d=10, methods=("obj_gauss",), games=3_000, seed=0,
                                     progress=lambda fraction, message: calls.append(fraction))
    for epsilon in (1.0, 10.0):
        a, b = alone.at("obj_gauss", epsilon), study.at("obj_gauss", epsilon)
        assert a.attacks["known_neighbour"].success == b.attacks["known_neighbour"].success
        assert a.excess_risk == b.excess_risk
    assert calls[-1] == 1.0 and calls == sorted(calls)
    other = attacks.membership_study((1.0,), DELTA, n=410, d=10, methods=("obj_gauss",), games=3_000, seed=1)
    assert other.at("obj_gauss", 1.0).attacks["loss_threshold"].auc != alone.at("obj_gauss", 1.0).attacks[
        "loss_threshold"].auc


def test_the_sentences_carry_the_numbers(study):
    sentences = attacks.plain_sentences(study, 1.0)
    assert "no guarantee" in sentences["non_private"] and "100 %" in sentences["non_private"]
    obj = study.at("obj_gauss", 1.0)
    best = obj.strongest()
    assert sentences["obj_gauss"].startswith("At ε = 1,")
    assert attacks.percent(best.success) in sentences["obj_gauss"]
    assert "allows at most 73.1 %" in sentences["obj_gauss"] or "allows at most 73 %" in sentences["obj_gauss"]
    assert obj.weak_attack and "weak attack" in sentences["obj_gauss"]


# ---------------------------------------------------------------------------------------------
# targets


def test_largest_epsilon_under_a_target_by_the_bound():
    grid = (0.1, 0.3, 1.0, 3.0)
    # output perturbation, pure ε: success ≤ (1 + tanh(ε/2))/2 ≤ 0.6 ⟺ ε ≤ 2 artanh(0.2) = 0.405
    answer = attacks.largest_epsilon_under(0.6, grid, "output", n=1_000)
    assert answer.epsilon == 0.3 and answer.basis == "bound" and "ε = 0.3" in answer.sentence
    assert attacks.largest_epsilon_under(0.75, grid, "output", n=1_000).epsilon == 1.0  # 0.731 ≤ 0.75
    assert attacks.largest_epsilon_under(0.5, grid, "output", n=1_000).epsilon is None
    assert attacks.largest_epsilon_under(0.99, grid, "non_private", n=1_000).epsilon is None
    # input perturbation gives no model at n = 300 (d = 10) below ε = 3 (smallest n 410 at ε = 1, 242 at ε = 3)
    assert attacks.largest_epsilon_under(0.99, grid[:3], "input_safe", n=300).epsilon is None
    assert attacks.largest_epsilon_under(0.99, grid, "input_safe", n=300).epsilon == 3.0
    successes = attacks.bound_successes(grid, "obj_gauss", DELTA, n=1_000)
    assert successes == pytest.approx([DPCurve(e, DELTA).guessing_chance(0.5) for e in grid])


def test_largest_epsilon_under_by_the_measured_attack_needs_a_study(study):
    with pytest.raises(ValueError, match="needs a study"):
        attacks.largest_epsilon_under(0.6, (1.0,), "obj_gauss", basis="measured")
    answer = attacks.largest_epsilon_under(0.6, None, "obj_gauss", basis="measured", study=study)
    assert answer.epsilon == 10.0  # the attacks stay near 50 % on typical records
    assert attacks.largest_epsilon_under(0.6, None, "obj_gauss", study=study).epsilon is None  # the bound: 73 %


# ---------------------------------------------------------------------------------------------
# each contributor's submission


def test_the_best_ball_mass_bounds_every_balls_mass():
    rng = np.random.default_rng(7)
    d, eta, draws = 3, 0.5, 200_000
    x = synthetic_block(rng.standard_normal((draws, d + 1)))[:, :d]
    kappa = attacks.best_ball_mass(eta, d)
    for centre in ([0, 0, 0], [0.5, 0, 0], [0.87, 0, 0], [1, 0, 0], [0.6, 0.6, 0.0]):
        mass = (np.linalg.norm(x - np.array(centre), axis=1) <= eta).mean()
        assert mass <= kappa + 4 * math.sqrt(mass * (1 - mass) / draws)
    at_zero = (np.linalg.norm(x, axis=1) <= eta).mean()
    assert at_zero <= kappa and attacks.best_ball_mass(1.0, d) == 1.0


def test_the_submission_bound_and_when_it_is_vacuous():
    small = attacks.submission_risk(1.0, DELTA, n=410, d=10)
    cal = safe_input_calibration(1.0, DELTA, 410, 10)
    assert small.mu_L == pytest.approx(local_guarantee(cal.sigma_a, cal.sigma_b, 1.0, 2.0, DELTA).mu)
    for row in map(dict, small.rows):
        assert row["bound"] == pytest.approx(float(ndtr(ndtri(row["kappa"]) + small.mu_L)))
        assert row["kappa"] <= row["bound"] < attacks.VACUOUS and not row["vacuous"]
    large = attacks.submission_risk(1.0, DELTA, n=10_000, d=10)
    assert large.mu_L > 100 and all(dict(row)["vacuous"] for row in large.rows)
    assert "vacuous" in large.sentence
    none = attacks.submission_risk(1.0, DELTA, n=100, d=10)
    assert not none.valid and none.mu_L is None and "No contributor" in none.sentence
    assert attacks.reconstruction_bound(0.3, 0.0) == pytest.approx(0.3)


# ---------------------------------------------------------------------------------------------
# bad input and long work


@pytest.mark.parametrize("kwargs, fragment", [
    ({"n": 1}, "n (records"), ({"n": 100, "games": 5}, "games"), ({"n": 100, "d": 0}, "d (the number"),
    ({"n": 100, "methods": ("input_asymptotic",)}, "membership game runs"), ({"n": 100, "task": "x"}, "task"),
    ({"n": 100, "seed": -1}, "seed"), ({"n": 100, "R": 0}, "R (the radius")])
def test_bad_settings_say_what_to_change(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(")):
        attacks.membership_attack(1.0, DELTA, **kwargs)


def test_long_work_is_refused_with_its_estimate(monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0.001")
    with pytest.raises(ValueError, match="allow_long=True"):
        attacks.membership_attack(1.0, DELTA, n=100, games=1_000)
    assert attacks.membership_attack(1.0, DELTA, n=100, games=10, allow_long=True).games == 10
