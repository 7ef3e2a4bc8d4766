"""Estimates from stored kernel costs (`privlib.words.cost.STORED_KERNEL_NANOSECONDS`, ``timed=False``):
what a page uses to decide whether work starts by itself. They time nothing (a new process's timing
run cost about a second, as long as the work it decided about: issue 22), count the work exactly as
the timed estimate does, and give way to the tests' fixed costs."""
import pytest

from privlib.words import cost
from privlib.words.mechanisms import MECHANISMS, resolve_mechanism

EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)


@pytest.fixture
def no_timing(monkeypatch):
    """Stored costs only: the tests' fixed costs removed, and any timing of a kernel an error."""
    monkeypatch.delenv(cost.KERNEL_NANOSECONDS_VARIABLE)

    def timing(run, sizes):
        raise AssertionError("a kernel was timed")

    monkeypatch.setattr(cost, "per_unit_seconds", timing)


def test_every_mechanism_of_the_registry_has_a_stored_sampling_cost():
    stored = cost.STORED_KERNEL_NANOSECONDS["sampling"]
    assert set(stored) == set(MECHANISMS)
    assert all(value > 0 for value in [*stored.values(), cost.STORED_KERNEL_NANOSECONDS["ranking"]])


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_the_stored_estimate_times_nothing_and_counts_outputs_and_ranked_words(glove_small, no_timing, name):
    """words × epsilons × samples outputs at the mechanism's cost, plus one ranking per word, each
    cost × N nanoseconds (N = 20,000 words here)."""
    n = len(glove_small)
    sampling = cost.STORED_KERNEL_NANOSECONDS["sampling"][name] * 1e-9 * n
    ranking = cost.STORED_KERNEL_NANOSECONDS["ranking"] * 1e-9 * n
    mechanism = resolve_mechanism(name)
    one_word = cost.epsilon_sweep_seconds(glove_small, EPSILONS, ["king"], mechanism, samples_per_word=300,
                                          timed=False)
    assert one_word == pytest.approx(12 * 300 * sampling + ranking, rel=1e-12)
    assert cost.epsilon_sweep_seconds(glove_small, [1, 10], 50, mechanism, timed=False) == pytest.approx(
        50 * 2 * sampling + 50 * ranking, rel=1e-12)
    with pytest.raises(AssertionError, match="timed"):  # (the timed estimate does time the kernels)
        cost.epsilon_sweep_seconds(glove_small, EPSILONS, ["king"], mechanism, samples_per_word=300)


def test_the_stored_estimate_checks_its_input_as_the_work_does(glove_small, no_timing):
    laplace = resolve_mechanism("multivariate-laplace")
    with pytest.raises(ValueError, match="[Ee]psilon"):
        cost.epsilon_sweep_seconds(glove_small, [-1.0], ["king"], laplace, timed=False)
    with pytest.raises(ValueError):
        cost.epsilon_sweep_seconds(glove_small, EPSILONS, ["no-such-word-here"], laplace, timed=False)


def test_fixed_costs_come_before_stored_ones(glove_small, monkeypatch):
    """The tests' fixed costs (`KERNEL_NANOSECONDS_VARIABLE`) replace the stored costs too, so every
    estimate of a test run is the same on any machine."""
    monkeypatch.setenv(cost.KERNEL_NANOSECONDS_VARIABLE, "3")
    laplace = resolve_mechanism("multivariate-laplace")
    n = len(glove_small)
    assert cost.epsilon_sweep_seconds(glove_small, EPSILONS, ["king"], laplace, samples_per_word=300,
                                      timed=False) == pytest.approx((12 * 300 + 1) * 3e-9 * n, rel=1e-12)


def test_the_default_curve_of_neighbour_ranks_waits_for_its_button_with_stored_costs(glove, no_timing):
    """The page's curve across ε (12 ε × 300 outputs of the multivariate Laplace mechanism on the full
    GloVe) is estimated above the page's automatic limit (`epsilon_lab.ui.AUTOMATIC_SECONDS`, 1.5 s):
    the first view does not include it (about 1.3 s of work on a quiet machine, more on a busy one)."""
    seconds = cost.epsilon_sweep_seconds(glove, EPSILONS, ["king"], resolve_mechanism("multivariate-laplace"),
                                         samples_per_word=300, timed=False)
    assert seconds > 1.5


def test_kernel_nanoseconds_reports_costs_in_the_stored_units(glove_small, monkeypatch):
    """`kernel_nanoseconds` (how the stored costs are measured) gives nanoseconds per unit and per
    vocabulary word: with fixed costs of 3 ns, 3 for every kernel whatever the vocabulary's size."""
    monkeypatch.setenv(cost.KERNEL_NANOSECONDS_VARIABLE, "3")
    measured = cost.kernel_nanoseconds(glove_small, ["multivariate-laplace", "santext"])
    assert measured["sampling"] == pytest.approx({"multivariate-laplace": 3.0, "santext": 3.0}, rel=1e-12)
    assert measured["ranking"] == pytest.approx(3.0, rel=1e-12)


def test_fig_6_runs_of_the_mechanism_are_estimated_from_their_count(glove_small, no_timing):
    """`mechanism_frequencies_seconds`: words × epsilons × samples per word outputs of the multivariate
    Laplace mechanism at its stored cost, nothing timed."""
    sampling = cost.STORED_KERNEL_NANOSECONDS["sampling"]["multivariate-laplace"] * 1e-9 * len(glove_small)
    assert cost.mechanism_frequencies_seconds(glove_small, EPSILONS[:11], 200, 1, timed=False) == pytest.approx(
        200 * 11 * sampling, rel=1e-12)
    with pytest.raises(ValueError):
        cost.mechanism_frequencies_seconds(glove_small, [1.0], 0, timed=False)


def test_the_cost_model_imports_neither_table_2_nor_the_epsilon_study():
    """Importing the cost model (a page estimating a sweep: Neighbour ranks' first view) leaves Table 2's
    theory (which imports scipy.stats and scipy.integrate: seconds on a busy machine) and the ε study to
    the estimates of their own work, which still give the workload's own errors (issue 22)."""
    import subprocess
    import sys

    code = ("import sys; import privlib.words.cost; "
            "print(sorted(m for m in ('scipy.stats', 'scipy.integrate', 'privlib.words.theory', "
            "'privlib.words.choice') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_lazily_imported_estimates_still_check_their_input(glove_small):
    with pytest.raises(ValueError, match="far"):
        cost.neighbour_distances_seconds(glove_small, 10, far=1)
    with pytest.raises(ValueError):
        cost.mechanism_metrics_seconds(glove_small, ["king"], [-1.0])
    assert cost.neighbour_distances_seconds(glove_small, 10) == cost.neighbour_distances_seconds(glove_small, 10,
                                                                                                 far=101)
