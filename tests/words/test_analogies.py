"""Low-dimensional analogies: the 1-D integer Laplace mechanism (Fig. 1), the map (Fig. 3) and
the planar noise (Fig. 4)."""
import math

import numpy as np
import pytest
from scipy import stats

from privlib.words.theory.analogies import (
    EARTH_RADIUS_KM,
    US_PROJECTION_CENTRE,
    PointMap,
    azimuthal_equidistant,
    keep_rates,
    laplace_1d_proportions,
    planar_noise,
    simulate_laplace_1d,
)
from privlib.words.theory.noisy_dot import NoisyDotProduct

EPSILONS = [0.001, 0.005, 0.02, 0.1, 0.5, 1.0, 3.0, 10.0]


@pytest.mark.parametrize("kind", ["rounded", "geometric"])
def test_closed_form_matches_simulation_within_4_standard_errors(kind):
    exact = laplace_1d_proportions(EPSILONS, kind=kind)
    sim = simulate_laplace_1d(EPSILONS, 40_000, kind=kind, rng=12)
    for name in ("original", "close", "distant"):
        p = exact.proportions[name]
        se = np.sqrt(p * (1 - p) / sim.samples)
        assert np.all(np.abs(sim.proportions[name] - p) <= 4 * np.maximum(se, 1 / sim.samples)), (name, kind)
        assert np.allclose(exact.proportions["original"] + exact.proportions["close"] + exact.proportions["distant"],
                           1, atol=1e-15)


def test_closed_form_hand_values():
    r = laplace_1d_proportions([1.0], close=100).proportions
    assert r["original"][0] == pytest.approx(1 - math.exp(-0.5), rel=1e-15)
    assert r["distant"][0] == pytest.approx(math.exp(-100.5), rel=1e-14)
    g = laplace_1d_proportions([1.0], close=100, kind="geometric").proportions
    q = math.exp(-1)
    assert g["original"][0] == pytest.approx((1 - q) / (1 + q), rel=1e-15)
    assert g["distant"][0] == pytest.approx(2 * q**101 / (1 + q), rel=1e-14)


def test_tiny_and_huge_epsilons_keep_full_precision_and_behave_as_expected():
    r = laplace_1d_proportions([1e-12, 1e3]).proportions
    assert r["original"][0] == pytest.approx(0.5e-12, rel=1e-9)  # 1 - e^{-eps/2}, no cancellation
    assert r["distant"][0] == pytest.approx(1 - 100.5e-12, rel=1e-12)
    assert r["original"][1] == 1.0 and r["distant"][1] == 0.0
    # "as expected": the proportion of original outputs increases with epsilon, distant ones decrease
    p = laplace_1d_proportions(np.geomspace(1e-4, 100, 50)).proportions
    assert np.all(np.diff(p["original"]) >= 0) and np.all(np.diff(p["distant"]) <= 0)
    assert p["original"][0] < 1e-4 and p["original"][-1] == 1.0 and p["distant"][0] > 0.99
    assert p["close"].max() > 0.95  # unlike words, close outputs dominate in between


def test_simulation_uses_the_true_value_and_standard_errors():
    sim = simulate_laplace_1d([1e6], 100, true_value=7, rng=1)
    assert sim.proportions["original"][0] == 1.0 and sim.true_value == 7
    assert not sim.exact and sim.standard_errors()["original"][0] == 0.0
    exact = laplace_1d_proportions([2.0])
    assert exact.exact and np.all(exact.standard_errors()["close"] == 0)


@pytest.mark.parametrize("call, message", [
    (lambda: laplace_1d_proportions([0.0]), "greater than 0"),
    (lambda: laplace_1d_proportions([1.0], kind="gaussian"), "kind"),
    (lambda: laplace_1d_proportions([1.0], close=0), "at least 1"),
    (lambda: simulate_laplace_1d([1.0], 0), "at least 1"),
    (lambda: laplace_1d_proportions([]), "at least one"),
])
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----------------------------------------------------------------------------- the map
def _great_circle_km(lat1, lon1, lat2, lon2):
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    return EARTH_RADIUS_KM * math.acos(math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl))


def test_us_map_has_islands_and_a_mainland():
    m = PointMap.us_states()
    assert len(m) == 50
    nn = m.nearest_neighbour_distances()
    order = np.argsort(-nn)
    assert [m.names[i] for i in order[:2]] == ["Hawaii", "Alaska"]
    assert 3500 < nn[m.index("HI")] < 4500  # Hawaii to California
    assert 200 < nn[m.index("Kansas")] < 400
    assert m.index("KS") == m.index("Kansas")
    with pytest.raises(ValueError, match="not on the map"):
        m.index("Atlantis")


def test_projection_keeps_distances_from_its_centre():
    lat0, lon0 = US_PROJECTION_CENTRE
    np.testing.assert_allclose(azimuthal_equidistant([lat0], [lon0], US_PROJECTION_CENTRE), [[0, 0]], atol=1e-9)
    for lat, lon in [(19.90, -155.67), (45.25, -69.45), (27.66, -81.52)]:
        xy = azimuthal_equidistant([lat], [lon], US_PROJECTION_CENTRE)[0]
        assert np.hypot(*xy) == pytest.approx(_great_circle_km(lat0, lon0, lat, lon), rel=1e-9)
    # north is up, east is right
    north = azimuthal_equidistant([lat0 + 1], [lon0], US_PROJECTION_CENTRE)[0]
    east = azimuthal_equidistant([lat0], [lon0 + 1], US_PROJECTION_CENTRE)[0]
    assert north[1] > 0 and abs(north[0]) < 1e-9 and east[0] > 0


def test_two_places_keep_themselves_with_the_exact_probability_of_eq18():
    # two places d apart: the nearest is the place itself iff <eta, e> < d/2, so P = F_Z(d/2), n = 2
    m = PointMap.from_arrays(["A", "B"], [[0.0, 0.0], [300.0, 400.0]])  # d = 500 km
    eps = [0.001, 0.004, 0.01]
    rates = keep_rates(m, eps, samples=20_000, rng=3)
    for j, e in enumerate(eps):
        p = NoisyDotProduct(2, e).cdf(250.0)
        se = math.sqrt(p * (1 - p) / 20_000)
        assert abs(rates.rates[0, j] - p) <= 4 * se and abs(rates.rates[1, j] - p) <= 4 * se


def test_the_island_keeps_itself_where_the_mainland_does_not():
    m = PointMap.us_states()
    calls = []
    rates = keep_rates(m, [0.002], samples=2000, rng=1, progress=lambda f, msg: calls.append(f))
    hawaii, kansas = rates.of("Hawaii")[0], rates.of("Kansas")[0]
    assert hawaii > 0.9 and kansas < 0.2
    assert calls == [1.0]
    assert rates.standard_errors().shape == rates.rates.shape


def test_map_validation():
    with pytest.raises(ValueError, match="at least two places"):
        PointMap.from_arrays(["A"], [[0, 0]])
    with pytest.raises(ValueError, match="unique"):
        PointMap.from_arrays(["A", "A"], [[0, 0], [1, 1]])


def test_planar_noise_has_gamma_radius_and_uniform_angle():
    noise = planar_noise(0.01, 20_000, rng=5)
    r = noise.radius
    assert abs(r.mean() - 200.0) <= 4 * math.sqrt(2) / 0.01 / math.sqrt(r.size)  # E R = 2/eps, sd sqrt(2)/eps
    assert stats.kstest(r, noise.radius_law.cdf).pvalue > 1e-3
    assert stats.kstest(noise.angle, stats.uniform(-math.pi, 2 * math.pi).cdf).pvalue > 1e-3
    np.testing.assert_allclose(np.hypot(*noise.noise.T), r)


def test_nearest_distance_on_a_map():
    square = PointMap.from_arrays(["a", "b", "c"], [[0.0, 0.0], [3.0, 4.0], [0.0, 10.0]])
    assert square.nearest_distance("a") == 5.0 and square.nearest_distance("c") == pytest.approx(math.hypot(3, 6))
    with pytest.raises(ValueError, match="No place"):
        square.nearest_distance("z")
    states = PointMap.us_states()  # the islands of the "Why it happens" page
    assert states.nearest_distance("Hawaii") > 10 * states.nearest_distance("Kansas")


def test_nearest_place_is_the_brute_force_one_across_blocks_with_ties_to_the_lowest_row():
    """`PointMap.nearest` works in blocks of points (issue 22: cache-sized blocks): every point, on either side of a
    block boundary, gets the place a plain search over all pairs gives, and a tie goes to the lower row."""
    states = PointMap.us_states()
    rng = np.random.default_rng(3)
    points = rng.uniform(states.xy.min(axis=0) - 500, states.xy.max(axis=0) + 500, (2_503, 2))
    brute = [min(range(len(states)), key=lambda i: (math.dist(p, states.xy[i]), i)) for p in points]
    assert states.nearest(points).tolist() == brute
    tied = PointMap.from_arrays(["a", "b", "c"], [[-1.0, 0.0], [1.0, 0.0], [0.0, 5.0]])
    midpoints = np.tile([[0.0, 0.0], [0.0, -3.0]], (1_001, 1))  # equally far from a and b, in two blocks
    assert set(tied.nearest(midpoints).tolist()) == {0}
