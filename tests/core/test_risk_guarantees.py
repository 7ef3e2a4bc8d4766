"""Every mechanism of every topic's registry as attack terms (privlib.core.risk): a curve for each
guarantee, none where there is no guarantee, never a μ-GDP curve for Obj-Gauss (an argmin of noisy
data, not a Gaussian release), and strict-JSON terms."""
from __future__ import annotations

import importlib
import json
import math

import pytest

from privlib.core.risk import DPCurve, GDPCurve, attack_terms, privacy_loss, tradeoff_curve

TOPIC_REGISTRIES = ["words.mechanisms", "projections.mechanisms", "label_dp.mechanisms", "erm.mechanisms"]


def registry_guarantees():
    for topic in TOPIC_REGISTRIES:
        for name, cls in importlib.import_module(f"privlib.{topic}").MECHANISMS.items():
            options = {"epsilon": 1.0} if cls.REQUIRES_EPSILON else {}
            if cls.USES_DELTA:
                options["delta"] = 1e-6
            yield pytest.param(name, cls(**options).guarantee, id=f"{topic.split('.')[0]}-{name}")


@pytest.mark.parametrize("name, guarantee", list(registry_guarantees()))
def test_every_registered_guarantee_has_its_attack_terms(name, guarantee):
    curve = tradeoff_curve(guarantee, distance=1.0)
    if guarantee.kind == "none":
        assert curve is None and privacy_loss(guarantee) == math.inf
    else:
        assert isinstance(curve, (DPCurve, GDPCurve))
        assert 0 <= curve.advantage <= 1 and curve.fnr(0.0) <= 1
    if name in ("obj_gauss", "input_safe", "input_asymptotic"):  # argmins of noisy data: never the μ-curve
        assert not isinstance(curve, GDPCurve)
    terms = attack_terms(guarantee, candidates=10, people=1000, distance=1.0)
    json.dumps(terms, default=lambda value: value.tolist(), allow_nan=False)
    assert terms["sentence"]
