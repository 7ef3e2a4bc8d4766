"""Word-level privatisation mechanisms, one class each, sharing one API.

Every mechanism:
- has a ``name`` (used by the CLI and the pages), a ``label`` and a one-line ``guarantee``;
- validates its own parameters in the constructor (``ValueError`` saying what to do);
- lists its parameters in ``PARAMETERS`` (name -> default, range, help) so pages and the CLI can
  build controls without mechanism-specific code;
- implements ``sample(space, word, epsilon, size, rng)`` returning ``size`` output word indices.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privlib.validation import as_generator, check_epsilon, check_positive_int

#: The largest batch of noisy points searched at once (bounded memory for huge sample counts).
SAMPLE_BATCH = 20_000


@dataclass(frozen=True)
class Parameter:
    """A mechanism parameter as a page or the CLI shows it."""

    default: Any
    low: Any = None
    high: Any = None
    choices: tuple = ()
    help: str = ""


def laplace_noise(dim: int, epsilon: float, size: int, rng=None) -> np.ndarray:
    """``size`` draws of multivariate Laplace noise in R^dim, shape (size, dim), float64.

    Density p(eta) ∝ exp(-epsilon ||eta||) (Feyisetan et al. 2020; spec dx-text §1): radius
    R ~ Gamma(shape=dim, scale=1/epsilon) (the radial part r^{dim-1} e^{-eps r}) times a direction
    uniform on the unit sphere (a normalised standard normal vector; an all-zero normal vector,
    probability 0 in exact arithmetic, is redrawn rather than divided by).
    """
    dim = check_positive_int(dim, "dim")
    epsilon = check_epsilon(epsilon)
    size = check_positive_int(size, "size", minimum=0)
    rng = as_generator(rng)
    direction = rng.standard_normal((size, dim))
    norms = np.linalg.norm(direction, axis=1)
    while (zero := norms < 1e-300).any():
        direction[zero] = rng.standard_normal((int(zero.sum()), dim))
        norms[zero] = np.linalg.norm(direction[zero], axis=1)
    radius = rng.gamma(shape=dim, scale=1.0 / epsilon, size=size)
    return direction * (radius / norms)[:, None]


class Mechanism:
    """Base class: parameter bookkeeping and argument checks shared by every mechanism."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    PARAMETERS: ClassVar[dict[str, Parameter]] = {}

    @property
    def parameters(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.PARAMETERS}

    @property
    def guarantee(self) -> str:
        raise NotImplementedError

    #: True when `output_probabilities` gives the exact output law (the rank experiment then
    #: shows exact proportions instead of sampling them).
    has_exact_probabilities: ClassVar[bool] = False

    def sample(self, space, word, epsilon: float, size: int = 1, rng=None) -> np.ndarray:
        raise NotImplementedError

    def output_probabilities(self, space, word, epsilon: float) -> np.ndarray:
        """P(output = x | input = word) for every row x, float64 summing to 1 — only for
        mechanisms with ``has_exact_probabilities``."""
        raise ValueError(f"{self.label} has no closed-form output probabilities; sample it instead.")

    def sample_many(self, space, rows, epsilon, rng=None) -> np.ndarray:
        """One output for each input row in ``rows`` (a batch of different words); ``epsilon``
        is one value or one per row.

        Mechanisms that can batch different words override this; the default asks `sample`.
        """
        rng = as_generator(rng)
        rows, eps = _rows_and_epsilons(rows, epsilon, space)
        return np.array([self.sample(space, int(r), e, 1, rng)[0] for r, e in zip(rows, eps)], dtype=np.int64)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"{type(self).__name__}({params})"

    @staticmethod
    def _word_index(space, word) -> int:
        return space.row(word)

    def describe(self) -> dict:
        """Name, parameters with defaults and ranges, and the guarantee (for the CLI and pages)."""
        return {
            "name": self.name,
            "label": self.label,
            "guarantee": self.guarantee,
            "parameters": {
                key: {"default": p.default, "low": p.low, "high": p.high, "choices": list(p.choices), "help": p.help}
                for key, p in self.PARAMETERS.items()
            },
        }


class MultivariateLaplace(Mechanism):
    """The multivariate Laplace mechanism of Feyisetan et al. (WSDM 2020), "CMP".

    w* = phi(w) + eta with eta ~ p(eta) ∝ exp(-eps ||eta||) (`laplace_noise`); output the exact
    Euclidean nearest word to w* (ties: lowest index). Spec dx-text §1, mechanisms §1.
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
        from privlib.search import AnnoySearch

        cache = space.__dict__.setdefault("_annoy_cache", {})
        if "default" not in cache:
            cache["default"] = AnnoySearch(space)
        return cache["default"]

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
        rows, eps = _rows_and_epsilons(rows, epsilon, space)
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


def _rows_and_epsilons(rows, epsilon, space=None) -> tuple[np.ndarray, np.ndarray]:
    """Rows as int64 (within ``space``'s vocabulary when given) and epsilon broadcast to one per
    row, each checked: the shared argument handling of every `sample_many`."""
    rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
    if space is not None and rows.size and (rows.min() < 0 or rows.max() >= len(space)):
        raise ValueError(f"Word rows must be between 0 and {len(space) - 1}.")
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), rows.shape)
    for value in np.unique(eps):
        check_epsilon(float(value))
    return rows, eps


#: Every mechanism by its name, for the CLI and the pages (filled by `register`; importing
#: privlib registers all of them).
MECHANISMS: dict[str, type[Mechanism]] = {}


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator: make a mechanism available by its ``name``."""
    if not cls.name or cls.name in MECHANISMS:
        raise ValueError(f"Mechanism name {cls.name!r} is empty or taken.")
    MECHANISMS[cls.name] = cls
    return cls


register(MultivariateLaplace)


def make_mechanism(name: str, **params) -> Mechanism:
    """A mechanism from its name and parameters (ValueError for unknown names or parameters)."""
    if name not in MECHANISMS:
        raise ValueError(f"Unknown mechanism {name!r}; choose one of: {', '.join(MECHANISMS)}.")
    cls = MECHANISMS[name]
    unknown = set(params) - set(cls.PARAMETERS)
    if unknown:
        raise ValueError(
            f"{name} has no parameter(s) {', '.join(sorted(unknown))}; its parameters are: "
            f"{', '.join(cls.PARAMETERS) or 'none'}."
        )
    return cls(**params)
