"""The command line: `python -m privlib ...` as a user runs it (in this process, `run_cli`; the
real subprocess is checked in test_cli_commands.py)."""
import numpy as np
import pytest
from cli_run import run_cli


@pytest.fixture(scope="module")
def king():
    r = run_cli("ranks", "--word", "king", "--epsilon", "10", "--samples", "2000", "--seed", "1", "--json")
    assert r.code == 0, r.err
    return r.json()


def test_ranks_json_has_the_documented_fields(king):
    assert {"word", "epsilon", "mechanism", "samples", "proportions", "top"} <= set(king)
    assert king["word"] == "king" and king["epsilon"] == 10 and king["samples"] == 2000
    assert king["mechanism"] == "multivariate-laplace"
    p = king["proportions"]
    assert set(p) == {"original", "close", "distant"}
    assert abs(sum(p.values()) - 1) < 1e-12
    assert all({"word", "rank", "count"} <= set(t) for t in king["top"])
    counts = [t["count"] for t in king["top"]]
    assert counts == sorted(counts, reverse=True)


def test_ranks_agree_with_the_library(king, glove):
    from privlib.words import rank_experiment

    expected = rank_experiment(glove, "king", 10, 2000, rng=1)
    assert king["proportions"] == expected.proportions  # same seed, same computation
    assert [t["word"] for t in king["top"]] == [t["word"] for t in expected.top]


def test_ranks_same_seed_same_output_and_close_option():
    a = run_cli("ranks", "--word", "queen", "--epsilon", "8", "--samples", "300", "--seed", "3", "--close", "10",
                "--vocab-size", "50000", "--json")
    b = run_cli("ranks", "--word", "queen", "--epsilon", "8", "--samples", "300", "--seed", "3", "--close", "10",
                "--vocab-size", "50000", "--json")
    assert a.code == 0, a.err
    assert a.out == b.out
    result = a.json()
    assert result["close"] == 10
    assert all(t["rank"] < 50000 for t in result["top"])


def test_sweep_json():
    r = run_cli("sweep", "--words", "40", "--epsilons", "1,10,1000", "--seed", "0", "--vocab-size", "20000", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["epsilons"] == [1.0, 10.0, 1000.0]
    assert out["words"] == 40
    props = out["proportions"]
    for i in range(3):
        assert abs(props["original"][i] + props["close"][i] + props["distant"][i] - 1) < 1e-12
    # eps = 1000: noise radius ~ 50/1000, far below half of any neighbour distance in GloVe
    assert props["original"][2] == 1.0


def test_sweep_range_syntax():
    r = run_cli("sweep", "--words", "5", "--epsilons", "1:3", "--seed", "0", "--vocab-size", "5000", "--json")
    assert r.code == 0, r.err
    assert r.json()["epsilons"] == [1.0, 2.0, 3.0]


def test_text_output_is_readable():
    r = run_cli("ranks", "--word", "king", "--epsilon", "10", "--samples", "200", "--seed", "1",
                "--vocab-size", "20000")
    assert r.code == 0, r.err
    assert "original" in r.out and "king" in r.out


@pytest.mark.parametrize("args, message", [
    (["ranks", "--word", "qwzxqwzxq", "--epsilon", "10"], "not in the vocabulary"),
    (["ranks", "--word", "king", "--epsilon", "0"], "greater than 0"),
    (["ranks", "--word", "king", "--epsilon", "-3"], "greater than 0"),
    (["ranks", "--word", "king", "--epsilon", "nan"], "finite"),
    (["ranks", "--word", "king", "--epsilon", "inf"], "finite"),
    (["ranks", "--word", "king", "--epsilon", "ten"], "number"),
    (["ranks", "--word", "king", "--epsilon", "1", "--embeddings", "/no/such/file.txt"], "No embedding file"),
    (["sweep", "--epsilons", "5:1"], "epsilon grid"),
    (["sweep", "--epsilons", "0,1"], "greater than 0"),
    (["ranks", "--word", "king", "--epsilon", "1", "--param", "nearest=fast"], "nearest"),
    (["ranks", "--word", "king", "--epsilon", "1", "--param", "speed=3"], "no parameter"),
    (["table2", "--words", "0"], "at least 1"),
    (["table2", "--words", "10", "--vocab-size", "50"], "at least 102"),
    (["table2", "--words", "10", "--far", "1", "--vocab-size", "1000"], "at least 2"),
    (["table2", "--seed", "-1"], "seed"),
    (["table2", "--words", "ten"], "a whole number, got 'ten'"),
])
def test_bad_input_exits_2_with_one_line(args, message):
    r = run_cli(*args)
    assert r.code == 2
    lines = [line for line in r.err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, r.err
    assert message in lines[0]
    assert r.out == ""


def test_own_embedding_file(tmp_path):
    rng = np.random.default_rng(0)
    words = ["alpha", "beta", "gamma", "delta"] + [f"w{i}" for i in range(60)]
    path = tmp_path / "vectors.vec"
    path.write_text(f"{len(words)} 5\n" + "".join(
        w + " " + " ".join(f"{x:.4f}" for x in rng.standard_normal(5)) + "\n" for w in words))
    r = run_cli("ranks", "--word", "beta", "--epsilon", "1000", "--samples", "50", "--seed", "0", "--close", "5",
                "--embeddings", str(path), "--json")
    assert r.code == 0, r.err
    assert r.json()["proportions"]["original"] == 1.0


def test_mechanisms_listing():
    r = run_cli("mechanisms", "--json")
    assert r.code == 0, r.err
    listing = r.json()["mechanisms"]
    names = [m["name"] for m in listing]
    assert "multivariate-laplace" in names
    for m in listing:
        assert m["guarantee"] and isinstance(m["parameters"], dict)


def test_dot_json_matches_the_spec_reference_values():
    r = run_cli("dot", "--n", "50", "--epsilon", "10", "--at", "0.5,1.369", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert {"n", "epsilon", "pdf", "cdf", "sf", "var", "bounds"} <= set(out)
    # 30-digit references from the spec (dx-text §4): F_Z(0.5), F_Z(1.369) for n = 50, eps = 10
    assert abs(out["cdf"][0] - 0.760776598187) < 1e-9
    assert abs(out["cdf"][1] - 0.971975605962) < 1e-9
    assert abs(out["sf"][1] - (1 - 0.971975605962)) < 1e-9
    assert out["var"] == pytest.approx(51 / 100, rel=1e-12)  # Thm 9: (n + 1)/eps^2
    for name in ("thm8", "chebyshev", "chernoff"):
        for bound, tail in zip(out["bounds"][name], out["two_sided_tail"]):
            assert bound >= tail  # every bound holds


@pytest.mark.parametrize("args, message", [
    (["dot", "--n", "0", "--epsilon", "1"], "at least 1"),
    (["dot", "--n", "50", "--epsilon", "0"], "greater than 0"),
    (["dot", "--n", "50", "--epsilon", "1", "--at", "a,b"], "comma-separated numbers"),
])
def test_dot_bad_input_exits_2(args, message):
    r = run_cli(*args)
    assert r.code == 2
    assert message in r.err and len(r.err.strip().splitlines()) == 1


def test_ranks_with_an_exact_mechanism_and_parameters():
    r = run_cli("ranks", "--word", "king", "--epsilon", "10", "--mechanism", "tem", "--param", "beta=0.01",
                "--vocab-size", "20000", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["exact"] is True and out["mechanism"] == "tem"
    assert abs(sum(out["proportions"].values()) - 1) < 1e-9
    assert all("probability" in t for t in out["top"])
    bad = run_cli("ranks", "--word", "king", "--epsilon", "10", "--mechanism", "tem", "--param", "beta=2")
    assert bad.code == 2 and "beta" in bad.err


def test_a_signal_the_process_was_started_to_ignore_stays_ignored():
    """nohup (SIGHUP ignored) keeps a command running after a hang-up; SIGTERM still stops it with
    its cleanup; both handlers are put back after the command."""
    import signal

    from privlib.cli.common import Stopped, stop_on_signals

    former_hup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    former_term = signal.getsignal(signal.SIGTERM)
    try:
        with stop_on_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            handler = signal.getsignal(signal.SIGTERM)
            with pytest.raises(Stopped):
                handler(signal.SIGTERM, None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is former_term
    finally:
        signal.signal(signal.SIGHUP, former_hup)
