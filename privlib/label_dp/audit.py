"""Auditing a label randomiser against its claim (`privlib.core.audit`: the empirical lower bound
ε̂ with Clopper–Pearson confidence; Jagielski, Ullman & Oprea 2020, Nasr et al. 2021).

The unit of protection is one training label (label DP, Ghazi et al. 2021): the pair is two data
sets that differ in the label of one example, y_0 = a against y_0 = b, and the release audited is
that example's randomised label. For RR and RRWithPrior every label is randomised on its own, so the
other labels' outputs have the same law under both data sets and carry no information: the
example's own output is the whole story, its law is finite and exact (k-ary RR;
`rr_with_prior_probabilities`), the test is its exact likelihood ratio and the audit reports the
pair's exact privacy loss. The classes are a ≠ b of `AUDIT_CLASSES` (RRWithPrior: the two classes
of largest prior, both in its top set when any two are).

LP-2ST (Ghazi et al. 2021, Alg. 3) randomises the example's label with RR (first half) or with
RRWithPrior under a prior from a model fitted on the other half's released labels; given the
label-free split, everything else it releases is a function of the example's released label and of
randomness independent of it (post-processing), so that label is again the whole story, but its law
depends on the fitted model: the audit runs the real LP-2ST on a tiny public data set
(`AUDIT_EXAMPLES` points in 2-D, labels cycling through the classes) and scores the released label
with the empirical likelihood ratio (few outcomes). Each release fits a model: audits of LP-2ST are
slow. Their time is first bounded from a stored cost model (`audit_seconds`: releases × the quickest
LP-2ST release of its model M1 measured on the reference machine, `LP2ST_RELEASE_SECONDS`), so that a
long audit is refused before any release — the audit's own timing probes would first fit ten models and
import scikit-learn (7–16 s on the 2-core machine); an audit the model lets through is then timed by
those probes (`privlib.core.audit.audit`) and refused there if it is long after all.
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from privlib.core.audit import DEFAULT_RELEASES, AuditResult, audit, claim_of
from privlib.core.randomised_response import RandomisedResponse
from privlib.core.registry import make_from_registry
from privlib.core.sweep import Progress
from privlib.core.validation import check_positive_int, refuse_long_work
from privlib.label_dp.mechanisms import (
    LP2ST,
    MECHANISMS,
    RR,
    RRWithPrior,
    rr_prior_weights,
    rr_with_prior_probabilities,
)
from privlib.label_dp.models import MODEL_ALIASES, MODELS

#: The number of classes of the audit's labels (that of digits and MNIST).
AUDIT_CLASSES = 10
#: LP-2ST's tiny public data set: this many examples (2-D standard normal features, seed 0).
AUDIT_EXAMPLES = 20

#: Seconds of one LP-2ST release of the audit (`AUDIT_EXAMPLES` labels: RR on half, the model M1 fitted on
#: them, RRWithPrior on the rest) by M1's name: the quickest seen in runs of 40 releases on the 2-core
#: reference machine (numpy's default threads, scikit-learn already imported; typical releases take 1.5–10×
#: longer on a busy machine). The quickest, so that releases × it is a lower bound on the work of an
#: audit: a refusal from it is never wrong on that machine.
LP2ST_RELEASE_SECONDS = {"centroid": 0.0008, "least_squares": 0.003, "logistic": 0.018, "knn": 0.0014}

#: The pair, for people.
UNIT_OF_PROTECTION = (f"one training label: the data sets differ in one example's label (class a against b of "
                      f"{AUDIT_CLASSES}); the release audited is that example's randomised label")


@lru_cache(maxsize=1)
def audit_features() -> np.ndarray:
    """LP-2ST's public features: `AUDIT_EXAMPLES` × 2, standard normal from seed 0 (read-only)."""
    features = np.random.default_rng(0).standard_normal((AUDIT_EXAMPLES, 2))
    features.setflags(write=False)
    return features


def neighbouring_labels(mechanism) -> tuple[int, int]:
    """The two labels (a, b) of the changed example: RRWithPrior's two classes of largest prior, else 0 and 1."""
    if isinstance(mechanism, RRWithPrior) and mechanism.prior is not None:
        if mechanism.prior.ndim != 1:
            raise ValueError("The audit of RRWithPrior needs one prior for all labels (length C), not one per label.")
        order = rr_prior_weights(mechanism.prior, mechanism.epsilon).order
        return int(order[0]), int(order[1])
    return 0, 1


def audit_seconds(mechanism, releases: int) -> float:
    """Seconds the releases of an audit of ``mechanism`` (a label randomiser) with ``releases`` per data set
    take at least, from the cost model alone (no release is drawn): 2 · ``releases`` ·
    `LP2ST_RELEASE_SECONDS` of LP-2ST's model; 0 for RR and RRWithPrior, whose releases are drawn at once
    (microseconds each) and timed by the audit itself."""
    if not isinstance(mechanism, LP2ST):
        return 0.0
    model = mechanism.model
    if isinstance(model, str):
        name = MODEL_ALIASES.get(model, model)
    else:  # a model object: its kind's cost (one of another kind: the cheapest, so never an unjust refusal)
        name = next((key for key, cls in MODELS.items() if type(model) is cls), None)
    per_release = LP2ST_RELEASE_SECONDS.get(name, min(LP2ST_RELEASE_SECONDS.values()))
    return 2 * int(releases) * per_release


def audit_mechanism(name: str, *, epsilon: float, delta: float | None = None, releases: int = DEFAULT_RELEASES,
                    seed, confidence: float = 0.95, progress: Progress | None = None, allow_long: bool = False,
                    parameters: Mapping | None = None) -> AuditResult:
    """Audit the label randomiser ``name`` of `MECHANISMS` at ``epsilon`` (with ``parameters``,
    its ``PARAMETERS``: RRWithPrior's prior, LP-2ST's model) on one changed label (module
    docstring): `privlib.core.audit.audit` with ``releases`` per data set, ``confidence``,
    ``seed``, ``progress`` and the refusal of long work (``allow_long``; LP-2ST's first from the cost
    model `audit_seconds`, before any release). ``delta``: the δ of ε̂ (ε-label DP has none; default
    0). ValueError for an unknown name or parameter."""
    mechanism = make_from_registry(MECHANISMS, name, {"epsilon": epsilon, **dict(parameters or {})},
                                   kind="label randomiser")
    releases = check_positive_int(releases, "releases (per input)", minimum=2)
    refuse_long_work(audit_seconds(mechanism, releases), allow_long, "This audit", "use fewer releases")
    claim = claim_of(mechanism)
    pair = neighbouring_labels(mechanism)
    classes = AUDIT_CLASSES if not isinstance(mechanism, RRWithPrior) or mechanism.prior is None \
        else mechanism.prior.shape[-1]
    law = None
    if isinstance(mechanism, LP2ST):
        features = audit_features()
        others = np.arange(1, AUDIT_EXAMPLES) % classes

        def release(label, rng, size):
            labels = np.concatenate([[label], others])
            return np.array([mechanism.release(features, labels, classes, rng).labels[0] for _ in range(size)],
                            dtype=np.int64)
    else:
        def release(label, rng, size):
            return mechanism.release(None, np.full(size, label), classes, rng).labels

        if isinstance(mechanism, RR):
            randomiser = RandomisedResponse(classes, epsilon)

            def law(label):
                row = np.full(classes, randomiser.other_probability)
                row[label] = randomiser.keep_probability
                return row
        else:
            prior = np.full(classes, 1 / classes) if mechanism.prior is None else mechanism.prior

            def law(label):
                return rr_with_prior_probabilities(label, prior, epsilon)
    return audit(release, pair, releases=releases, seed=seed, confidence=confidence, delta=delta, claim=claim,
                 law=law, progress=progress, allow_long=allow_long)


__all__ = ["AUDIT_CLASSES", "AUDIT_EXAMPLES", "LP2ST_RELEASE_SECONDS", "MECHANISMS", "UNIT_OF_PROTECTION",
           "audit_features", "audit_mechanism", "audit_seconds", "neighbouring_labels"]
