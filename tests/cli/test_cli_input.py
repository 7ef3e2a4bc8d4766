"""The command line on bad or extreme input: one line on stderr and exit code 2, or valid JSON —
never a traceback, a warning or raw bytes on stdout (in this process, `run_cli`: a traceback
would be an exception out of the test, a warning is recorded by `run_cli`)."""
import pytest
from cli_run import run_cli

INVALID_UTF8 = b"Maria lives in Paris \xff\xfe caf\xe9\n"


def run_quietly(*args, **kwargs):
    """`run_cli`, failing the test on any warning the command raised (a real process would print
    it on stderr; `run_cli` records it)."""
    r = run_cli(*args, **kwargs)
    assert not r.warnings, r.warnings
    return r


def assert_usage_error(r):
    assert r.code == 2, (r.code, r.err)
    assert "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert r.out == ""
    return r.err


@pytest.mark.parametrize("epsilon", ["1e300", "1e-300", "1e200", "1e-200"])
def test_dot_epsilon_out_of_range_is_one_line(epsilon):
    stderr = assert_usage_error(run_quietly("dot", "--n", "50", "--epsilon", epsilon, "--json"))
    assert "epsilon" in stderr.lower() or "ε" in stderr


@pytest.mark.parametrize("at", ["1e308", "-1e308", "1e20", "1e300,0.5,-1e250"])
def test_dot_far_points_are_computed_without_warnings(at):
    r = run_quietly("dot", "--n", "50", "--epsilon", "10", f"--at={at}", "--json")
    assert r.code == 0, r.err
    result = r.json()  # strict JSON: no NaN or Infinity
    far = [i for i, z in enumerate(result["at"]) if abs(z) >= 1e20]
    assert far
    for i in far:  # far beyond the bulk of Z (its standard deviation is 0.71): every tail is 0
        assert result["two_sided_tail"][i] == 0.0
        assert result["bounds"]["chernoff"][i] == 0.0
        assert result["bounds"]["chebyshev"][i] < 1e-30


def test_dot_extreme_but_valid_epsilons_give_strict_json():
    for epsilon in ("1e-100", "1e100"):
        r = run_quietly("dot", "--n", "50", "--epsilon", epsilon, "--at", "0,1e-99,1e99", "--json")
        assert r.code == 0, r.err
        result = r.json()
        assert result["var"] > 0


def test_sanitize_invalid_utf8_on_stdin_is_rejected_like_a_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(INVALID_UTF8)
    from_file = run_quietly("sanitize", "--epsilon", "10", "--seed", "1", "-i", str(path), "--json")
    from_stdin = run_quietly("sanitize", "--epsilon", "10", "--seed", "1", "-i", "-", "--json", stdin=INVALID_UTF8)
    assert_usage_error(from_file)
    message = assert_usage_error(from_stdin)
    assert "UTF-8" in message and "standard input" in message
    assert "Maria" not in message  # the input is never quoted


def test_choose_invalid_utf8_on_stdin_is_rejected():
    r = run_quietly("choose", "--words-file", "-", "--epsilons", "1,10", "--samples", "10", "--seed", "1", "--json",
                    stdin=INVALID_UTF8)
    message = assert_usage_error(r)
    assert "UTF-8" in message


@pytest.mark.parametrize("top", ["-1", "0"])
def test_ranks_top_below_one_is_rejected(top):
    message = assert_usage_error(run_quietly("ranks", "--word", "king", "--epsilon", "10", "--top", top, "--json"))
    assert "--top" in message


def test_embeddings_file_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 1 2\ncherry 1 2 3\n")
    message = assert_usage_error(run_quietly("ranks", "--word", "apple", "--epsilon", "10", "--embeddings", str(path)))
    assert "vectors.txt" in message and "banana" in message and "line 2" in message
