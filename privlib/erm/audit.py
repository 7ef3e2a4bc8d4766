"""Auditing a private-learning mechanism against its claim (`privlib.core.audit`: the empirical
lower bound ε̂ with Clopper–Pearson confidence; Jagielski, Ullman & Oprea 2020, Nasr et al. 2021).

The unit of protection is one record, and every mechanism here is private under replace-one
neighbours. The pair: `AUDIT_RECORDS` synthetic regression records (d = `AUDIT_FEATURES`, the squared
loss on the unit ball; `privlib.erm.datasets.synthetic_records`, seed 0) whose last feature is set
to 0, and one more record x* = e_d (the last unit vector) with target y = +1 in one data set and
y = −1 in the other. The other records leave the direction of x* unconstrained, so replacing that
record moves the fit as far as one record can along it (its gradient changes by ‖Δb‖ = 4 = 2B, half
the worst case 2ζ): a pair that makes a weak noise show. The released model w is scored by its
projection on the difference of the two data sets' non-private fits (what an auditor knows). The releases
are drawn in batches with the law of the mechanism's own ``release`` on the data set's sufficient
statistics (`privlib.erm.attacks.release_batch`: every fit of a chunk solved at once).

Input perturbation with the safe calibration is valid only from its smallest n (`min_n`): at an ε
and δ where `AUDIT_RECORDS` is too few the audit says so instead of running.

The time estimate (`audit_seconds`, before any release is counted): one probe call of the audit's own
chunk size (releases / `RELEASE_CHUNKS`, at most `PROBE_RELEASES`), its seconds per release times the
2 · releases of the audit. A batched solve costs a fixed part a call plus a part a release, and the core
audit's probes of 4 and 16 releases see only the fixed part (objective perturbation at 10⁵ releases
per side: 0.28 s estimated for a 13.6 s run); a probe as large as the audit's chunks sees both.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from functools import lru_cache

import numpy as np

from privlib.core.audit import DEFAULT_RELEASES, RELEASE_CHUNKS, AuditResult, audit, claim_of
from privlib.core.sweep import Progress
from privlib.core.validation import check_positive_int, duration, refuse_long_work, shown
from privlib.erm.attacks import release_batch
from privlib.erm.datasets import synthetic_records
from privlib.erm.losses import LOSSES, QuadraticSums
from privlib.erm.mechanisms import MECHANISMS, InputPerturbation, NonPrivate, check_method, make_mechanism

#: The records of each data set of the pair (the changed one included).
AUDIT_RECORDS = 1_000
#: The number of features d.
AUDIT_FEATURES = 10
#: The loss (on the ball ‖w‖ ≤ 1).
AUDIT_LOSS = LOSSES["squared"]

#: The most releases of the timing probe of `audit_seconds`: chunks of up to this many cost about the same
#: per release (batched solves of d × d systems), and the probe stays short.
PROBE_RELEASES = 4096

#: The pair, for people.
UNIT_OF_PROTECTION = (f"one record (replace-one): {AUDIT_RECORDS:,} synthetic records whose last feature is 0 but "
                      "one, x* = e_d, with target +1 in one data set and −1 in the other")


@lru_cache(maxsize=1)
def neighbouring_sums() -> tuple[QuadraticSums, QuadraticSums]:
    """The sufficient statistics of the two data sets of the pair (module docstring)."""
    X, y = synthetic_records(AUDIT_RECORDS, AUDIT_FEATURES, seed=0)
    X[:, -1] = 0.0
    X[-1] = 0.0
    X[-1, -1] = 1.0
    sums = []
    for target in (1.0, -1.0):
        y[-1] = target
        sums.append(AUDIT_LOSS.sums(X, y))
    return sums[0], sums[1]


def probe_size(releases: int) -> int:
    """Releases of the timing probe for an audit of ``releases`` per data set: its chunk size
    (releases / `RELEASE_CHUNKS`), at least 1 and at most `PROBE_RELEASES`."""
    return min(max(1, int(releases) // RELEASE_CHUNKS), PROBE_RELEASES)


def release_seconds(release: Callable, sums, size: int, rng) -> float:
    """Seconds of one call ``release(sums, rng, size)``: the mean of two, after a warm-up call of one
    release (the mean, not the quicker: the audit's calls run on the same, maybe busy, machine)."""
    release(sums, rng, 1)
    began = time.perf_counter()
    for _ in range(2):
        release(sums, rng, size)
    return (time.perf_counter() - began) / 2


def audit_seconds(releases: int, seconds_of: Callable[[int], float]) -> float:
    """Estimated seconds of the releases of an audit with ``releases`` per data set:
    2 · releases · seconds_of(s)/s, with s = `probe_size` and ``seconds_of(size)`` the seconds of one
    call of ``size`` releases (`release_seconds` in `audit_mechanism`)."""
    releases = check_positive_int(releases, "releases (per input)", minimum=2)
    size = probe_size(releases)
    return 2 * releases * float(seconds_of(size)) / size


def audit_mechanism(name: str, *, epsilon: float, delta: float | None = None, releases: int = DEFAULT_RELEASES,
                    seed, confidence: float = 0.95, progress: Progress | None = None, allow_long: bool = False,
                    parameters: Mapping | None = None) -> AuditResult:
    """Audit the private-learning mechanism ``name`` of `MECHANISMS` at ``epsilon`` (and
    ``delta``, required by the (ε, δ)-DP mechanisms; with ``parameters``, its ``PARAMETERS``:
    input perturbation's ``inflate``) on one replaced record (module docstring):
    `privlib.core.audit.audit` with ``releases`` per data set, ``confidence``, ``seed``,
    ``progress`` and the refusal of long work (``allow_long``; from `audit_seconds`, which is also the
    result's ``estimated_seconds``); for output perturbation (ε-DP)
    ``delta`` is only the δ of ε̂ (default 0). ValueError for an unknown name or
    parameter, a missing δ, a mechanism without a guarantee (the non-private fit, input
    perturbation's asymptotic match), or a calibration that is invalid at `AUDIT_RECORDS`."""
    parameters = dict(parameters or {})
    cls = MECHANISMS[check_method(name)]
    if not cls.REQUIRES_EPSILON:
        raise ValueError(f"{cls.label} has no privacy guarantee, so there is no claim to audit.")
    unknown = sorted(set(map(str, parameters)) - set(cls.PARAMETERS))
    if unknown:
        raise ValueError(f"{name} has no parameter(s) {', '.join(shown(key) for key in unknown[:5])}; its parameters "
                         f"are: {', '.join(cls.PARAMETERS) or 'none'}.")
    mechanism = make_mechanism(name, epsilon=epsilon, delta=delta, **parameters)
    claim = claim_of(mechanism)
    pair = neighbouring_sums()
    if isinstance(mechanism, InputPerturbation):
        calibration = mechanism.calibration(AUDIT_RECORDS, AUDIT_FEATURES, AUDIT_LOSS)
        if not calibration.valid:
            raise ValueError(f"{mechanism.label} gives no model for the audit's {AUDIT_RECORDS:,} records: "
                             f"{calibration.reason}")
    reference = NonPrivate()
    fits = [reference.release(sums, AUDIT_LOSS).w for sums in pair]
    difference, middle = fits[0] - fits[1], (fits[0] + fits[1]) / 2

    def release(sums, rng, size):
        d = sums.d
        return release_batch(mechanism, np.broadcast_to(sums.S, (size, d, d)), np.broadcast_to(sums.b_sum, (size, d)),
                             sums.n, AUDIT_LOSS, rng)

    releases = check_positive_int(releases, "releases (per input)", minimum=2)
    probe_rng = np.random.default_rng(0)  # the probe's draws are thrown away: they never enter the audit
    estimate = audit_seconds(releases, lambda size: release_seconds(release, pair[0], size, probe_rng))
    refuse_long_work(estimate, allow_long, "This audit", "use fewer releases")
    said = f"audit: about {duration(estimate)} (estimate)"
    shown_progress = None
    if progress is not None:
        progress(0.0, said)

        def shown_progress(fraction, message):  # the core audit's own estimate (from tiny probes) is not said
            progress(fraction, said if message.endswith("(estimate)") else message)

    result = audit(release, pair, releases=releases, seed=seed, confidence=confidence,
                   delta=delta if claim.delta is None else claim.delta, claim=claim,
                   score=lambda outputs: (outputs - middle) @ difference, progress=shown_progress, allow_long=True)
    return dataclasses.replace(result, estimated_seconds=estimate)


__all__ = ["AUDIT_FEATURES", "AUDIT_LOSS", "AUDIT_RECORDS", "MECHANISMS", "PROBE_RELEASES", "UNIT_OF_PROTECTION",
           "audit_mechanism", "audit_seconds", "neighbouring_sums", "probe_size", "release_seconds"]
