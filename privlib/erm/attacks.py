"""What an attacker learns from a privately trained model: membership in the replace-one game, and
reconstruction of one contributor's submission under input perturbation.

Sources: Yeom, Giacomelli, Fredrikson & Jha (2018), "Privacy risk in machine learning: analyzing the
connection to overfitting" (the loss-threshold attack); Dong, Roth & Su (2022), "Gaussian differential
privacy" and Kairouz, Oh & Viswanath (2015) (a guarantee as a trade-off curve, `privlib.core.risk`);
Hayes, Mahloujifar & Balle (2023), "Bounding training data reconstruction in DP-SGD" (reconstruction
robustness of a μ-GDP release); DeLong, DeLong & Clarke-Pearson (1988) (the AUC's variance).

**The game** (replace-one membership, the unit of protection of every mechanism in `privlib.erm`): a
data set of n − 1 other records and one pair of candidate records (z₀, z₁); a fair coin picks which
candidate enters, so the model is trained on exactly n records either way, and the attacker, who sees
the released model, says which candidate was in. Each game gives one member score (the candidate
that entered) and one non-member score (the other), pooled over the games into an ROC. Every test of
this game is a test between two neighbouring data sets, so the pooled ROC lies under the guarantee's
trade-off curve (averaging tests keeps them above the convex curve f). Membership in the add/remove
sense (is z in the data at all, n or n − 1 records) is a different pair and is **not** bounded by the
replace-one curve drawn here.

Records are the synthetic data of `privlib.erm.datasets` (x ~ N(0, I/d) rescaled into the unit ball,
y = clip(w*ᵀx + 0.1·N(0, 1), −1, 1); classification: the sign). The other records are drawn afresh
for each block of ``records_per_block(n)`` games (one block per game up to n = 50: the small n where
membership leaks) and the pair and the coin for every game; standard errors are cluster-robust over
the blocks.

**Attacks** (each a score; a larger score says "member"):

- ``loss_threshold`` (Yeom et al. 2018): −loss(w; z). Knows only the model and the candidate.
- ``known_neighbour``: the likelihood ratio of "z₀ in" against "z₁ in" for an attacker who knows the
  other n − 1 records and both candidates (what every DP bound assumes). Exact for the non-private
  fit (the model is a known function of the data: ‖w − ŵ_D′‖² − ‖w − ŵ_D‖²), for output perturbation
  before its projection onto the ball ((‖w − w_Λ(D′)‖ − ‖w − w_Λ(D)‖)/scale, CMS11's density) and for
  Obj-Gauss inside the ball (the linear noise is g = −(2(S + Δ/2·I)w + b), so the log-ratio is
  (‖g_D′‖² − ‖g_D‖²)/(2β²) + ln det(S_D + Δ/2·I) − ln det(S_D′ + Δ/2·I)). For input perturbation a
  Gaussian approximation: the residual r = 2(S + nσ_a²I)w + b equals −2E₀w − Σξ, E₀ = Σ(aηᵀ + ηaᵀ +
  ηηᵀ − σ_a²I), whose covariance given w is nσ_b²I + 4[σ_a²(‖w‖²S + wᵀSw·I + Sww ᵀ + wwᵀS) +
  nσ_a⁴(‖w‖²I + wwᵀ)] (Isserlis); our addition. Any score is a valid test: where a score is only
  approximate the attack is weaker, never the bound.

**Numbers** per method and attack: the pooled ROC, its AUC ± SE (DeLong, cluster-robust), the success
of naming the member of each pair (the member's score above the non-member's; guessing: 50 %) ± SE,
and TPR at 1 % FPR — only with at least `ROC_MIN_NONMEMBERS` (10⁴) non-member scores, below which
that tail is not measured. Bounds from the method's guarantee (`privlib.core.risk.tradeoff_curve`):
output perturbation pure ε; Obj-Gauss and input perturbation (safe calibration) their (ε, δ) curve
only — never a μ-GDP curve (the released argmin has a data-dependent Jacobian; spec §1); the
non-private fit none. Input perturbation (safe) gives no model below its smallest valid n.

**Each contributor's submission** (input perturbation): (a + N(0, σ_a²I), b + N(0, σ_b²I)) is exactly
μ_L-GDP with μ_L = √((2A/σ_a)² + (2B/σ_b)²) (`calibration.local_guarantee`), so any reconstruction â of
her a from it satisfies P(‖â − a‖ ≤ η) ≤ Φ(Φ⁻¹(κ) + μ_L), κ the prior mass of the best η-ball (Hayes
et al. 2023). We bound κ from above for the synthetic prior (Anderson's theorem for its Gaussian part
inside the ball, the largest spherical cap for its mass on the unit sphere), which keeps the bound valid.

The fits are batched: every game's quadratic over the ball is solved at once in the eigenbasis
(`minimise_in_ball_batch`, the same trust-region subproblem as `solver.minimise_in_ball`, which solves
what the batch cannot).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import betainc, chdtr, ndtr, ndtri

from privlib.core.mechanism import Guarantee
from privlib.core.noise import laplace_noise
from privlib.core.risk import TradeoffCurve, percent, tradeoff_curve
from privlib.core.risk import largest_epsilon_under as largest_epsilon_under_grid
from privlib.core.sweep import Progress, child_rng
from privlib.core.validation import (
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_range,
    check_seed,
    refuse_long_work,
    shown,
)
from privlib.erm import mechanisms as erm_mechanisms
from privlib.erm.calibration import local_guarantee
from privlib.erm.datasets import TASKS, synthetic_block
from privlib.erm.losses import make_loss
from privlib.erm.mechanisms import METHOD_LABELS, input_calibration, make_mechanism
from privlib.erm.solver import minimise_in_ball

#: The methods the membership game runs, in the order shown (the asymptotic input match has no guarantee
#: and no finite-n meaning: it is left out).
ATTACK_METHODS = ("non_private", "input_safe", "obj_gauss", "output")
#: The attacks, by name, and how people read them.
ATTACKS = ("loss_threshold", "known_neighbour")
ATTACK_LABELS = {"loss_threshold": "loss threshold (Yeom et al. 2018)",
                 "known_neighbour": "known-neighbour likelihood ratio"}
#: Games per run: 10⁴ non-member scores, the fewest at which TPR at 1 % FPR is measured.
DEFAULT_GAMES = 10_000
#: The fewest pooled non-member scores at which TPR at 1 % FPR is reported (100 of them above the threshold).
ROC_MIN_NONMEMBERS = 10_000
#: The FPR of the reported TPR.
REPORTED_FPR = 0.01
#: The ε grid of the attack against ε (the page and ``erm-attack --epsilons`` default).
ATTACK_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
#: Reconstruction radii η (in the units of ‖x‖ ≤ 1) of the submission bound.
DEFAULT_ETAS = (0.05, 0.1, 0.2, 0.5)
#: A bound at or above this is vacuous: it allows the attacker essentially always to succeed.
VACUOUS = 0.99
#: Points of a drawn ROC (the ROC of 10⁴ games has up to 2·10⁴ corners).
ROC_POINTS = 400
#: Limits of one run: records n, dimension d, games.
MAX_N, MAX_D, MAX_GAMES = 1_000_000, 50, 200_000
#: Games per chunk are capped so that a chunk's (games, d, d) arrays stay near this many floats.
CHUNK_FLOATS = 1_500_000
#: Standard normals drawn per chunk of other records (memory of one draw).
DRAW_FLOATS = 4_000_000
#: The measured gap below the bound (in success, beyond 2 SE) from which the page says the attack is weak.
WEAK_GAP = 0.05
#: Seed tags: one purpose, one tag (`child_rng`).
DATA_TAG, NOISE_TAG = "erm-attack-data", "erm-attack-noise"


# ---------------------------------------------------------------------------------------------
# the batched solver


def minimise_in_ball_batch(H, g, R: float) -> np.ndarray:
    """argmin_{‖w‖ ≤ R} wᵀH_kw + g_kᵀw for every k of a stack of PSD H (k, d, d) and g (k, d), shape (k, d).

    The trust-region subproblem of `privlib.erm.solver.minimise_in_ball`, batched: first the unconstrained
    minimiser −H⁻¹g/2 of every problem by one batched LU solve (after a batched Cholesky factorisation has
    shown every H positive definite), kept where it lies in the ball; the others lie on the sphere, at the
    root ν of 1/‖w(ν)‖ = 1/R with w(ν) = −Q(Λ + ν)⁻¹γ/2 in the eigenbasis H = QΛQᵀ, γ = Qᵀg, found by
    Newton's method from the left end of the scalar solver's bracket, ν₀ = max(0, ‖g‖/(2R) − λ_max)
    (1/‖w(ν)‖ is concave and increasing in ν, so the iterates rise monotonically to the root; Moré &
    Sorensen 1983). Problems the batch does not settle (H not positive definite, no convergence) go to
    `minimise_in_ball` one by one. Our addition, for speed (many small fits)."""
    H = np.asarray(H, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    k, d = g.shape
    w = np.empty((k, d))
    try:
        np.linalg.cholesky(H)
        w_free = -0.5 * np.linalg.solve(H, g[..., None])[..., 0]
        inside = np.einsum("ki,ki->k", w_free, w_free) <= R * R
        w[inside] = w_free[inside]
    except np.linalg.LinAlgError:  # some H is singular: every problem goes through the eigenbasis
        inside = np.zeros(k, dtype=bool)
    rest = np.flatnonzero(~inside)
    if rest.size:
        w[rest] = boundary_batch(H[rest], g[rest], R)
    return w


def boundary_batch(H: np.ndarray, g: np.ndarray, R: float) -> np.ndarray:
    """`minimise_in_ball_batch` for problems whose unconstrained minimiser is outside the ball (or H is not
    positive definite): eigenbasis, then Newton on the secular equation (see there)."""
    d = g.shape[1]
    lam, Q = np.linalg.eigh(H)
    c = 0.5 * np.einsum("kji,kj->ki", Q, g)  # γ/2
    scale = np.maximum(np.abs(lam).max(axis=1), 1e-300)
    ok = lam[:, 0] > 10.0 * d * np.finfo(float).eps * scale
    safe_lam = np.where(ok[:, None], lam, 1.0)
    coef = -c / safe_lam
    inside = ok & (np.einsum("ki,ki->k", coef, coef) <= R * R)
    boundary = ok & ~inside
    nu = np.maximum(0.0, np.sqrt(np.einsum("ki,ki->k", c, c)) / R - lam[:, -1])
    converged = ~boundary
    for _ in range(60):
        t = c / (safe_lam + nu[:, None])
        norm = np.sqrt(np.einsum("ki,ki->k", t, t))
        psi = 1.0 / norm - 1.0 / R
        slope = np.einsum("ki,ki->k", t * t, 1.0 / (safe_lam + nu[:, None])) / norm**3
        converged |= np.abs(psi) * R <= 1e-13
        if np.all(converged):
            break
        nu = np.where(converged, nu, np.maximum(nu - psi / np.maximum(slope, 1e-300), 0.0))
    t = c / (safe_lam + nu[:, None])
    w_boundary = -np.einsum("kij,kj->ki", Q, t)
    norms = np.linalg.norm(w_boundary, axis=1)
    w_boundary *= (R / np.where(norms > 0, norms, 1.0))[:, None]
    w = np.where(inside[:, None], np.einsum("kij,kj->ki", Q, coef), w_boundary)
    unsettled = ~ok | ~converged | ~np.all(np.isfinite(w), axis=1)
    for index in np.flatnonzero(unsettled):
        w[index] = minimise_in_ball(0.5 * (H[index] + H[index].T), g[index], R)
    return w


# ---------------------------------------------------------------------------------------------
# the games


def records_per_block(n: int) -> int:
    """How many games share one draw of the other n − 1 records: 1 up to n = 50, then ⌈n/50⌉, so that
    drawing the others costs about as much as fitting the models (the standard errors count each draw
    as one cluster)."""
    return max(1, math.ceil(n / 50))


def games_per_chunk(n: int, d: int) -> int:
    """Games solved together: a multiple of the block size with (games, d, d) arrays near `CHUNK_FLOATS`."""
    block = records_per_block(n)
    blocks = max(1, CHUNK_FLOATS // (d * d * block))
    return blocks * block


@dataclass(frozen=True, eq=False)
class GameData:
    """One chunk of games: the sums of the trained data set D (others + member) and of its neighbour D′
    (others + non-member), shapes (k, d, d) and (k, d); the candidates' a, b, c (k, d), (k, d), (k,);
    ``block`` the index of each game's draw of the other records (for cluster-robust errors)."""

    S: np.ndarray
    b: np.ndarray
    S_neighbour: np.ndarray
    b_neighbour: np.ndarray
    member: tuple
    nonmember: tuple
    block: np.ndarray


def record_terms(loss, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b, c of records [x | y] (rows of Z) for the squared loss or the logistic surrogate."""
    d = Z.shape[-1] - 1
    X, y = Z[..., :d], Z[..., d]
    if loss.name == "squared":
        return X, -2.0 * y[..., None] * X, y * y
    return X / (2.0 * math.sqrt(2.0)), -0.5 * y[..., None] * X, np.full(y.shape, math.log(2.0))


def game_chunk(n: int, d: int, task: str, loss, first_game: int, games: int, seed: int) -> GameData:
    """The games ``first_game`` … ``first_game + games − 1`` (blocks of `records_per_block`), drawn from
    ``child_rng(seed, DATA_TAG, n, d, task, chunk)``: the same games whatever methods or ε run."""
    block = records_per_block(n)
    rng = child_rng(seed, DATA_TAG, n, d, task, first_game)
    blocks = math.ceil(games / block)
    others = n - 1
    S_blocks = np.zeros((blocks, d, d))
    b_blocks = np.zeros((blocks, d))
    if others:
        per_draw = max(1, DRAW_FLOATS // (others * (d + 1)))
        for start in range(0, blocks, per_draw):
            stop = min(blocks, start + per_draw)
            Z = synthetic_block(rng.standard_normal(((stop - start) * others, d + 1)), task)
            Z = Z.reshape(stop - start, others, d + 1)
            moments = np.transpose(Z, (0, 2, 1)) @ Z  # [X | y]ᵀ[X | y] of each draw (datasets.sums_from_moments)
            factor, linear = (1.0, -2.0) if loss.name == "squared" else (1.0 / 8.0, -0.5)
            S_blocks[start:stop] = factor * moments[:, :d, :d]
            b_blocks[start:stop] = linear * moments[:, :d, d]
    pair = synthetic_block(rng.standard_normal((2 * games, d + 1)), task).reshape(games, 2, d + 1)
    coin = rng.integers(0, 2, size=games)
    rows = np.arange(games)
    member = record_terms(loss, pair[rows, coin])
    nonmember = record_terms(loss, pair[rows, 1 - coin])
    index = rows // block
    S_other, b_other = S_blocks[index], b_blocks[index]
    S = S_other + np.einsum("ki,kj->kij", member[0], member[0])
    S_neighbour = S_other + np.einsum("ki,kj->kij", nonmember[0], nonmember[0])
    return GameData(S=S, b=b_other + member[1], S_neighbour=S_neighbour, b_neighbour=b_other + nonmember[1],
                    member=member, nonmember=nonmember, block=(first_game + rows) // block)


def identity_stack(k: int, d: int, value) -> np.ndarray:
    """value·I for each of k problems (value a number or a (k,) array), shape (k, d, d)."""
    return np.asarray(value, dtype=np.float64).reshape(-1, 1, 1) * np.eye(d)[None] * np.ones((k, 1, 1))


def wishart_batch(df: int, d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """k draws of Wishart_d(df, I), df ≥ d, by the Bartlett decomposition (as `sampler.wishart_identity`)."""
    T = np.zeros((k, d, d))
    low = np.tril_indices(d, -1)
    T[:, low[0], low[1]] = rng.standard_normal((k, low[0].size))
    T[:, np.arange(d), np.arange(d)] = np.sqrt(rng.chisquare(df - np.arange(d), size=(k, d)))
    return T @ np.transpose(T, (0, 2, 1))


def noisy_sums_batch(S, b, n: int, sigma_a: float, sigma_b: float, rng: np.random.Generator):
    """(Σ ã ãᵀ, Σ b̃) of every game with the exact law of the per-record protocol, batched
    (`sampler.exact_noisy_sums`: (M + σ_aG)ᵀ(M + σ_aG) + σ_a²W, MᵀM = S, W ~ Wishart_d(n − d, I);
    b + σ_b√n·N(0, I))."""
    k, d = b.shape
    rows = min(n, d)
    values, vectors = np.linalg.eigh(S)
    values = np.clip(values[:, d - rows:], 0.0, None)
    M = np.sqrt(values)[:, :, None] * np.transpose(vectors[:, :, d - rows:], (0, 2, 1))
    noisy = M + sigma_a * rng.standard_normal((k, rows, d))
    H = np.transpose(noisy, (0, 2, 1)) @ noisy
    if n > d:
        H += sigma_a**2 * wishart_batch(n - d, d, k, rng)
    H = 0.5 * (H + np.transpose(H, (0, 2, 1)))
    return H, b + sigma_b * math.sqrt(n) * rng.standard_normal((k, d))


def gaussian_log_density(r: np.ndarray, C: np.ndarray) -> np.ndarray:
    """ln N(r; 0, C) up to the constant −(d/2) ln 2π, for stacks r (k, d), C (k, d, d)."""
    L = np.linalg.cholesky(C)
    z = np.linalg.solve(L, r[..., None])[..., 0]
    return -0.5 * np.einsum("ki,ki->k", z, z) - np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)


def input_residual(S, b, w, n, sigma_a, sigma_b):
    """The residual r = 2(S + nσ_a²I)w + b and its covariance given w (module docstring), stacked."""
    k, d = w.shape
    ww = np.einsum("ki,kj->kij", w, w)
    w2 = np.einsum("ki,ki->k", w, w)
    Sw = np.einsum("kij,kj->ki", S, w)
    wSw = np.einsum("ki,ki->k", w, Sw)
    cross = np.einsum("ki,kj->kij", Sw, w)
    s2 = sigma_a**2
    C = (identity_stack(k, d, n * sigma_b**2 + 4.0 * (s2 * wSw + n * s2 * s2 * w2))
         + 4.0 * (s2 * (w2[:, None, None] * S + cross + np.transpose(cross, (0, 2, 1))) + n * s2 * s2 * ww))
    r = 2.0 * (Sw + n * s2 * w) + b
    return r, C


def logdet(A) -> np.ndarray:
    return np.linalg.slogdet(A)[1]


def release_batch(mechanism, S, b, n: int, loss, rng: np.random.Generator) -> np.ndarray:
    """The models ``mechanism.release`` would return for a stack of data sets of n records each (sums S (k, d, d),
    b (k, d); broadcast views are fine), drawn in one batch with the same law: the same calibrations
    (looked up in `privlib.erm.mechanisms` when called), `minimise_in_ball_batch` for every fit and
    `noisy_sums_batch` for input perturbation (its ``inflate`` included). ValueError where the mechanism gives
    no model (input perturbation below its smallest valid n) or is not one of `privlib.erm.mechanisms`."""
    k, d = b.shape
    R = loss.R
    name = mechanism.name
    if name == "non_private":
        return minimise_in_ball_batch(S / n, b / n, R)
    if name == "output":
        cal = erm_mechanisms.cached_output_calibration(mechanism.epsilon, n, d, loss.zeta)
        w = minimise_in_ball_batch(S / n + identity_stack(k, d, 0.5 * cal.Lambda), b / n, R)
        w = w + laplace_noise(d, 1.0 / cal.scale, k, rng)
        norms = np.linalg.norm(w, axis=1)
        return w * np.where(norms > R, R / np.where(norms > 0, norms, 1.0), 1.0)[:, None]
    if name == "obj_gauss":
        cal = erm_mechanisms.cached_obj_gauss_calibration(mechanism.epsilon, mechanism.delta, loss.zeta, loss.lam)
        noise = cal.beta * rng.standard_normal((k, d))
        return minimise_in_ball_batch(S / n + identity_stack(k, d, cal.Delta / (2.0 * n)), (b + noise) / n, R)
    if isinstance(mechanism, erm_mechanisms.InputPerturbation):
        cal = mechanism.calibration(n, d, loss)
        if not cal.valid:
            raise ValueError(cal.reason)
        H, g = noisy_sums_batch(S, b, n, cal.sigma_a, cal.sigma_b, rng)
        return minimise_in_ball_batch(H / n, g / n, R)
    raise ValueError(f"No batched release for {shown(name)}: use its release().")


def run_method(method: str, epsilon, delta, data: GameData, n: int, loss, rng, fits: dict):
    """One method on a chunk of games: the released models w (k, d) (`release_batch`) and the known-neighbour
    score of each game ("member in" against "non-member in"). ``fits`` holds the non-private fits of D and D′."""
    S, b, S2, b2 = data.S, data.b, data.S_neighbour, data.b_neighbour
    k, d = b.shape
    if method == "non_private":
        w = fits["D"]
        return w, np.sum((w - fits["D'"]) ** 2, axis=1) - np.sum((w - fits["D"]) ** 2, axis=1)
    if method not in ATTACK_METHODS:
        raise ValueError(f"Unknown attack method {shown(method)}: choose from {', '.join(ATTACK_METHODS)}.")
    w = release_batch(make_mechanism(method, epsilon=epsilon, delta=delta), S, b, n, loss, rng)
    if method == "output":
        cal = erm_mechanisms.cached_output_calibration(epsilon, n, d, loss.zeta)
        ridge = identity_stack(k, d, 0.5 * cal.Lambda)
        centre = minimise_in_ball_batch(S / n + ridge, b / n, loss.R)
        centre2 = minimise_in_ball_batch(S2 / n + ridge, b2 / n, loss.R)
        return w, (np.linalg.norm(w - centre2, axis=1) - np.linalg.norm(w - centre, axis=1)) / cal.scale
    if method == "obj_gauss":
        cal = erm_mechanisms.cached_obj_gauss_calibration(epsilon, delta, loss.zeta, loss.lam)
        ridge = identity_stack(k, d, 0.5 * cal.Delta)
        g1 = 2.0 * np.einsum("kij,kj->ki", S + ridge, w) + b
        g2 = 2.0 * np.einsum("kij,kj->ki", S2 + ridge, w) + b2
        score = (np.sum(g2 * g2, axis=1) - np.sum(g1 * g1, axis=1)) / (2.0 * cal.beta**2)
        return w, score + logdet(S + ridge) - logdet(S2 + ridge)
    cal = input_calibration("safe", epsilon, delta, n, d, loss.R, loss.A, loss.B, 1.0)
    ridge = identity_stack(k, d, n * cal.sigma_a**2)
    r1, C1 = input_residual(S, b, w, n, cal.sigma_a, cal.sigma_b)
    r2, C2 = input_residual(S2, b2, w, n, cal.sigma_a, cal.sigma_b)
    score = gaussian_log_density(r1, C1) - gaussian_log_density(r2, C2)
    return w, score + logdet(S + ridge) - logdet(S2 + ridge)


def loss_scores(w: np.ndarray, terms) -> np.ndarray:
    """−l(w; z) = −((wᵀa)² + bᵀw + c) of each game's candidate: the loss-threshold score."""
    a, b, c = terms
    return -((np.einsum("ki,ki->k", a, w)) ** 2 + np.einsum("ki,ki->k", b, w) + c)


# ---------------------------------------------------------------------------------------------
# ROC, AUC and their errors


@dataclass(frozen=True, eq=False)
class AttackMeasurement:
    """One attack on one method at one ε: the pooled ROC (``fpr``, ``tpr``: at most `ROC_POINTS`
    corners), ``auc`` ± ``auc_se``, ``success`` (naming the member of a pair) ± ``success_se``, and
    ``tpr_at_fpr`` at `REPORTED_FPR` ± its SE (None with fewer than `ROC_MIN_NONMEMBERS` non-member
    scores). ``games`` pairs, one member and one non-member score each."""

    attack: str
    games: int
    fpr: np.ndarray
    tpr: np.ndarray
    auc: float
    auc_se: float
    success: float
    success_se: float
    tpr_at_fpr: float | None
    tpr_at_fpr_se: float | None

    @property
    def label(self) -> str:
        return ATTACK_LABELS[self.attack]

    def to_dict(self, roc: bool = True) -> dict:
        out = {"attack": self.attack, "label": self.label, "games": self.games, "auc": self.auc,
               "auc_se": self.auc_se, "success": self.success, "success_se": self.success_se,
               "fpr": REPORTED_FPR, "tpr_at_fpr": self.tpr_at_fpr, "tpr_at_fpr_se": self.tpr_at_fpr_se}
        if roc:
            out["roc"] = {"fpr": self.fpr.tolist(), "tpr": self.tpr.tolist()}
        return out


def clustered_se(values: np.ndarray, block: np.ndarray) -> float:
    """√(Σ_b (Σ_{i∈b} v_i)²)/k for centred per-game terms v (k games), clusters = the games sharing a draw
    of the other records: the sandwich standard error of a mean of dependent blocks."""
    totals = np.bincount(block - block.min(), weights=values)
    return float(math.sqrt(float(totals @ totals)) / values.size)


def midranks(values: np.ndarray) -> np.ndarray:
    """The ranks 1…k of ``values``, ties sharing their mean rank (as scipy.stats.rankdata, without importing
    scipy.stats)."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse]


def measure(attack: str, member: np.ndarray, nonmember: np.ndarray, block: np.ndarray) -> AttackMeasurement:
    """The numbers of one attack from its member and non-member scores (one of each per game)."""
    k = member.size
    both = np.concatenate([member, nonmember])
    ranks = midranks(both)
    # DeLong's placements with midranks: V10_i = share of non-members below member i (ties ½), V01_j = share
    # of members above non-member j; the AUC is their mean, and each game contributes V10_i + V01_i
    v10 = (ranks[:k] - midranks(member)) / k
    v01 = 1.0 - (ranks[k:] - midranks(nonmember)) / k
    auc = float(v10.mean())
    auc_se = clustered_se(v10 + v01 - 2.0 * auc, block)
    wins = np.where(member > nonmember, 1.0, np.where(member == nonmember, 0.5, 0.0))
    success = float(wins.mean())
    success_se = clustered_se(wins - success, block)
    # the ROC: thresholds at every score, "member" when the score is at least the threshold
    order = np.argsort(-both, kind="stable")
    is_member = np.concatenate([np.ones(k), np.zeros(k)])[order]
    sorted_scores = both[order]
    last = np.r_[sorted_scores[1:] != sorted_scores[:-1], True]  # the last of each run of equal scores
    tpr = np.r_[0.0, np.cumsum(is_member)[last] / k]
    fpr = np.r_[0.0, np.cumsum(1.0 - is_member)[last] / k]
    keep = np.unique(np.r_[np.searchsorted(fpr, np.geomspace(1e-4, 1.0, ROC_POINTS // 2)).clip(0, fpr.size - 1),
                           np.linspace(0, fpr.size - 1, ROC_POINTS // 2).astype(int)])
    tpr_at = tpr_se = None
    if k >= ROC_MIN_NONMEMBERS:
        # the threshold with at most 1 % of the non-member scores strictly above it
        threshold = np.sort(nonmember)[math.ceil((1.0 - REPORTED_FPR) * k) - 1]
        hits = (member > threshold).astype(float)
        tpr_at = float(hits.mean())
        tpr_se = clustered_se(hits - tpr_at, block)
    return AttackMeasurement(attack, k, fpr[keep], tpr[keep], auc, auc_se, success, success_se, tpr_at, tpr_se)


def curve_auc(curve: TradeoffCurve) -> float:
    """The largest AUC the curve allows: ∫₀¹ (1 − f(α)) dα (trapezoids over its points and kinks: exact for
    the piecewise-linear (ε, δ) curve)."""
    fpr, fnr = curve.points(2001)
    return float(np.trapezoid(1.0 - fnr, fpr))


# ---------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True, eq=False)
class MethodMembership:
    """One method at one ε: ``valid`` (False: no model, ``reason``), its ``guarantee``, the ``bound``
    curve (None: no guarantee), the bounds on success, AUC and TPR at 1 % FPR, the measured attacks
    and the mean excess empirical risk of its models (its utility in the same games)."""

    method: str
    epsilon: float | None
    valid: bool
    reason: str
    guarantee: Guarantee
    bound: TradeoffCurve | None
    bound_success: float | None
    bound_auc: float | None
    bound_tpr_at_fpr: float | None
    attacks: dict = field(default_factory=dict)
    excess_risk: float | None = None

    @property
    def label(self) -> str:
        return METHOD_LABELS[self.method]

    def strongest(self) -> AttackMeasurement | None:
        """The attack with the largest success (None when the method gave no model)."""
        return max(self.attacks.values(), key=lambda a: a.success) if self.attacks else None

    @property
    def weak_attack(self) -> bool:
        """The strongest measured attack stays more than `WEAK_GAP` (beyond 2 SE) under the bound: the gap
        shows the attack's weakness or the bound's slack, not a measured margin of privacy."""
        best = self.strongest()
        return bool(best is not None and self.bound_success is not None
                    and best.success + 2 * best.success_se < self.bound_success - WEAK_GAP)

    def to_dict(self, roc: bool = True) -> dict:
        return {"method": self.method, "label": self.label, "epsilon": self.epsilon, "valid": self.valid,
                "reason": self.reason, "guarantee": self.guarantee.to_dict(),
                "bound": None if self.bound is None else {"kind": self.bound.kind, "label": self.bound.label,
                                                          "success": self.bound_success, "auc": self.bound_auc,
                                                          "tpr_at_fpr": self.bound_tpr_at_fpr},
                "attacks": {name: m.to_dict(roc) for name, m in self.attacks.items()},
                "excess_risk": self.excess_risk, "weak_attack": self.weak_attack}


@dataclass(frozen=True, eq=False)
class MembershipStudy:
    """The membership game for ``methods`` over ``epsilons`` (``results[method][i]`` at ``epsilons[i]``;
    the non-private fit, without ε, has one result repeated), with the settings that made it."""

    epsilons: tuple
    delta: float
    n: int
    d: int
    task: str
    R: float
    games: int
    seed: int
    methods: tuple
    results: dict

    def at(self, method: str, epsilon: float) -> MethodMembership:
        """The result of ``method`` at ``epsilon`` (one of ``epsilons``)."""
        return self.results[method][self.epsilons.index(float(epsilon))]

    def series(self, method: str) -> tuple[np.ndarray, np.ndarray]:
        """(success, SE) of the strongest attack against ε (NaN where no model)."""
        values, errors = [], []
        for result in self.results[method]:
            best = result.strongest()
            values.append(math.nan if best is None else best.success)
            errors.append(math.nan if best is None else best.success_se)
        return np.array(values), np.array(errors)

    def to_dict(self, roc: bool = True) -> dict:
        return {"epsilons": list(self.epsilons), "delta": self.delta, "n": self.n, "d": self.d, "task": self.task,
                "R": self.R, "games": self.games, "seed": self.seed, "methods": list(self.methods),
                "neighbours": "replace-one (a coin picks which record of a pair enters; n records either way)",
                "results": {m: [r.to_dict(roc) for r in rs] for m, rs in self.results.items()}}


def bound_numbers(curve: TradeoffCurve | None):
    if curve is None:
        return None, None, None
    return curve.guessing_chance(0.5), curve_auc(curve), float(curve.tpr(REPORTED_FPR))


def check_methods(methods) -> tuple[str, ...]:
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    out = []
    for method in methods or ():
        if method not in ATTACK_METHODS:
            raise ValueError(f"The membership game runs {', '.join(ATTACK_METHODS)}; got {shown(method)}.")
        if method not in out:
            out.append(method)
    if not out:
        raise ValueError(f"Give at least one method: {', '.join(ATTACK_METHODS)}.")
    return tuple(m for m in ATTACK_METHODS if m in out)


def check_game_settings(epsilons, delta, n, d, games, task, R, seed, methods):
    """Every setting of a study, checked once (ValueError saying what to change)."""
    eps = [check_epsilon(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=object)).tolist()]
    if not eps:
        raise ValueError("Give at least one epsilon.")
    for e in eps:
        if not 1e-6 <= e <= 1e6:
            raise ValueError(f"The membership game takes epsilon from 1e-6 to 1e6, got {e:g}.")
    delta = check_delta(delta)
    n = check_positive_int(n, "n (records in the training data)", minimum=2, maximum=MAX_N)
    d = check_positive_int(d, "d (the number of features)", maximum=MAX_D)
    games = check_positive_int(games, "games (pairs of candidate records)", minimum=10, maximum=MAX_GAMES)
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {shown(task)}.")
    R = check_range(R, "R (the radius of the parameter ball)", low=1e-3, high=1e3)
    return tuple(sorted(set(eps))), delta, n, d, games, task, R, check_seed(seed), check_methods(methods)


#: Seconds per unit of work, timed on the 2-core development machine under load (bench/bench_erm_attacks.py):
#: per drawn record-feature, per batched fit-feature³ and per game (scores, ROC).
SECONDS_PER_RECORD_FEATURE, SECONDS_PER_FIT, SECONDS_PER_GAME = 2.5e-8, 2.5e-8, 4e-6


def estimate_seconds(n: int, d: int, games: int, methods: Sequence[str], epsilons: int = 1) -> float:
    """How long `membership_study` takes: drawing the others of every block, then per method and ε
    one batched fit per game (two for the known-neighbour fits of output perturbation, plus the
    non-private fits of D and D′ once) and the scores."""
    blocks = math.ceil(games / records_per_block(n))
    drawing = blocks * max(n - 1, 1) * (d + 1) * SECONDS_PER_RECORD_FEATURE
    runs = 2 + sum(0 if m == "non_private" else (2 if m == "output" else 1) * epsilons for m in methods)
    fitting = runs * games * (d**3 + 40 * d * d) * SECONDS_PER_FIT
    return drawing + fitting + runs * games * SECONDS_PER_GAME


def membership_study(epsilons, delta: float = 1e-6, *, n: int, d: int = 10, methods=ATTACK_METHODS,
                     games: int = DEFAULT_GAMES, task: str = "regression", R: float = 1.0, seed: int = 0,
                     progress: Progress | None = None, allow_long: bool = False) -> MembershipStudy:
    """The replace-one membership game (module docstring) for each method at each ε of ``epsilons``: the
    loss-threshold and known-neighbour attacks over ``games`` pairs of n-record data sets of d features,
    against the bounds of each guarantee. One ``seed``: the same games for every method and ε. Refused
    (ValueError with the estimate) above the long-work limit unless ``allow_long``; ``progress(fraction,
    message)`` after each chunk of games."""
    epsilons, delta, n, d, games, task, R, seed, methods = check_game_settings(
        epsilons, delta, n, d, games, task, R, seed, methods)
    seconds = estimate_seconds(n, d, games, methods, len(epsilons))
    refuse_long_work(seconds, allow_long, "The membership game", "use fewer games, methods or epsilons")
    loss = make_loss("squared" if task == "regression" else "logistic", R)
    mechanisms = {(m, e): make_mechanism(m, epsilon=e, delta=delta) for m in methods if m != "non_private"
                  for e in epsilons}
    valid = {}
    for (m, e), mechanism in mechanisms.items():
        if m == "input_safe":
            cal = mechanism.calibration(n, d, loss)
            valid[(m, e)] = (cal.valid, cal.reason)
        else:
            valid[(m, e)] = (True, "")
    cells = [("non_private", None)] * ("non_private" in methods) + [
        key for key in mechanisms if valid[key][0]]
    scores = {key: {"loss_threshold": ([], []), "known_neighbour": ([], [])} for key in cells}
    excess = {key: [] for key in cells}
    blocks = []
    chunk = games_per_chunk(n, d)
    started = time.perf_counter()
    for first in range(0, games, chunk):
        size = min(chunk, games - first)
        data = game_chunk(n, d, task, loss, first, size, seed)
        fits = {"D": minimise_in_ball_batch(data.S / n, data.b / n, R),
                "D'": minimise_in_ball_batch(data.S_neighbour / n, data.b_neighbour / n, R)}
        best_risk = np.einsum("ki,kij,kj->k", fits["D"], data.S, fits["D"]) + np.einsum("ki,ki->k", data.b,
                                                                                      fits["D"])
        blocks.append(data.block)
        for method, epsilon in cells:
            rng = child_rng(seed, NOISE_TAG, method, -1.0 if epsilon is None else epsilon, first)
            w, known = run_method(method, epsilon, delta, data, n, loss, rng, fits)
            cell = scores[(method, epsilon)]
            cell["loss_threshold"][0].append(loss_scores(w, data.member))
            cell["loss_threshold"][1].append(loss_scores(w, data.nonmember))
            cell["known_neighbour"][0].append(known)
            cell["known_neighbour"][1].append(-known)
            risk = np.einsum("ki,kij,kj->k", w, data.S, w) + np.einsum("ki,ki->k", data.b, w)
            excess[(method, epsilon)].append((risk - best_risk) / n)
        if progress is not None:
            done = min(games, first + size)
            progress(done / games, f"{done:,} of {games:,} games ({time.perf_counter() - started:.0f} s)")
    block = np.concatenate(blocks)
    results = {}
    for method in methods:
        row = []
        for epsilon in ([None] * len(epsilons) if method == "non_private" else epsilons):
            if method == "non_private":
                mechanism = make_mechanism("non_private")
                ok, reason = True, ""
            else:
                mechanism = mechanisms[(method, epsilon)]
                ok, reason = valid[(method, epsilon)]
            curve = tradeoff_curve(mechanism.guarantee)
            success, auc, tpr = bound_numbers(curve)
            attacks, risk = {}, None
            if ok:
                cell = scores[(method, epsilon)]
                attacks = {name: measure(name, np.concatenate(cell[name][0]), np.concatenate(cell[name][1]), block)
                           for name in ATTACKS}
                risk = float(np.concatenate(excess[(method, epsilon)]).mean())
            row.append(MethodMembership(method, epsilon, ok, reason, mechanism.guarantee, curve, success, auc, tpr,
                                        attacks, risk))
        results[method] = row
    return MembershipStudy(epsilons, delta, n, d, task, R, games, seed, methods, results)


def membership_attack(epsilon: float, delta: float = 1e-6, **settings) -> MembershipStudy:
    """`membership_study` at one ε (the page's sentence and ROC, the CLI's default)."""
    return membership_study([epsilon], delta, **settings)


# ---------------------------------------------------------------------------------------------
# sentences and targets


def success_text(measurement: AttackMeasurement) -> str:
    return f"{percent(measurement.success)} (± {100 * 2 * measurement.success_se:.1f} points)"


def plain_sentence(result: MethodMembership, n: int) -> str:
    """One sentence for people about one method at one ε (the page and ``erm-attack`` print the same):
    "At ε = 1, somebody who sees the model trained with <method> on n = 1,000 records, and knows both
    candidates and every other record, names the one that was trained on X % (± 2 SE) of the time; guessing
    gets 50 %; the guarantee allows at most Z %." ("no guarantee" for the non-private fit)."""
    where = "With no privacy" if result.epsilon is None else f"At ε = {result.epsilon:g}"
    if not result.valid:
        return f"{where}, {result.label} releases no model on n = {n:,} records: {result.reason}"
    best = result.strongest()
    sentence = (f"{where}, somebody who sees the model trained with {result.label} on n = {n:,} records and knows "
                f"both candidate records (and every other record) names the one that was trained on "
                f"{success_text(best)} of the time ({best.label}); guessing gets 50 %; ")
    if result.bound is None:
        sentence += "there is no guarantee: an attacker may be right every time."
    else:
        sentence += f"the guarantee ({result.bound.label}) allows at most {percent(result.bound_success)}."
    if result.weak_attack:
        sentence += (" The gap to the bound reflects a weak attack on typical records, not measured extra privacy: "
                     "the bound covers the worst pair of records and every attacker.")
    return sentence


def plain_sentences(study: MembershipStudy, epsilon: float | None = None) -> dict[str, str]:
    """`plain_sentence` of every method at ``epsilon`` (default: the study's first ε)."""
    epsilon = study.epsilons[0] if epsilon is None else float(epsilon)
    return {m: plain_sentence(study.at(m, epsilon), study.n) for m in study.methods}


@dataclass(frozen=True)
class EpsilonChoice:
    """The largest ε of a grid that keeps the attack's success under ``target``: ``epsilon`` (None when
    none does), ``basis`` ("bound": the guarantee's limit on any attacker; "measured": the measured
    attack's success + 2 SE), and the ``sentence``."""

    method: str
    target: float
    basis: str
    epsilon: float | None
    sentence: str

    def to_dict(self) -> dict:
        return {"method": self.method, "target": self.target, "basis": self.basis, "epsilon": self.epsilon,
                "sentence": self.sentence}


def bound_successes(epsilons, method: str, delta: float = 1e-6, *, n: int, d: int = 10, task: str = "regression",
                    R: float = 1.0) -> list[float | None]:
    """The guarantee's bound on naming the member of a pair, 1 − min_α[(α + f(α))/2], at each ε of
    ``epsilons`` (None where the method gives no model at n: input perturbation below its smallest valid n;
    1 where it has no guarantee). No game is played."""
    epsilons, delta, n, d, _, task, R, _, (method,) = check_game_settings(epsilons, delta, n, d, 10, task, R, 0,
                                                                          (method,))
    loss = make_loss("squared" if task == "regression" else "logistic", R)
    out = []
    for epsilon in epsilons:
        if method == "non_private":
            out.append(1.0)
            continue
        mechanism = make_mechanism(method, epsilon=epsilon, delta=delta)
        if method == "input_safe" and not mechanism.calibration(n, d, loss).valid:
            out.append(None)
            continue
        out.append(tradeoff_curve(mechanism.guarantee).guessing_chance(0.5))
    return out


def largest_epsilon_under(target: float, epsilons, method: str, *, basis: str = "bound",
                          study: MembershipStudy | None = None, delta: float = 1e-6, n: int = 1000, d: int = 10,
                          task: str = "regression", R: float = 1.0) -> EpsilonChoice:
    """The largest ε of the grid ``epsilons`` at which naming the member of a pair succeeds at most ``target``
    of the time: by the guarantee's bound (``basis="bound"``: for every attacker; from ``delta``, ``n``,
    ``d``, ``task``, ``R``, or from ``study`` when given) or by the strongest measured attack plus 2 SE
    (``basis="measured"``: what these attacks achieve — a weaker statement; needs ``study``, whose ε grid is
    then used). The rule of every topic, `privlib.core.risk.largest_epsilon_under`: the largest ε at which,
    and at every smaller ε of the grid, the success stays under the target; an ε where the method gives no
    model (input perturbation below its smallest valid n) is no choice and is left out of the grid."""
    target = check_probability(target, "target (the attack success you accept)")
    if basis not in ("bound", "measured"):
        raise ValueError(f"basis must be 'bound' or 'measured', got {shown(basis)}.")
    if study is not None:
        if method not in study.methods:
            raise ValueError(f"{shown(method)} is not in this study: {', '.join(study.methods)}.")
        epsilons = study.epsilons
        values, ses = [], []
        for result in study.results[method]:
            best = result.strongest()
            if basis == "bound":
                values.append(None if not result.valid else
                              1.0 if result.bound_success is None else result.bound_success)
                ses.append(0.0)
            else:
                values.append(None if best is None else best.success)
                ses.append(0.0 if best is None else best.success_se)
    elif basis == "measured":
        raise ValueError("The measured answer needs a study: pass study=membership_study(...).")
    else:
        epsilons = check_game_settings(epsilons, delta, n, d, 10, task, R, 0, (method,))[0]
        values = bound_successes(epsilons, method, delta, n=n, d=d, task=task, R=R)
        ses = [0.0] * len(values)
    usable = [i for i, value in enumerate(values) if value is not None]
    found = None if not usable else largest_epsilon_under_grid(
        target, [epsilons[i] for i in usable], [values[i] for i in usable], [ses[i] for i in usable])
    label = METHOD_LABELS[method]
    grid = ", ".join(f"{e:g}" for e in epsilons)
    what = "the guarantee keeps every attacker" if basis == "bound" else "the measured attacks (+ 2 SE) stay"
    if found is None:
        reason = ("it has no guarantee" if method == "non_private" and basis == "bound"
                  else f"no ε of the grid ({grid}) does")
        sentence = f"{label}: no ε keeps naming the member under {percent(target)} — {reason}."
    else:
        sentence = (f"{label}: the largest ε (of {grid}) at which {what} under {percent(target)} success in naming "
                    f"the member is ε = {found:g}.")
        if basis == "measured":
            sentence += " Measured attacks are lower bounds on the risk: the bound's answer is the safe one."
    return EpsilonChoice(method, target, basis, found, sentence)


# ---------------------------------------------------------------------------------------------
# each contributor's submission


def best_ball_mass(eta: float, d: int) -> float:
    """An upper bound κ̄ on the prior mass of the best η-ball for the synthetic features x = z/max(√d, ‖z‖),
    z ~ N(0, I_d): the part inside the unit ball is a symmetric log-concave law, whose η-ball mass is largest
    at 0 (Anderson 1955): P(‖z‖² ≤ η²d) for η < 1; the part on the unit sphere (P(‖z‖² > d), uniform on it)
    puts at most the mass of a cap of angular radius arcsin η, ½·I_{η²}((d − 1)/2, ½), in any η-ball.
    1 for η ≥ 1 (and for d = 1, where the sphere is two points)."""
    if eta >= 1.0:
        return 1.0
    inside = float(chdtr(d, eta * eta * d))
    on_sphere = 1.0 - float(chdtr(d, float(d)))
    cap = 0.5 * float(betainc((d - 1) / 2.0, 0.5, eta * eta)) if d > 1 else 1.0
    return min(1.0, inside + on_sphere * cap)


@dataclass(frozen=True)
class SubmissionRisk:
    """One contributor's submission under input perturbation (safe calibration) at (ε, δ, n): ``mu_L``
    (None where no calibration exists), ``epsilon_L`` at δ_L = δ, and per radius η the prior mass bound
    κ̄, the reconstruction bound Φ(Φ⁻¹(κ̄) + μ_L) and whether it is vacuous (≥ `VACUOUS`)."""

    epsilon: float
    delta: float
    n: int
    d: int
    valid: bool
    reason: str
    mu_L: float | None
    epsilon_L: float | None
    rows: tuple
    sentence: str

    def to_dict(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "n": self.n, "d": self.d, "valid": self.valid,
                "reason": self.reason, "mu_L": self.mu_L, "epsilon_L": self.epsilon_L,
                "rows": [dict(row) for row in self.rows], "sentence": self.sentence}


def reconstruction_bound(kappa: float, mu: float) -> float:
    """Φ(Φ⁻¹(κ) + μ): the most probable success of reconstructing within the ball of prior mass κ from a
    μ-GDP release (Hayes, Mahloujifar & Balle 2023)."""
    kappa = check_probability(kappa, "kappa (prior mass of the best ball)")
    if kappa in (0.0, 1.0):
        return kappa
    return float(ndtr(ndtri(kappa) + mu))


def submission_risk(epsilon: float, delta: float = 1e-6, *, n: int, d: int = 10, task: str = "regression",
                    R: float = 1.0, inflate: float = 1.0, etas=DEFAULT_ETAS) -> SubmissionRisk:
    """What one contributor's noisy submission (paper Alg. 1) lets the database reconstruct of her record:
    μ_L from the safe calibration at (ε, δ, n, d) and the reconstruction-robustness bound at each η of
    ``etas`` (module docstring), with "vacuous" where the bound says nothing."""
    epsilon, delta, n, d, _, task, R, _, _ = check_game_settings([epsilon], delta, n, d, 10, task, R, 0,
                                                                 ("input_safe",))
    epsilon = epsilon[0]
    inflate = check_range(inflate, "inflate m (the factor on both input-noise variances)", low=1.0, high=1e50)
    etas = [check_range(e, "eta (the reconstruction radius)", low=0.0, low_inclusive=False) for e in etas]
    loss = make_loss("squared" if task == "regression" else "logistic", R)
    cal = input_calibration("safe", epsilon, delta, n, d, R, loss.A, loss.B, inflate)
    if not cal.valid:
        return SubmissionRisk(epsilon, delta, n, d, False, cal.reason, None, None, (),
                              f"No contributor submits anything at n = {n:,}: {cal.reason}")
    local = local_guarantee(cal.sigma_a, cal.sigma_b, loss.A, loss.B, delta)
    rows = []
    for eta in etas:
        kappa = best_ball_mass(eta, d)
        bound = reconstruction_bound(kappa, local.mu)
        rows.append((("eta", eta), ("kappa", kappa), ("bound", bound), ("vacuous", bool(bound >= VACUOUS))))
    first = dict(rows[0])
    if all(dict(row)["vacuous"] for row in rows):
        verdict = (f"the reconstruction bound is vacuous at every radius (≥ {percent(VACUOUS)}): the guarantee does "
                   "not stop the database from recovering her record's features from her submission")
    else:
        verdict = (f"the database recovers her features within η = {first['eta']:g} with probability at most "
                   f"{percent(first['bound'])} (a guess from the prior alone: at most {percent(first['kappa'])})")
    sentence = (f"At ε = {epsilon:g} and n = {n:,}, each contributor's submission is μ_L-GDP with μ_L = {local.mu:.3g} "
                f"(ε_L = {local.epsilon_L:.3g} at δ = {delta:g}): {verdict}.")
    return SubmissionRisk(epsilon, delta, n, d, True, "", local.mu, local.epsilon_L, tuple(rows), sentence)


__all__ = [
    "ATTACKS",
    "ATTACK_EPSILONS",
    "ATTACK_LABELS",
    "ATTACK_METHODS",
    "DEFAULT_ETAS",
    "DEFAULT_GAMES",
    "REPORTED_FPR",
    "ROC_MIN_NONMEMBERS",
    "VACUOUS",
    "AttackMeasurement",
    "EpsilonChoice",
    "MembershipStudy",
    "MethodMembership",
    "SubmissionRisk",
    "best_ball_mass",
    "bound_successes",
    "curve_auc",
    "estimate_seconds",
    "game_chunk",
    "largest_epsilon_under",
    "measure",
    "membership_attack",
    "membership_study",
    "minimise_in_ball_batch",
    "noisy_sums_batch",
    "plain_sentence",
    "plain_sentences",
    "reconstruction_bound",
    "records_per_block",
    "release_batch",
    "submission_risk",
]
