"""The one pattern every mechanism of every topic follows: `Mechanism`, `Parameter`, `Guarantee`.

Modelled on diffprivlib's mechanisms and scipy.stats' distributions:

- the constructor is keyword-only and validates every parameter once (ε is required, never
  defaulted; δ only where the guarantee has one), so an instance is always valid and the release
  never re-checks its own parameters;
- ``PARAMETERS`` (name → `Parameter`) lists the parameters besides ε and δ, with defaults, ranges
  and help, so pages and the CLI build controls and ``--param`` without mechanism-specific code;
- ``name`` (the CLI's and the URL's spelling), ``label`` (for people) and a structured
  ``guarantee`` (`Guarantee`: its kind, its numbers and the neighbouring relation in words);
- the public ``release(...)`` validates the data and calls the subclass's ``_release(...)``, as
  scipy's public ``pdf`` validates and calls a subclass's ``_pdf``.

A topic keeps its own call shape for its data (a word and an embedding space, a data matrix, a
label vector, a data set's sufficient statistics): its topic base class overrides ``release`` to
check that data, and each mechanism writes ``_release``. One registry per topic
(`privlib.core.registry`) lists the classes by ``name``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from privlib.core.validation import check_delta, check_epsilon, shown

#: The kinds of guarantee a mechanism can give, and how each is read.
GUARANTEE_KINDS = {
    "pure-dp": "ε-DP: for neighbouring inputs, every output is at most e^ε times as likely under one as the other",
    "approximate-dp": "(ε, δ)-DP: as ε-DP, except on events of total probability at most δ",
    "gdp": "μ-GDP: telling neighbours apart is no easier than telling N(0, 1) from N(μ, 1) (exactly Gaussian)",
    "metric-dp": "ε·d_X-privacy: outputs of two inputs at distance d are within a factor e^(ε d)",
    "label-dp": "ε-label DP: ε-DP with respect to changing one training label",
    "local-dp": "local ε_L-DP: each contributor's own release is ε_L-DP before anything is combined",
    "none": "no privacy guarantee",
}


@dataclass(frozen=True)
class Parameter:
    """A mechanism parameter as a page or the CLI shows it: the default, the allowed range
    (``low``/``high``, None = open) or the ``choices``, a help line and a ``label`` for a page's
    control (e.g. "c (rank decay)"; empty: the parameter's name)."""

    default: Any
    low: Any = None
    high: Any = None
    choices: tuple = ()
    help: str = ""
    label: str = ""

    def to_dict(self) -> dict:
        return {"default": self.default, "low": self.low, "high": self.high, "choices": list(self.choices),
                "help": self.help}


@dataclass(frozen=True)
class Guarantee:
    """What a mechanism promises, as data: ``kind`` (a key of `GUARANTEE_KINDS`), its numbers
    (``epsilon``, ``delta``, ``mu``; None where the kind has none), ``neighbours`` (the neighbouring
    relation in words: what one person's data is, i.e. the unit of protection) and ``text`` (the
    one-line statement shown to people; ``str(guarantee)``)."""

    kind: str
    text: str
    neighbours: str = ""
    epsilon: float | None = None
    delta: float | None = None
    mu: float | None = None

    def __post_init__(self):
        if self.kind not in GUARANTEE_KINDS:
            raise ValueError(f"Unknown guarantee kind {shown(self.kind)}; choose one of: {', '.join(GUARANTEE_KINDS)}.")

    def __str__(self) -> str:
        return self.text

    @property
    def is_private(self) -> bool:
        """False for "none" (a non-private fit, an individual-DP or asymptotic-only release)."""
        return self.kind != "none"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text, "neighbours": self.neighbours, "epsilon": self.epsilon,
                "delta": self.delta, "mu": self.mu}


class Mechanism:
    """Base class of every mechanism of every topic (see the module docstring).

    Subclasses set the class attributes, validate their own parameters in a keyword-only
    ``__init__`` and then call ``super().__init__(epsilon=..., delta=...)``, and write
    ``_guarantee()`` and ``_release(...)``. ``REQUIRES_EPSILON = False`` is for the references
    that release nothing private (a non-private fit): they take no ε at all.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    PARAMETERS: ClassVar[dict[str, Parameter]] = {}
    #: True when δ enters the guarantee ((ε, δ)-DP): the constructor then requires a δ.
    USES_DELTA: ClassVar[bool] = False
    #: True when ε = 0 is a valid (useless but private) setting, e.g. randomised response.
    EPSILON_ZERO_ALLOWED: ClassVar[bool] = False
    #: False only for references that are not private and take no ε (e.g. a non-private fit).
    REQUIRES_EPSILON: ClassVar[bool] = True

    def __init__(self, *, epsilon, delta=None):
        if self.REQUIRES_EPSILON:
            self._epsilon = check_epsilon(epsilon, allow_zero=self.EPSILON_ZERO_ALLOWED)
        elif epsilon is not None:
            raise ValueError(f"{self.label or type(self).__name__} is not private and takes no epsilon.")
        else:
            self._epsilon = None
        if self.USES_DELTA:
            self._delta = check_delta(delta)
        elif delta is not None:
            check_delta(delta, allow_zero=True)  # accepted (e.g. one δ for a whole sweep) but unused
            self._delta = None
        else:
            self._delta = None

    @property
    def epsilon(self) -> float | None:
        return self._epsilon

    @property
    def delta(self) -> float | None:
        """δ of the guarantee; None for mechanisms whose guarantee has no δ."""
        return self._delta

    @property
    def parameters(self) -> dict[str, Any]:
        """The values of ``PARAMETERS`` of this instance."""
        return {key: getattr(self, key) for key in self.PARAMETERS}

    @property
    def guarantee(self) -> Guarantee:
        return self._guarantee()

    def _guarantee(self) -> Guarantee:
        raise NotImplementedError(f"{type(self).__name__} must define _guarantee()")

    def release(self, *args, **kwargs):
        """Validate the data and release it: ``_release(...)``. A topic's base class overrides this
        to check its own kind of data, then calls ``self._release``."""
        return self._release(*args, **kwargs)

    def _release(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define _release()")

    def describe(self) -> dict:
        """Name, label, guarantee and parameters (defaults, ranges, help) for the CLI and pages."""
        return {
            "name": self.name,
            "label": self.label,
            "guarantee": str(self.guarantee),
            "guarantee_kind": self.guarantee.kind,
            "parameters": {key: p.to_dict() for key, p in self.PARAMETERS.items()},
        }

    def __repr__(self) -> str:
        values = {}
        if self._epsilon is not None:
            values["epsilon"] = self._epsilon
        if self._delta is not None:
            values["delta"] = self._delta
        values.update(self.parameters)
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in values.items())})"

