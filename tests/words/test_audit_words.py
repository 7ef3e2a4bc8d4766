"""The audit of the word mechanisms against their claims (privlib.words.audit over privlib.core.audit):
every mechanism stays under ε·d(x, x′) on its pair at γ = 1e-3 with fixed seeds, a wrong calibration
is caught with the same settings, and the pairs are the ones the guarantees cover."""
import math

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from privlib.words.audit import (
    AUDIT_VOCABULARY,
    audit_mechanism,
    audit_space,
    claimed_distance,
    closest_pair,
    neighbouring_pair,
)
from privlib.words.mechanisms import MECHANISMS, CusText, SanText, make_mechanism

CONFIDENCE = 0.999
#: ε of the audits: the closest pair is 0.35 apart, so the claim ε·d is 3.5, within an audit's reach.
EPSILON = 10.0


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_every_mechanism_stays_under_its_claim(name):
    exact = MECHANISMS[name].has_exact_probabilities
    # the sampled mechanisms search the vocabulary per release: fewer releases
    result = audit_mechanism(name, epsilon=EPSILON, releases=4000 if exact else 1000, seed=0, confidence=CONFIDENCE)
    assert result.claimed_epsilon is not None and result.exceeds_claim is False
    assert result.epsilon <= result.claimed_epsilon
    if exact:  # the exact law's test; the pair's exact loss is within the claim too
        assert result.score == "the exact likelihood ratio of the given output law"
        assert result.exact_loss <= result.claimed_epsilon * (1 + 1e-9)
        assert result.epsilon > 0  # the audit sees the pair apart at this ε (it can fail)


def test_exact_audit_comes_close_to_the_exact_loss():
    result = audit_mechanism("santext", epsilon=EPSILON, releases=10_000, seed=1, confidence=CONFIDENCE)
    assert 0.6 * result.exact_loss < result.epsilon <= result.exact_loss


def test_a_four_word_budget_given_to_each_word_is_caught(monkeypatch):
    """The bug: SanText's law at 4ε (a 4-word text's ε given to every word instead of ε/4)."""
    law = SanText._law
    monkeypatch.setattr(SanText, "_law", lambda self, space, row, epsilon, d: law(self, space, row, 4 * epsilon, d))
    result = audit_mechanism("santext", epsilon=3.0, releases=4000, seed=0, confidence=CONFIDENCE)
    assert result.exceeds_claim is True and result.epsilon > result.claimed_epsilon


def test_the_pair_is_the_closest_the_guarantee_covers():
    space = audit_space()
    assert len(space) == AUDIT_VOCABULARY
    x, y = closest_pair(space, np.arange(len(space)))
    assert {space.words[x], space.words[y]} == {"monday", "tuesday"}
    smallest = pdist(space.vectors.astype(np.float64)).min()  # an independent computation of the closest gap
    assert claimed_distance(make_mechanism("santext", epsilon=1), space, x, y) == pytest.approx(smallest, rel=1e-9)
    plus = make_mechanism("santext-plus", epsilon=1)
    a, b = neighbouring_pair(plus, space)
    assert {a, b} <= set(plus.sensitive_rows(space).tolist())
    custext = make_mechanism("custext", epsilon=1)
    a, b = neighbouring_pair(custext, space)
    assert b in custext.output_set(space, a).tolist()


def test_custext_claim_is_epsilon_within_a_group():
    result = audit_mechanism("custext", epsilon=2.0, releases=1000, seed=0, confidence=CONFIDENCE)
    assert result.claimed_epsilon == 2.0 and isinstance(make_mechanism("custext", epsilon=2.0), CusText)


def test_mahalanobis_claim_uses_its_own_distance():
    space = audit_space()
    mechanism = make_mechanism("mahalanobis", epsilon=1)
    x, y = neighbouring_pair(mechanism, space)
    euclidean = float(np.linalg.norm(space.vectors[x].astype(np.float64) - space.vectors[y].astype(np.float64)))
    assert not math.isclose(claimed_distance(mechanism, space, x, y), euclidean, rel_tol=1e-6)
    assert claimed_distance(mechanism, space, x, y) == pytest.approx(mechanism.distance(space, x, y))


def test_unknown_parameter_is_refused():
    with pytest.raises(ValueError, match="no parameter"):
        audit_mechanism("santext", epsilon=1, releases=100, seed=0, parameters={"k": 3})
