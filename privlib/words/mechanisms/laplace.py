"""The multivariate Laplace mechanism of Feyisetan et al. (WSDM 2020), the mechanism the seed paper studies."""
from __future__ import annotations

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.words.mechanisms.base import (
    SAMPLE_BATCH,
    Mechanism,
    Parameter,
    rows_and_epsilons,
)
from privlib.words.search import AnnoySearch


class MultivariateLaplace(Mechanism):
    """The multivariate Laplace mechanism of Feyisetan et al. (WSDM 2020), "CMP".

    w* = phi(w) + eta with eta ~ p(eta) ∝ exp(-eps ||eta||) (`laplace_noise`); output the exact
    Euclidean nearest word to w* (ties: lowest index). Feyisetan et al. 2020, as restated in
    Asghar et al. 2026, §3.2, Eqs. 1-3.
    ``nearest="annoy"`` uses an approximate Annoy index instead (still eps·d_X-private, since the
    index is public post-processing, but output frequencies then differ from the exact mechanism).
    """

    name = "multivariate-laplace"
    label = "Multivariate Laplace (Feyisetan et al. 2020)"
    PARAMETERS = {
        "nearest": Parameter(
            "exact", choices=("exact", "annoy"),
            help="Nearest-word search: exact (default) or approximate Annoy index (measured recall).",
        ),
    }

    def __init__(self, nearest: str = "exact"):
        if nearest not in self.PARAMETERS["nearest"].choices:
            raise ValueError(f"nearest must be 'exact' or 'annoy', got {nearest!r}.")
        self.nearest = nearest

    @property
    def guarantee(self) -> str:
        return ("eps·d_X-privacy with d = Euclidean distance between embeddings: "
                "P[M(w)=y] <= exp(eps·||w - w'||) P[M(w')=y]; m words cost m·eps.")

    def _search(self, space):
        if self.nearest == "exact":
            return space.exact_search
        return space.derived(("annoy-search",), lambda: AnnoySearch(space))

    def sample(self, space, word, epsilon: float, size: int = 1, rng=None) -> np.ndarray:
        """``size`` independent outputs for ``word`` (word or row index), as int64 row indices."""
        index = self._word_index(space, word)
        epsilon = check_epsilon(epsilon)
        size = check_positive_int(size, "size", minimum=0)
        rng = as_generator(rng)
        search = self._search(space)
        origin = space.vectors[index].astype(np.float64)
        out = np.empty(size, dtype=np.int64)
        for start in range(0, size, SAMPLE_BATCH):
            m = min(SAMPLE_BATCH, size - start)
            out[start:start + m] = search.nearest(origin + laplace_noise(space.dim, epsilon, m, rng))
        return out

    def sample_many(self, space, rows, epsilon, rng=None) -> np.ndarray:
        """One output for each input row in ``rows``; ``epsilon`` is one value or one per row.
        All noisy points go to one search call (one pass over the vocabulary per batch)."""
        rng = as_generator(rng)
        rows, eps = rows_and_epsilons(rows, epsilon, space)
        out = np.empty(rows.size, dtype=np.int64)
        search = self._search(space)
        for start in range(0, rows.size, SAMPLE_BATCH):
            r, e = rows[start:start + SAMPLE_BATCH], eps[start:start + SAMPLE_BATCH]
            points = space.vectors[r].astype(np.float64)
            for value in np.unique(e):
                sel = e == value
                points[sel] += laplace_noise(space.dim, value, int(sel.sum()), rng)
            out[start:start + r.size] = search.nearest(points)
        return out
