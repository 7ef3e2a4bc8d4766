"""The noisy dot product of the seed paper (Asghar et al., PoPETs 2026, §4–5) as the mechanism
really draws it: multivariate Laplace noise dotted with a direction, beside its exact law
(`NoisyDotProduct`) and the paper's bounds (Thm 8, Cor. 2)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.words.experiments import MAX_SAMPLES
from privlib.words.theory.noisy_dot import (
    NoisyDotProduct,
    empirical_dot_products,
    thm8_half_width,
)


@dataclass(frozen=True)
class DotProductExperiment:
    """Real mechanism noise dotted with a direction, beside the exact law (spec §4).

    ``values`` = <eta, e> for ``samples`` noise vectors eta of the multivariate Laplace mechanism
    (`laplace_noise`) with e = w/||w|| for a word w (law Z = NoisyDotProduct(n, eps)), or
    e = w itself when ``normalise`` is False (law ||w|| Z = NoisyDotProduct(n, eps/||w||), since
    Z scales as 1/eps), or e = the first axis when no word is given. ``radius`` = ||eta|| and
    ``cosine`` = <eta/||eta||, e/||e||> are the paper's two components R and K.
    """

    n: int
    epsilon: float
    word: str | None
    normalise: bool
    scale: float  # ||e||: 1 for a unit direction
    values: np.ndarray = field(repr=False)
    radius: np.ndarray = field(repr=False)
    cosine: np.ndarray = field(repr=False)

    @property
    def law(self):
        """The exact law of ``values``."""
        return NoisyDotProduct(self.n, self.epsilon / self.scale)

    def summary(self, confidence: float = 0.99) -> list[dict]:
        """Mean, variance and the central ``confidence`` interval: exact, simulated (with the
        standard error of the simulation) and the paper's bounds (Thm 8 half-width and
        Chebyshev's Var/t^2 = 1 - confidence), all in the units of ``values``."""
        law, x, m = self.law, self.values, self.values.size
        var = law.var()
        sample_var = float(np.var(x, ddof=1))
        # SE of the sample variance: sqrt((mu4 - var^2 (m-3)/(m-1)) / m), mu4 estimated
        mu4 = float(np.mean((x - x.mean()) ** 4))
        se_var = float(np.sqrt(max(mu4 - sample_var**2 * (m - 3) / (m - 1), 0.0) / m))
        half = float(law.isf((1 - confidence) / 2))
        lo, hi = np.quantile(x, [(1 - confidence) / 2, (1 + confidence) / 2])
        # SE of a sample quantile: sqrt(p(1-p)/m) / f(q)
        p = (1 - confidence) / 2
        se_q = float(np.sqrt(p * (1 - p) / m) / law.pdf(half))
        thm8 = thm8_half_width(self.n, self.epsilon / self.scale, confidence).half_width
        chebyshev = float(np.sqrt(var / (1 - confidence)))
        pct = f"{confidence:.0%}"
        return [
            {"quantity": "mean", "exact": 0.0, "simulated": float(x.mean()),
             "standard error": float(np.sqrt(sample_var / m)), "bound": None},
            {"quantity": "variance", "exact": var, "simulated": sample_var, "standard error": se_var, "bound": None},
            {"quantity": f"{pct} interval half-width", "exact": half, "simulated": float((hi - lo) / 2),
             "standard error": se_q, "bound": thm8, "bound (Chebyshev)": chebyshev},
        ]

    def to_dict(self) -> dict:
        return {"n": self.n, "epsilon": self.epsilon, "word": self.word, "normalise": self.normalise,
                "scale": self.scale, "samples": int(self.values.size), "summary": self.summary()}


def dot_product_experiment(n: int, epsilon: float, samples: int = 100_000, space=None, word=None,
                           normalise: bool = True, rng=None) -> DotProductExperiment:
    """Sample the mechanism's real noise and its dot product with a word's vector (or the first
    axis when ``word`` is None); see `DotProductExperiment`. With a word, ``n`` must be the
    embedding's dimension."""
    epsilon = check_epsilon(epsilon)
    samples = check_positive_int(samples, "samples", minimum=2, maximum=MAX_SAMPLES)
    n = check_positive_int(n, "n (dimension)", maximum=100_000)
    if word is not None:
        if space is None:
            raise ValueError("A word needs an embedding space.")
        if n != space.dim:
            raise ValueError(f"The word's embedding has dimension {space.dim}; set n = {space.dim} to use a word.")
        direction = space.vectors[space.index(word)].astype(np.float64)
        if not np.any(direction):
            raise ValueError(f"{word!r} has the zero vector, which has no direction; choose another word.")
    else:
        direction = np.zeros(n)
        direction[0] = 1.0
    norm = float(np.linalg.norm(direction))
    noise = laplace_noise(n, epsilon, samples, as_generator(rng))
    radius = np.linalg.norm(noise, axis=1)
    values = empirical_dot_products(noise, direction, normalise)
    cosine = (values if normalise else values / norm) / np.maximum(radius, 1e-300)
    return DotProductExperiment(n, epsilon, word, bool(normalise), 1.0 if normalise else norm,
                                values, radius, cosine)
