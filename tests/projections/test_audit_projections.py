"""The audit of the random-projection mechanisms against their claims (privlib.projections.audit over
privlib.core.audit): every DP mechanism stays under its claim (ε, and μ*(ε, δ) for the exactly
Gaussian ones) at γ = 1e-3 with fixed seeds, half the analytic σ is caught by μ̂ with the same
settings, the individual-DP ones are refused, and the pair attains the realised sensitivity."""
import numpy as np
import pytest

from privlib.core.calibration import analytic_gaussian_sigma
from privlib.projections.audit import AUDIT_DIMENSION, audit_mechanism, neighbouring_pair
from privlib.projections.mechanisms import MECHANISMS, DPRPGOpt, GaussianNoiseMechanism, make_mechanism

CONFIDENCE = 0.999
EPSILON, DELTA = 2.0, 1e-5
#: Fewer projections than the default 128: the same audit, drawn four times faster.
PARAMETERS = {"k": 32}
PRIVATE = [name for name, cls in MECHANISMS.items() if cls.is_dp]


@pytest.mark.parametrize("name", PRIVATE)
def test_every_dp_mechanism_stays_under_its_claim(name):
    result = audit_mechanism(name, epsilon=EPSILON, delta=DELTA, releases=4000, seed=0, confidence=CONFIDENCE,
                             parameters=PARAMETERS)
    assert result.exceeds_claim is False and result.epsilon <= EPSILON
    if issubclass(MECHANISMS[name], GaussianNoiseMechanism):
        mu_star = 1 / analytic_gaussian_sigma(EPSILON, DELTA)
        assert result.claimed_mu == pytest.approx(mu_star, rel=1e-12) and result.mu <= mu_star
    else:
        assert result.mu is None


def test_the_analytic_gaussian_audit_comes_close_to_mu_star():
    result = audit_mechanism("dp-rp-g-opt", epsilon=EPSILON, delta=DELTA, releases=10_000, seed=1,
                             confidence=CONFIDENCE, parameters=PARAMETERS)
    assert 0.75 * result.claimed_mu < result.mu <= result.claimed_mu


def test_half_the_analytic_sigma_is_caught_by_mu(monkeypatch):
    sigma = DPRPGOpt._sigma
    monkeypatch.setattr(DPRPGOpt, "_sigma", lambda self, projection, p: {"sigma": sigma(self, projection, p)["sigma"] / 2})
    result = audit_mechanism("dp-rp-g-opt", epsilon=1.0, delta=DELTA, releases=10_000, seed=0, confidence=CONFIDENCE,
                             parameters=PARAMETERS)
    assert result.exceeds_claim is True and result.mu > result.claimed_mu


@pytest.mark.parametrize("name", [name for name in MECHANISMS if name not in PRIVATE])
def test_individual_dp_is_refused(name):
    with pytest.raises(ValueError, match="no privacy guarantee"):
        audit_mechanism(name, epsilon=1, delta=DELTA, releases=100, seed=0)


@pytest.mark.parametrize("name", ["dp-rp-g-opt", "dp-oporp", "raw-data-g-opt", "dp-rp-g-opt-b"])
def test_the_pair_attains_the_realised_sensitivity(name):
    mechanism = make_mechanism(name, epsilon=1, delta=DELTA, beta=0.5, p=AUDIT_DIMENSION, k=32)
    x, y = neighbouring_pair(mechanism, AUDIT_DIMENSION)
    assert np.count_nonzero(x - y) == 1 and np.abs(x - y).max() == pytest.approx(0.5)
    assert np.abs(np.concatenate([x, y])).max() <= 1
    gap = np.linalg.norm(mechanism.project(x[None]) - mechanism.project(y[None]))
    assert gap == pytest.approx(mechanism.public_parameters()["delta2"], rel=1e-12)


def test_sign_rp_with_a_norm_bound_gets_a_pair_it_accepts():
    mechanism = make_mechanism("dp-signrp-rr", epsilon=1, delta=DELTA, m=1.0, p=AUDIT_DIMENSION, k=32)
    x, y = neighbouring_pair(mechanism, AUDIT_DIMENSION)
    assert np.linalg.norm(x) >= 1 - 1e-12 and np.linalg.norm(y) >= 1 - 1e-12
    result = audit_mechanism("dp-signrp-rr", epsilon=1, delta=DELTA, releases=1000, seed=0, confidence=CONFIDENCE,
                             parameters={"m": 1.0, "k": 32})
    assert result.exceeds_claim is False and result.delta == DELTA


def test_missing_delta_is_refused():
    with pytest.raises(ValueError, match="delta"):
        audit_mechanism("dp-oporp", epsilon=1, releases=100, seed=0)
