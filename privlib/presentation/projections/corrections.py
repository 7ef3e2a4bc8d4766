"""The slips of Li & Li, "Differential Privacy with Random Projections and Sign Random Projections",
that privlib corrects: for each, where it is, what the paper prints, what the code does and why
(the spec's "Other garbles" and "Suspect k*", §3 of specs/random-projections.md). The page shows
them as a table (`correction_rows`); the tests of `privlib.projections` check each "code" column.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Correction:
    """One slip of the paper: ``where`` (section, algorithm or equation), what the paper
    ``printed``, what the ``code`` does instead, and ``why``."""

    where: str
    printed: str
    code: str
    why: str


PAPER_CORRECTIONS: tuple[Correction, ...] = (
    Correction("Alg 7 (DP-SignRP-RR-smooth)",
               "L_j = ⌈|x_j|/D_j⌉ with the scaled x_j = w_jᵀu/√k over the unscaled D_j = β·maxᵢ|W_ij|",
               "L_j = ⌈|w_jᵀu|/D_j⌉, both unscaled",
               "the printed mix is still DP but flips more than needed (the levels shrink by √k); the "
               "reverse mix is not DP (worst per-bit loss 2.7ε/k, not ε/k)"),
    Correction("Alg 8 (DP-SignOPORP)", "\"if s̃_j = 0\"", "a fair coin when x_j = 0 (an empty bin, or a sum "
               "that cancels)", "s̃_j is the released bit, never 0; the case meant is a zero projection"),
    Correction("§4.1.2 (optimal k*)", "k* = εθ(π−θ)/F",
               "the exact minimiser of V_RR(θ, ε/N₊)/k, shown only as a trend",
               "the cubic term is 4π²F⁴k³/ε⁴, not 8π²…; the two leading terms give ε√(θ(π−θ)/2)/(πF), and eq. "
               "27's log(1/δ) slack makes the exact minimiser smaller still"),
    Correction("§3.5", "E[x_i y_i] = uᵀv", "E[Σ_j x_j y_j] = uᵀv", "one product is not unbiased; the sum is"),
    Correction("§6.1 (iDP-SignRP-G)", "Δ₂ = β·maxᵢ‖W_{i,A}‖ in the prose", "Δ₂ = β√(Ñ/k), as Alg 9 prints",
               "the prose drops the 1/√k of the projection"),
    Correction("§6.2", "e^ε′ = ε/Ñ₊", "ε′ = ε/Ñ per bit", "the budget is split over the Ñ bits at risk"),
    Correction("Lemma 4.3's proof", "Φ(·) − 1, the 2 of 2Φ(·) − 1 dropped", "eq. 26 as printed: [2Φ(·) − 1]",
               "eq. 26 is right; only the proof's line lost the 2"),
    Correction("Lemma 4.2(1)", "max Pr(|X| < |Y|)", "nothing from this lemma",
               "it should read Pr(|X| > |Y|), which is largest at ρ = 0"),
)


def correction_rows(corrections=PAPER_CORRECTIONS) -> list[dict]:
    """One dict per correction with the columns "where", "the paper prints", "the code does",
    "why", for a table."""
    return [{"where": c.where, "the paper prints": c.printed, "the code does": c.code, "why": c.why}
            for c in corrections]
