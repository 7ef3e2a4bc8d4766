"""`python -m privlib table2` as a user runs it (in this process, `run_cli`)."""
import numpy as np
import pytest
from cli_run import run_cli


def test_json_has_the_documented_fields_and_agrees_with_the_library(glove_small):
    r = run_cli("table2", "--words", "200", "--seed", "0", "--vocab-size", "20000", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert {"words", "z_w_x1", "z_x1_x2", "z_x1_x101"} <= set(out)
    assert out["words"] == 200 and out["seed"] == 0 and "per_word" not in out
    assert "published" not in out  # the paper's rows are for all 400,000 words
    from privlib.words.theory.neighbour_distances import neighbour_distances

    expected = neighbour_distances(glove_small, 200, rng=0).means()  # --vocab-size 20000
    for name, value in expected.items():
        assert out[name] == value  # same seed, same computation
    assert r.err == ""  # progress only on a terminal


def test_per_word_values_and_published_row_on_the_full_vocabulary():
    r = run_cli("table2", "--words", "30", "--seed", "4", "--per-word", "--json")
    assert r.code == 0, r.err
    out = r.json()
    per_word = out["per_word"]
    assert len(per_word["word"]) == 30 and len(set(per_word["word"])) == 30
    assert {"x1", "x2", "x101", "z_w_x1", "z_x1_x2", "z_x1_x101"} <= set(per_word)
    assert np.mean(per_word["z_w_x1"]) == pytest.approx(out["z_w_x1"], rel=1e-12)
    assert out["published"]["paper"] == {"z_w_x1": 1.369, "z_x1_x2": 0.172, "z_x1_x101": 0.757}
    assert out["published"]["artifact"]["z_w_x1"] == 1.383


def test_text_output_and_far_option(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "vectors.txt"  # GloVe text format, no header
    path.write_text("".join(f"w{i} " + " ".join(f"{x:.4f}" for x in rng.standard_normal(4)) + "\n" for i in range(40)))
    r = run_cli("table2", "--words", "10", "--far", "5", "--embeddings", str(path))
    assert r.code == 0, r.err
    assert "z_x1_x5" in r.out and "10 random words" in r.out and "paper" not in r.out
