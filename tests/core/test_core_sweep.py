"""One seeding scheme (child_rng) and one sweep result (SweepResult) for every topic."""
from __future__ import annotations

import csv
import io
import json
import math
import zlib

import numpy as np
import pytest

from privlib.core.sweep import SweepResult, child_rng, empty_values, seed_key


def test_child_rng_is_seed_sequence_of_the_keys():
    """The documented equality that lets a topic move onto child_rng without changing its draws:
    child_rng(seed, *keys) = default_rng((seed, *integer keys))."""
    eps = 0.5
    expected = np.random.default_rng((7, 2, 3, zlib.crc32(b"dp-oporp"), int(np.float64(eps).view(np.uint64))))
    assert np.array_equal(child_rng(7, 2, 3, "dp-oporp", eps).random(5), expected.random(5))


def test_cells_have_their_own_streams():
    """Adjacent seeds and neighbouring keys do not share streams (seed + r did: seed 1 repeat 0 was
    seed 0 repeat 1)."""
    draws = {key: child_rng(*key).random(4).tobytes() for key in [(0, 1), (1, 0), (0, 0), (1, 1), (0, 1, 2)]}
    assert len(set(draws.values())) == len(draws)
    assert child_rng(3, "a", 1.0).random() == child_rng(3, "a", 1.0).random()  # reproducible


def test_keys_of_one_purpose_keep_one_length():
    """SeedSequence pads its entropy with zero words (to its pool size), so (seed, k) and (seed, k, 0)
    are the same stream: the documented rule is one fixed number of keys per purpose (a tag first)."""
    assert child_rng(0, 1).random() == child_rng(0, 1, 0).random()
    assert child_rng(0, "noise", 1).random() != child_rng(0, "data", 1).random()


def test_seed_keys():
    assert seed_key(5) == 5 and seed_key(True) == 1
    assert seed_key("tem") == zlib.crc32(b"tem")
    assert seed_key(0.1) != seed_key(0.1000001)
    with pytest.raises(ValueError, match=">= 0"):
        seed_key(-1)
    with pytest.raises(ValueError, match="seed key"):
        seed_key(None)
    with pytest.raises(ValueError, match="seed"):
        child_rng(-3, 1)


@pytest.fixture
def result() -> SweepResult:
    values = empty_values(2, 3, 4, 2)
    rng = np.random.default_rng(0)
    values[:] = rng.random(values.shape)
    values[1, 2, :, 0] = np.nan  # undefined everywhere
    values[1, 1, 3, 1] = np.nan  # one repetition undefined
    values[0, 0, 1:, 1] = np.nan  # a single defined repetition
    return SweepResult(mechanisms=("a", "b"), epsilons=np.array([0.5, 1.0, 2.0]), metrics=("accuracy", "loss"),
                       values=values, seed=3, labels={"a": "Mechanism A"}, reference={"chance": 0.1, "bad": math.inf},
                       settings={"k": 8})


def test_mean_sd_and_standard_error_against_numpy(result):
    raw = result.values
    assert np.allclose(result.mean("a", "accuracy"), raw[0, :, :, 0].mean(axis=1))
    assert np.allclose(result.sd("a", "accuracy"), raw[0, :, :, 0].std(axis=1, ddof=1))
    assert np.allclose(result.standard_error("a", "accuracy"), raw[0, :, :, 0].std(axis=1, ddof=1) / 2.0)
    # NaN repetitions are left out; none defined gives NaN; one defined gives sd 0
    partial = raw[1, 1, :3, 1]
    assert result.mean("b", "loss")[1] == pytest.approx(partial.mean())
    assert result.standard_error("b", "loss")[1] == pytest.approx(partial.std(ddof=1) / math.sqrt(3))
    assert result.count("b", "loss").tolist() == [4, 3, 4]
    assert np.isnan(result.mean("b", "accuracy")[2]) and np.isnan(result.sd("b", "accuracy")[2])
    assert result.sd("a", "loss")[0] == 0.0 and result.mean("a", "loss")[0] == raw[0, 0, 0, 1]


def test_long_form_summary_json_and_csv(result):
    rows = result.rows()
    assert len(rows) == 2 * 3 * 4 * 2
    assert rows[0] == {"mechanism": "a", "epsilon": 0.5, "repeat": 0, "metric": "accuracy",
                       "value": float(result.values[0, 0, 0, 0])}
    data = json.loads(result.to_json(), parse_constant=lambda name: pytest.fail(f"{name} in strict JSON"))
    assert data["epsilons"] == [0.5, 1.0, 2.0] and data["repeats"] == 4 and data["seed"] == 3
    assert data["labels"] == {"a": "Mechanism A", "b": "b"}
    assert data["reference"] == {"chance": 0.1, "bad": None}
    undefined = [row for row in data["summary"] if row["mechanism"] == "b" and row["metric"] == "accuracy"][2]
    assert undefined["mean"] is None and undefined["count"] == 0
    table = list(csv.reader(io.StringIO(result.to_csv())))
    assert table[0] == ["mechanism", "epsilon", "repeat", "metric", "value"] and len(table) == 1 + len(rows)
    assert float(table[1][4]) == rows[0]["value"]
    assert sum(1 for row in table[1:] if row[4] == "") == int(np.isnan(result.values).sum())


def test_another_axis_and_the_values_are_read_only(result):
    over_n = SweepResult(mechanisms=("a",), epsilons=[100, 1000], metrics=("rmse",), values=np.zeros((1, 2, 1, 1)),
                         seed=0, axis="n")
    assert over_n.to_dict()["n"] == [100.0, 1000.0] and "epsilons" not in over_n.to_dict()
    with pytest.raises(ValueError, match="read-only"):
        result.values[0, 0, 0, 0] = 1.0


def test_shapes_and_names_are_checked(result):
    with pytest.raises(ValueError, match="shape"):
        SweepResult(mechanisms=("a",), epsilons=[1.0], metrics=("m",), values=np.zeros((1, 2, 1, 1)), seed=0)
    with pytest.raises(ValueError, match="no mechanism 'c'; it has: a, b"):
        result.mean("c", "accuracy")
    with pytest.raises(ValueError, match="no metric"):
        result.mean("a", "precision_at_50")
