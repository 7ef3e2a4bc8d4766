"""Argument checks: each bad input raises a ValueError that says what to do; epsilon grids parse;
privlib.core imports nothing but numpy, scipy, the standard library and itself."""
from __future__ import annotations

import ast
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privlib.core
from privlib.core.validation import (
    EPSILON_MAX,
    EPSILON_MIN,
    check_delta,
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_probability,
    check_probability_vector,
    check_range,
    check_seed,
    parse_epsilon_grid,
    shown,
)

NAN, INF = float("nan"), float("inf")


# ----------------------------------------------------------------------------- epsilon
@pytest.mark.parametrize("value", [0, 0.0, -1, NAN, INF, -INF])
def test_check_epsilon_rejects_non_positive(value):
    with pytest.raises(ValueError, match="epsilon must be a finite number greater than 0"):
        check_epsilon(value)


@pytest.mark.parametrize("value", ["1", None, True, [1.0]])
def test_check_epsilon_rejects_non_numbers(value):
    with pytest.raises(ValueError, match="epsilon must be a number"):
        check_epsilon(value, allow_zero=True)


def test_check_epsilon_allow_zero():
    assert check_epsilon(0, allow_zero=True) == 0.0
    assert check_epsilon(-0.0, allow_zero=True) == 0.0
    assert check_epsilon(np.float32(0.5), allow_zero=True) == 0.5
    for value in (-1e-9, NAN, INF):
        with pytest.raises(ValueError, match="at least 0"):
            check_epsilon(value, allow_zero=True)


def test_check_epsilons():
    out = check_epsilons([1, 0.5, np.float64(3)])
    assert out.dtype == np.float64 and out.shape == (3,)
    np.testing.assert_array_equal(out, [1.0, 0.5, 3.0])
    np.testing.assert_array_equal(check_epsilons(2), [2.0])
    np.testing.assert_array_equal(check_epsilons(np.array([0.1, 0.2])), [0.1, 0.2])


@pytest.mark.parametrize("values, message", [
    ([], "empty"), (np.array([]), "empty"), ([[1.0, 2.0]], "flat list"), ([1.0, 0.0], "greater than 0"),
    ([1.0, NAN], "greater than 0"), (["a"], "must be a number"), ([True], "must be a number"),
    ([1.0, [2.0]], "must be a number"),
])
def test_check_epsilons_rejects(values, message):
    with pytest.raises(ValueError, match=message):
        check_epsilons(values)


# ----------------------------------------------------------------------------- delta
def test_check_delta_accepts():
    assert check_delta(1e-6) == 1e-6
    assert check_delta(0.999) == 0.999
    assert check_delta(0, allow_zero=True) == 0.0


@pytest.mark.parametrize("value, allow_zero", [
    (0, False), (1, False), (1, True), (-1e-9, True), (1.5, False), (NAN, True), (INF, False), ("1e-6", False),
    (None, True), (True, True),
])
def test_check_delta_rejects(value, allow_zero):
    with pytest.raises(ValueError, match=r"delta must be a number with 0 <=? delta < 1 \(delta is the probability"):
        check_delta(value, allow_zero=allow_zero)


# ----------------------------------------------------------------------------- probability and range
@pytest.mark.parametrize("value, kwargs", [(0, {}), (1, {}), (0.5, {"open_low": True, "open_high": True})])
def test_check_probability_accepts(value, kwargs):
    assert check_probability(value, "p", **kwargs) == float(value)


@pytest.mark.parametrize("value, kwargs, interval", [
    (-0.1, {}, r"\[0, 1\]"), (1.1, {}, r"\[0, 1\]"), (NAN, {}, r"\[0, 1\]"), ("0.5", {}, r"\[0, 1\]"),
    (0, {"open_low": True}, r"\(0, 1\]"), (1, {"open_high": True}, r"\[0, 1\)"),
    (True, {}, r"\[0, 1\]"),
])
def test_check_probability_rejects(value, kwargs, interval):
    with pytest.raises(ValueError, match=f"keep must be a probability in {interval}"):
        check_probability(value, "keep", **kwargs)


def test_check_range_accepts():
    assert check_range(3, "x") == 3.0
    assert check_range(0, "x", low=0) == 0.0
    assert check_range(2, "x", low=0, high=2) == 2.0
    assert check_range(-5.5, "x", high=0, high_inclusive=False) == -5.5


@pytest.mark.parametrize("value, kwargs, message", [
    (NAN, {}, "x must be a finite number"), (INF, {"low": 0}, "x must be a finite number"),
    ("1", {}, "x must be a number"), (None, {}, "x must be a number"), (False, {}, "x must be a number"),
    (-1, {"low": 0}, "x must be a number at least 0"),
    (0, {"low": 0, "low_inclusive": False}, "x must be a number greater than 0"),
    (3, {"low": 0, "high": 2}, "x must be a number at least 0 and at most 2"),
    (2, {"high": 2, "high_inclusive": False}, "x must be a number less than 2"),
])
def test_check_range_rejects(value, kwargs, message):
    with pytest.raises(ValueError, match=message):
        check_range(value, "x", **kwargs)


# ----------------------------------------------------------------------------- epsilon grids
@pytest.mark.parametrize("text, expected", [
    ("1:30", np.arange(1, 31, dtype=float)),
    ("1:30:0.5", np.arange(2, 61) / 2.0),
    ("0.5:10:0.5", np.arange(1, 21) / 2.0),
    ("0.5,1,2", [0.5, 1.0, 2.0]),
    (" 2 ", [2.0]),
    ("5", [5.0]),
    ("1:1", [1.0]),
    ("1, ,2,", [1.0, 2.0]),
    ("1e-3,1e3", [0.001, 1000.0]),
    ("2:3:0.4", [2.0, 2.4, 2.8]),
    ("1:1000", np.arange(1, 1001, dtype=float)),
])
def test_parse_epsilon_grid(text, expected):
    np.testing.assert_allclose(parse_epsilon_grid(text), expected, rtol=1e-12, atol=0)


def test_parse_epsilon_grid_step_grid_keeps_stop():
    grid = parse_epsilon_grid("0.1:0.3:0.1")
    assert grid.size == 3 and grid[-1] == pytest.approx(0.3, abs=1e-12)


@pytest.mark.parametrize("text", ["", " ", ",", "a", "1:b", "1:2:3:4", ":", "1:30:0", "1:30:-1", "30:1",
                                  "1:nan", "1:inf"])
def test_parse_epsilon_grid_format_errors(text):
    with pytest.raises(ValueError, match="Cannot read the epsilon grid|The epsilon grid is empty"):
        parse_epsilon_grid(text)


@pytest.mark.parametrize("text", ["0,1", "-1", "nan", "inf", "0:3", "1,-2"])
def test_parse_epsilon_grid_invalid_values(text):
    with pytest.raises(ValueError, match="epsilon must be a finite number greater than 0"):
        parse_epsilon_grid(text)


@pytest.mark.parametrize("text, max_values, message", [
    ("1:1e12", 1000, "has more than 1,000 values: use a larger step"),
    ("1:1001", 1000, "has more than 1,000 values"),
    (",".join(["1"] * 1001), 1000, "has more than 1,000 values"),
    ("1:11", 10, "has more than 10 values"),
    ("1,2,3", 2, "has more than 2 values"),
])
def test_parse_epsilon_grid_caps_the_size(text, max_values, message):
    with pytest.raises(ValueError, match=message):
        parse_epsilon_grid(text, max_values=max_values)


def test_parse_epsilon_grid_custom_cap_allows_up_to_it():
    assert parse_epsilon_grid("1:10", max_values=10).size == 10
    with pytest.raises(ValueError, match="max_values"):
        parse_epsilon_grid("1:10", max_values=0)


# ----------------------------------------------------------------------------- extremes of epsilon
@pytest.mark.parametrize("value", [1e-301, 5e-324, 1e-308, 1.0000001e300, 1e308, 10**400])
def test_check_epsilon_refuses_what_float64_cannot_carry(value):
    with pytest.raises(ValueError, match=r"epsilon must be between 1e-300 and 1e\+300|finite number greater"):
        check_epsilon(value)
    with pytest.raises(ValueError):
        check_epsilon(value, allow_zero=True)


def test_check_epsilon_accepts_the_ends_of_its_range():
    assert check_epsilon(EPSILON_MIN) == 1e-300 and check_epsilon(EPSILON_MAX) == 1e300
    assert check_epsilon(1e300, allow_zero=True) == 1e300


# ----------------------------------------------------------------------------- values repeated in messages
LONG = "9" * 10_000


@pytest.mark.parametrize("call", [
    lambda: check_epsilon(LONG), lambda: check_epsilon("x" * 500, allow_zero=True), lambda: check_delta(LONG),
    lambda: check_probability(LONG, "p"), lambda: check_range(LONG, "x"), lambda: check_positive_int(LONG, "n"),
    lambda: check_positive_int(10**10_000, "n", maximum=5), lambda: check_positive_int(1e308, "n", maximum=5),
    lambda: check_epsilons(LONG), lambda: check_epsilons([[LONG]]), lambda: parse_epsilon_grid(LONG + "x"),
    lambda: parse_epsilon_grid(",".join(["1"] * 5000)), lambda: check_seed(LONG), lambda: check_seed(-10**5000),
    lambda: check_probability_vector(LONG, "prior"), lambda: check_probability_vector([1, LONG], "prior"),
    lambda: check_epsilon(10**5000), lambda: check_delta(-(10**400)),
])
def test_messages_never_repeat_a_long_value(call):
    with pytest.raises(ValueError) as error:
        call()
    message = str(error.value)
    assert len(message) <= 300, message
    assert "9" * 41 not in message and "x" * 41 not in message and ",".join(["1"] * 30) not in message


def test_shown_cuts_to_forty_characters():
    assert shown("abc") == "'abc'"
    assert shown("a" * 100) == "'" + "a" * 39 + "…"
    assert shown(10**400) == "a whole number of 401 digits"
    assert shown(10**5000) == "a whole number of 5,001 digits"  # beyond str()'s 4,300-digit limit
    assert shown(list(range(1000))).endswith("…") and len(shown(list(range(1000)))) == 41


# ----------------------------------------------------------------------------- probability vectors
def test_check_probability_vector_normalises_weights():
    np.testing.assert_array_equal(check_probability_vector([2, 1, 1], "prior"), [0.5, 0.25, 0.25])
    np.testing.assert_array_equal(check_probability_vector([[1, 3], [0, 2]], "prior"), [[0.25, 0.75], [0, 1]])
    # a sum below the smallest normal float still normalises to full precision
    np.testing.assert_array_equal(check_probability_vector([1e-320, 3e-320], "prior"), [0.25, 0.75])
    np.testing.assert_array_equal(check_probability_vector([0.5, 0.5], "p", normalise=False), [0.5, 0.5])
    out = check_probability_vector([0.1] * 10, "p", normalise=False)  # sums to 0.9999999999999999
    assert out.dtype == np.float64 and out.shape == (10,)


@pytest.mark.parametrize("values, kwargs, message", [
    ([0.5, 0.6], {"normalise": False}, r"must sum to 1 .* 1\.1"),
    ([1e308, 1e308], {}, "sums to more than float64 can hold"),  # rr-prior gave keep probability 1.0
    ([1e308, 1e308], {"normalise": False}, "sums to more than float64 can hold"),
    ([0, 0], {}, "positive sum"), ([1, -0.1], {}, "at least 0, got -0.1"), ([1, NAN], {}, "finite"),
    ([1, INF], {}, "finite"), ("0.5,0.5", {}, "got text"), ([True, False], {}, "list of numbers"),
    ([[1], [2, 3]], {}, "list of numbers"), (0.5, {}, "at least 1 numbers"), ([1.0], {"min_length": 2}, "at least 2"),
    ([0.5, 0.5], {"length": 3}, r"one entry per class \(3\), got 2"), ([[[1.0]]], {}, "shape"),
    ([1j, 1], {}, "list of numbers"), (["a", "b"], {}, "list of numbers"),
])
def test_check_probability_vector_refuses(values, kwargs, message):
    with pytest.raises(ValueError, match=message):
        check_probability_vector(values, "prior", **kwargs)


# ----------------------------------------------------------------------------- property: any input
ANY_INPUT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.integers(min_value=10**300, max_value=10**400),
    st.text(), st.text(min_size=41, max_size=500), st.none(), st.booleans(),
    st.lists(st.floats(), max_size=5), st.sampled_from([1e-300, 1e300, 1e-301, 1e301, 5e-324, -0.0, 0.5, 1.0]),
)
GRID_TEXT = st.one_of(
    st.text(), st.text(alphabet="0123456789.,:e-+ naif", max_size=80),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=60).map(
        lambda xs: ",".join(repr(x) for x in xs)),
    st.tuples(st.floats(), st.floats(), st.floats()).map(lambda t: "{!r}:{!r}:{!r}".format(*t)),
)


def assert_good_refusal(error: ValueError, value) -> None:
    message = str(error)
    assert 0 < len(message) <= 300, message
    text = value if isinstance(value, str) else repr(value) if not isinstance(value, int) else str(value)
    if len(text) > 40:
        assert text not in message


def check_outcome(call, value, valid) -> None:
    try:
        result = call(value)
    except ValueError as error:
        assert_good_refusal(error, value)
    else:
        assert valid(result), (value, result)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(ANY_INPUT)
def test_property_check_epsilon(value):
    check_outcome(check_epsilon, value, lambda r: isinstance(r, float) and EPSILON_MIN <= r <= EPSILON_MAX)
    check_outcome(lambda v: check_epsilon(v, allow_zero=True), value,
                  lambda r: isinstance(r, float) and (r == 0 or EPSILON_MIN <= r <= EPSILON_MAX))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(ANY_INPUT)
def test_property_check_delta_and_probability(value):
    check_outcome(check_delta, value, lambda r: isinstance(r, float) and 0 < r < 1)
    check_outcome(lambda v: check_delta(v, allow_zero=True), value, lambda r: isinstance(r, float) and 0 <= r < 1)
    check_outcome(lambda v: check_probability(v, "p"), value, lambda r: isinstance(r, float) and 0 <= r <= 1)
    check_outcome(lambda v: check_probability(v, "p", open_low=True, open_high=True), value,
                  lambda r: isinstance(r, float) and 0 < r < 1)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(GRID_TEXT, ANY_INPUT))
def test_property_parse_epsilon_grid(value):
    check_outcome(parse_epsilon_grid, value, lambda r: isinstance(r, np.ndarray) and r.ndim == 1
                  and 1 <= r.size <= 1000 and bool(np.all((r >= EPSILON_MIN) & (r <= EPSILON_MAX))))


# ----------------------------------------------------------------------------- import hygiene
def test_core_imports_only_numpy_scipy_threadpoolctl_stdlib_and_core():
    # threadpoolctl: threads.py holds BLAS single-threaded for every topic's parallel work;
    # datasets.py reads the data that ships inside installed packages (scikit-learn's digits)
    allowed = set(sys.stdlib_module_names) | {"numpy", "scipy", "threadpoolctl", "__future__"}
    offenders = []
    for path in sorted(Path(privlib.core.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            for name in names:
                if name.startswith("privlib.core") or name.split(".")[0] in allowed:
                    continue
                if path.name == "datasets.py" and name.split(".")[0] == "sklearn":
                    continue
                offenders.append(f"{path.name}: {name}")
    assert not offenders, offenders


def test_core_reexports_its_public_names():
    for name in privlib.core.__all__:
        assert getattr(privlib.core, name) is not None
    assert {"analytic_gaussian_sigma", "RandomisedResponse", "PrivacyBudget", "parse_epsilon_grid",
            "wilson_interval", "geometric_noise", "check_delta"} <= set(privlib.core.__all__)


def test_environment_number_reads_a_setting_or_says_which_variable_is_wrong(monkeypatch):
    from privlib.core.validation import environment_number

    monkeypatch.delenv("PRIVLIB_TEST_SETTING", raising=False)
    assert environment_number("PRIVLIB_TEST_SETTING", "seconds") is None
    monkeypatch.setenv("PRIVLIB_TEST_SETTING", " 2.5 ")
    assert environment_number("PRIVLIB_TEST_SETTING", "seconds") == 2.5
    monkeypatch.setenv("PRIVLIB_TEST_SETTING", "inf")
    assert environment_number("PRIVLIB_TEST_SETTING", "seconds", allow_infinity=True) == math.inf
    for bad in ("inf", "-1", "nan", "x" * 1000):
        monkeypatch.setenv("PRIVLIB_TEST_SETTING", bad)
        with pytest.raises(ValueError, match="PRIVLIB_TEST_SETTING must be a number of seconds >= 0") as caught:
            environment_number("PRIVLIB_TEST_SETTING", "seconds")
        assert len(str(caught.value)) < 150
