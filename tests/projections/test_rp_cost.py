"""The time estimate of a sweep (privlib.projections.cost): the work it counts, with injected rates
(never the machine's speed), so the CLI's long-work refusal does not depend on load."""
import pytest

from privlib.projections.cost import MEASURED, Rates, SweepWork, sweep_seconds, sweep_work
from privlib.projections.datasets import load_dataset

ONLY_SCORES = Rates(seconds_per_score=1.0, seconds_per_multiply_add=0.0, seconds_per_value=0.0,
                    seconds_per_release=0.0)


def test_the_work_of_a_sweep():
    work = sweep_work("digits", ["raw-data-g-opt", "dp-oporp", "dp-signoporp-rr"], 3, repeats=2, k=16, queries=40)
    assert (work.rows, work.n_queries, work.n_db, work.p, work.k, work.repeats) == (1597 + 40, 40, 1597, 64, 16, 2)
    assert work.widths == (64,) * 3 + (16,) * 6  # raw data releases p values, the others k
    assert work.projections == 2  # OPORP, and the Gaussian W of the non-private levels


def test_seconds_count_each_unit_once():
    work = SweepWork(rows=10, n_queries=2, n_db=8, p=5, k=3, widths=(3, 3, 5), projections=2, repeats=4)
    # scores: truth once + (3 releases + 2 non-private retrievals) per repetition, 16 pairs each
    assert work.seconds(ONLY_SCORES, threads=1) == 16 * (1 + 4 * 5)
    assert work.seconds(ONLY_SCORES, threads=2) == 16 * (1 + 4 * 5) / 2
    values = Rates(0.0, 0.0, 1.0, 0.0)
    assert work.seconds(values, threads=1) == 4 * 10 * (3 + 3 + 5)
    releases = Rates(0.0, 0.0, 0.0, 1.0)
    assert work.seconds(releases, threads=1) == 4 * 5
    madds = Rates(0.0, 1.0, 0.0, 0.0)
    projections, similarities, truth = 2 * 10 * 5 * 3, 16 * (3 + 3 + 5 + 3 + 3), 16 * 5
    assert work.seconds(madds, threads=1) == truth + 4 * (projections + similarities)


def test_estimate_grows_with_the_work_and_the_cli_default_is_short():
    data = load_dataset("mnist")
    small = sweep_seconds(data, "dp", 12, repeats=3, k=32, threads=2)
    assert small < 60  # the default rp-sweep runs without --allow-long (rates measured on a 2-core machine)
    assert sweep_seconds(data, "dp", 12, repeats=30, k=32, threads=2) == pytest.approx(10 * small, rel=0.05)
    assert sweep_seconds(data, "dp", 12, repeats=30, k=256, threads=2) > 60
    assert MEASURED.seconds_per_score > 0


def test_bad_work_is_refused():
    with pytest.raises(ValueError, match="Unknown mechanism"):
        sweep_work("digits", "nope", 3, repeats=1, k=16)
    with pytest.raises(ValueError, match="repeats"):
        sweep_work("digits", "dp", 3, repeats=0, k=16)
