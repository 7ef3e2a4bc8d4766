"""The audit of the label randomisers against their claims (privlib.label_dp.audit over
privlib.core.audit): each stays under ε at γ = 1e-3 with fixed seeds and comes close where the law
is exact, k-ary RR with the binary formula is caught with the same settings, and LP-2ST's slow
releases are refused at the default size from the cost model, before any release."""
import math

import numpy as np
import pytest

from privlib.core.audit import DEFAULT_RELEASES
from privlib.core.randomised_response import binary_flip_probability
from privlib.core.validation import LongWorkRefused
from privlib.label_dp.audit import (
    AUDIT_CLASSES,
    LP2ST_RELEASE_SECONDS,
    audit_mechanism,
    audit_seconds,
    neighbouring_labels,
)
from privlib.label_dp.mechanisms import LP2ST, RR, make_randomiser
from privlib.label_dp.models import make_model

CONFIDENCE = 0.999


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("name, parameters", [("rr", {}), ("rr-prior", {}), ("rr-prior", {"prior": [0.5, 0.3, 0.2]})])
def test_exact_randomisers_stay_under_their_claim_and_come_close(name, parameters, epsilon):
    result = audit_mechanism(name, epsilon=epsilon, releases=10_000, seed=0, confidence=CONFIDENCE,
                             parameters=parameters)
    assert result.claimed_epsilon == epsilon and result.exceeds_claim is False
    assert result.epsilon <= result.exact_loss <= epsilon * (1 + 1e-12)
    if result.exact_loss > 0:  # k-ary RR's pair loss is exactly ε
        assert result.exact_loss == pytest.approx(epsilon, rel=1e-12)
    if result.exact_loss > 0 and epsilon == 2.0:
        # the test "output = a": TPR 0.451, FPR 0.061; 4 SE off each with 5,000 counted still give
        # ln(0.423/0.075) = 1.73, so the audit shows most of the loss
        assert result.epsilon > 1.5


def test_lp2st_stays_under_its_claim():
    # each release fits LP-2ST's first-stage model: few releases, the fast centroid model
    result = audit_mechanism("lp2st", epsilon=2.0, releases=300, seed=0, confidence=CONFIDENCE,
                             parameters={"model": "centroid"})
    assert result.exceeds_claim is False and result.epsilon <= 2.0
    assert result.score == "the empirical likelihood ratio of the selection releases"


def test_k_ary_rr_with_the_binary_formula_is_caught(monkeypatch):
    """The bug: keep the label with the binary probability e^ε/(1 + e^ε), the other C − 1 classes share the rest."""

    def binary_formula(self, X, y, classes, rng):
        keep = 1 - binary_flip_probability(self.epsilon)
        others = (y + 1 + rng.integers(0, classes - 1, y.size)) % classes
        return self._released(np.where(rng.random(y.size) < keep, y, others), classes)

    monkeypatch.setattr(RR, "_release", binary_formula)
    result = audit_mechanism("rr", epsilon=1.0, releases=10_000, seed=0, confidence=CONFIDENCE)
    # its loss is ε + ln(C − 1) = 3.2 against the claim 1
    assert result.exceeds_claim is True and result.epsilon > 1.0 + 0.5 * math.log(AUDIT_CLASSES - 1)


def test_rr_with_prior_compares_its_two_most_likely_classes():
    assert neighbouring_labels(make_randomiser("rr-prior", 1.0)) == (0, 1)
    assert neighbouring_labels(make_randomiser("rr", 1.0)) == (0, 1)
    from privlib.label_dp.mechanisms import RRWithPrior

    assert neighbouring_labels(RRWithPrior(epsilon=1.0, prior=[0.1, 0.2, 0.7])) == (2, 1)


def counted_releases(monkeypatch) -> list:
    """LP-2ST's release, counting its calls (one per audit release)."""
    calls = []
    original = LP2ST.release

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LP2ST, "release", counting)
    return calls


@pytest.mark.parametrize("model", ["logistic", "logreg", "centroid", "knn"])
def test_lp2st_at_the_default_size_is_refused_before_any_release(monkeypatch, model):
    """The cost model refuses it: no model is fitted (the old timing probes fitted 10 before refusing)."""
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "10")
    calls = counted_releases(monkeypatch)
    with pytest.raises(LongWorkRefused, match="allow_long=True") as refused:
        audit_mechanism("lp2st", epsilon=1.0, seed=0, parameters={"model": model})
    assert calls == []
    assert refused.value.seconds == audit_seconds(LP2ST(epsilon=1.0, model=model), DEFAULT_RELEASES) > 10


def test_the_cost_model_is_releases_times_the_stored_cost_of_a_release():
    for name, cost in LP2ST_RELEASE_SECONDS.items():
        mechanism = LP2ST(epsilon=1.0, model=name)
        assert audit_seconds(mechanism, 1_000) == pytest.approx(2 * 1_000 * cost)
        assert audit_seconds(mechanism, 4_000) == pytest.approx(4 * audit_seconds(mechanism, 1_000))
    assert LP2ST_RELEASE_SECONDS["logistic"] > LP2ST_RELEASE_SECONDS["centroid"]
    assert audit_seconds(LP2ST(epsilon=1.0, model=make_model("centroid", 10)), 1_000) == pytest.approx(
        2 * 1_000 * LP2ST_RELEASE_SECONDS["centroid"])
    assert audit_seconds(make_randomiser("rr", 1.0), 10**6) == 0.0  # drawn at once, timed by the audit


def test_an_audit_the_cost_model_lets_through_runs_its_releases(monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "10")
    calls = counted_releases(monkeypatch)
    result = audit_mechanism("lp2st", epsilon=1.0, releases=20, seed=0, parameters={"model": "centroid"})
    assert len(calls) == 2 * 20 and result.releases == 20


def test_unknown_parameter_is_refused():
    with pytest.raises(ValueError, match="no parameter"):
        audit_mechanism("rr", epsilon=1.0, releases=100, seed=0, parameters={"prior": [0.5, 0.5]})
