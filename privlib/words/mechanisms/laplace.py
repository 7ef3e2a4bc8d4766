"""The multivariate Laplace mechanism of Feyisetan et al. (WSDM 2020), the mechanism the seed paper studies."""
from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.words.mechanisms.base import SAMPLE_BATCH, Mechanism, Parameter
from privlib.words.search import AnnoySearch


#: `MultivariateLaplace.sample_many` remembers the outputs of this many recent calls per space...
RECENT_CALLS = 8
#: ...of at most this many rows each.
RECENT_MAX_ROWS = 100_000


class RecentDraws:
    """The outputs of recent `MultivariateLaplace.sample_many` calls on one space, keyed by what
    determines them: the search, the rows, the epsilons and the state of the generator before the
    call; with the generator's state after it. A call that repeats one (e.g. the post-processing
    fix drawing its pivots from the same seed as the plain mechanism just did, when the two are
    compared) gets the very same outputs and leaves its generator in the very same state, without
    drawing or searching again. Thread-safe; the least recently used call is forgotten first."""

    def __init__(self, size: int = RECENT_CALLS):
        self.size = size
        self._calls: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(nearest: str, rows: np.ndarray, eps: np.ndarray, rng) -> tuple:
        digest = hashlib.sha1()
        for part in (np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(eps, dtype=np.float64)):
            digest.update(part.tobytes())
        digest.update(pickle.dumps(rng.bit_generator.state))
        return nearest, rows.size, digest.hexdigest()

    def recall(self, key, rng):
        """The remembered outputs (a copy) with ``rng`` moved to the state after that call, or None."""
        with self._lock:
            found = self._calls.get(key)
            if found is None:
                return None
            self._calls.move_to_end(key)
        outputs, state = found
        rng.bit_generator.state = state
        return outputs.copy()

    def remember(self, key, outputs: np.ndarray, rng) -> None:
        with self._lock:
            self._calls[key] = (outputs.copy(), rng.bit_generator.state)
            while len(self._calls) > self.size:
                self._calls.popitem(last=False)


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
            "exact", choices=("exact", "annoy"), label="nearest-word search",
            help="Nearest-word search: exact (default) or approximate Annoy index (measured recall).",
        ),
    }

    def _set_parameters(self, *, nearest: str = "exact") -> None:
        if nearest not in self.PARAMETERS["nearest"].choices:
            raise ValueError(f"nearest must be 'exact' or 'annoy', got {nearest!r}.")
        self.nearest = nearest

    def _guarantee(self):
        return self._d_x_guarantee(
            "eps·d_X-privacy with d = Euclidean distance between embeddings: "
            "P[M(w)=y] <= exp(eps·||w - w'||) P[M(w')=y]; m words cost m·eps.")

    def _search(self, space):
        if self.nearest == "exact":
            return space.exact_search
        return space.derived(("annoy-search",), lambda: AnnoySearch(space))

    def _release(self, space, row, size, rng) -> np.ndarray:
        search = self._search(space)
        origin = space.vectors[row].astype(np.float64)
        out = np.empty(size, dtype=np.int64)
        for start in range(0, size, SAMPLE_BATCH):
            m = min(SAMPLE_BATCH, size - start)
            out[start:start + m] = search.nearest(origin + laplace_noise(space.dim, self.epsilon, m, rng))
        return out

    def _sample_many(self, space, rows, eps, rng) -> np.ndarray:
        """All noisy points go to one search call (one pass over the vocabulary per batch). A call
        that repeats one of the last `RECENT_CALLS` on this space (same rows, epsilons and
        generator state) returns its outputs again and leaves the generator where it left it
        (`RecentDraws`): the same numbers, without drawing and searching twice."""
        if rows.size > RECENT_MAX_ROWS:
            return self._draw_many(space, rows, eps, rng)
        recent = space.derived(("multivariate-laplace", "recent-draws"), RecentDraws)
        key = recent.key(self.nearest, rows, eps, rng)
        out = recent.recall(key, rng)
        if out is None:
            out = self._draw_many(space, rows, eps, rng)
            recent.remember(key, out, rng)
        return out

    def _draw_many(self, space, rows, eps, rng) -> np.ndarray:
        out = np.empty(rows.size, dtype=np.int64)
        search = self._search(space)
        for start in range(0, rows.size, SAMPLE_BATCH):
            chunk = slice(start, start + SAMPLE_BATCH)
            out[chunk] = search.nearest(self._noisy_points(space, rows[chunk], eps[chunk], rng))
        return out

    @staticmethod
    def _noisy_points(space, rows, eps, rng) -> np.ndarray:
        """w* = phi(w) + eta for each row of one chunk (at most SAMPLE_BATCH rows), float64: the
        noise is drawn from ``rng`` for each distinct epsilon in increasing order, all rows of that
        epsilon at once. `sample_many` and `sample_groups` both draw exactly this way, which is why
        their outputs agree."""
        points = space.vectors[rows].astype(np.float64)
        for value in np.unique(eps):
            sel = eps == value
            points[sel] += laplace_noise(space.dim, value, int(sel.sum()), rng)
        return points

    def _sample_groups(self, space, rows, eps, generators, bounds) -> np.ndarray:
        """`Mechanism.sample_groups` (group g's rows draw from ``generators[g]`` only) with the
        exact outputs of one `sample_many` call per group, but the searches batched across groups:
        each group's noisy points are drawn as `sample_many` would draw them from its generator
        (same chunks, same order), and the points of consecutive groups are searched together,
        about SAMPLE_BATCH at a time. A search's answer for a point does not depend on the other
        points of the call (the exact search is exact; Annoy answers each point on its own), so
        the grouping changes the cost, not the outputs: one pass over the vocabulary for a
        partition of many short documents instead of one per document."""
        out = np.empty(rows.size, dtype=np.int64)
        search = self._search(space)
        pending, first = [], 0  # noisy points drawn but not yet searched: those of rows first, first + 1, …
        for generator, start, stop in zip(generators, bounds[:-1], bounds[1:]):
            for chunk_start in range(start, stop, SAMPLE_BATCH):  # sample_many's chunks of this group
                chunk = slice(chunk_start, min(chunk_start + SAMPLE_BATCH, stop))
                pending.append(self._noisy_points(space, rows[chunk], eps[chunk], generator))
                if chunk.stop - first >= SAMPLE_BATCH or chunk.stop == rows.size:
                    out[first:chunk.stop] = search.nearest(np.concatenate(pending))
                    pending, first = [], chunk.stop
        return out
