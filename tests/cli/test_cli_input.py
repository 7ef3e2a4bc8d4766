"""The command line on bad or extreme input: one line on stderr and exit code 2, or valid JSON —
never a traceback, a warning or raw bytes on stdout."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INVALID_UTF8 = b"Maria lives in Paris \xff\xfe caf\xe9\n"


def run(*args, stdin: bytes | None = None, timeout=300):
    return subprocess.run([sys.executable, "-m", "privlib", *args], cwd=ROOT, capture_output=True,
                          input=stdin, timeout=timeout, check=False)


def strict_json(text: bytes):
    """JSON as the standard defines it: no NaN or Infinity."""
    def reject(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text.decode("utf-8"), parse_constant=reject)


def assert_usage_error(r):
    stderr = r.stderr.decode("utf-8", errors="replace")
    assert r.returncode == 2, (r.returncode, stderr)
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert r.stdout == b""
    return stderr


@pytest.mark.parametrize("epsilon", ["1e300", "1e-300", "1e200", "1e-200"])
def test_dot_epsilon_out_of_range_is_one_line(epsilon):
    stderr = assert_usage_error(run("dot", "--n", "50", "--epsilon", epsilon, "--json"))
    assert "epsilon" in stderr.lower() or "ε" in stderr


@pytest.mark.parametrize("at", ["1e308", "-1e308", "1e20", "1e300,0.5,-1e250"])
def test_dot_far_points_are_computed_without_warnings(at):
    r = run("dot", "--n", "50", "--epsilon", "10", f"--at={at}", "--json")
    assert r.returncode == 0, r.stderr
    assert b"Warning" not in r.stderr
    result = strict_json(r.stdout)
    far = [i for i, z in enumerate(result["at"]) if abs(z) >= 1e20]
    assert far
    for i in far:  # far beyond the bulk of Z (its standard deviation is 0.71): every tail is 0
        assert result["two_sided_tail"][i] == 0.0
        assert result["bounds"]["chernoff"][i] == 0.0
        assert result["bounds"]["chebyshev"][i] < 1e-30


def test_dot_extreme_but_valid_epsilons_give_strict_json():
    for epsilon in ("1e-100", "1e100"):
        r = run("dot", "--n", "50", "--epsilon", epsilon, "--at", "0,1e-99,1e99", "--json")
        assert r.returncode == 0, r.stderr
        assert b"Warning" not in r.stderr
        result = strict_json(r.stdout)
        assert result["var"] > 0


def test_sanitize_invalid_utf8_on_stdin_is_rejected_like_a_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(INVALID_UTF8)
    from_file = run("sanitize", "--epsilon", "10", "--seed", "1", "-i", str(path), "--json")
    from_stdin = run("sanitize", "--epsilon", "10", "--seed", "1", "-i", "-", "--json", stdin=INVALID_UTF8)
    assert_usage_error(from_file)
    message = assert_usage_error(from_stdin)
    assert "UTF-8" in message and "standard input" in message
    assert "Maria" not in message  # the input is never quoted


def test_choose_invalid_utf8_on_stdin_is_rejected():
    r = run("choose", "--words-file", "-", "--epsilons", "1,10", "--samples", "10", "--seed", "1", "--json",
            stdin=INVALID_UTF8)
    message = assert_usage_error(r)
    assert "UTF-8" in message


@pytest.mark.parametrize("top", ["-1", "0"])
def test_ranks_top_below_one_is_rejected(top):
    message = assert_usage_error(run("ranks", "--word", "king", "--epsilon", "10", "--top", top, "--json"))
    assert "--top" in message


def test_embeddings_file_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 1 2\ncherry 1 2 3\n")
    message = assert_usage_error(run("ranks", "--word", "apple", "--epsilon", "10", "--embeddings", str(path)))
    assert "vectors.txt" in message and "banana" in message and "line 2" in message
