"""Self-contained HTML report of an epsilon choice (`privlib.words.choice.EpsilonChoice`).

One file that opens offline in any browser: the charts are Plotly figures with plotly.js
inlined once (no CDN, no external link needed), the tables are plain HTML, and every input of
the analysis is recorded (embedding name, vocabulary size, dimension and fingerprint; words;
mechanisms and parameters; epsilon grid; samples; K; targets, the attack target and the attack's
candidates, prior and samples; sentence length; seed) so it can be reproduced. All user text is
HTML-escaped.
"""
from __future__ import annotations

import html
import shlex
from importlib import metadata

import numpy as np

from privlib.presentation.risk import attack_vs_epsilon_chart
from privlib.presentation.style import reference_line
from privlib.presentation.words import figures
from privlib.words.choice import BAND_SE, METRICS, SCOPES, VOCABULARY, EpsilonChoice

#: Charts of a choice, in order: (key, metric, title). The trade-off chart comes first.
METRIC_CHARTS = (
    ("within_k", "Outputs unchanged or among the K nearest neighbours"),
    ("unchanged_max", "The most-kept word: its Pr[output = input]"),
    ("unchanged", "Kept unchanged, mean over words (N_w as a fraction)"),
    ("close", "Close neighbours (rank 1..K), not the word itself"),
    ("median_rank", "Median rank of the output among its input's neighbours"),
    ("cosine", "Mean cosine similarity of input and output"),
    ("distinct", "Distinct outputs S_w among the runs"),
    ("effective", "Effective number of outputs, exp(entropy)"),
)


#: The key of the attack chart among `choice_figures` (last, when the choice has an attack).
ATTACK_CHART = "attack"


def attack_chart(choice: EpsilonChoice, *, chosen_epsilon: float | None = None):
    """Attack success against ε for each mechanism of the choice (±2 SE bands for a sampled attack),
    the prior baseline and the attack target as a line; None when the choice has no attack."""
    if not choice.attacks:
        return None
    eps = np.asarray(choice.epsilons)
    measured = {f"{a.label}{'' if a.exact else ' (sampled: a lower bound)'}":
                ((a.success,) if a.exact else (a.success, a.standard_errors)) for a in choice.attacks}
    settings, baseline = choice.attack_settings, choice.attacks[0].prior_baseline
    fig = attack_vs_epsilon_chart(
        eps, measured, baseline=baseline, chosen_epsilon=chosen_epsilon,
        y_title="re-identified: the attacker names the original word",
        baseline_name="guessing from the prior alone",
        title=f"Re-identification among the {settings.candidates:,} most frequent words ({settings.prior} prior)")
    t = choice.targets
    if t.attack is not None:
        line = t.attack if t.attack_measure == "success" else baseline + t.attack
        reference_line(fig, eps, line, "attack target", colour="#b22222", dash="dot")
    fig.update_yaxes(tickformat=".0%")
    return fig


def _axis_title(metric: str, close: int) -> str:
    label, _, direction = METRICS[metric]
    if metric in ("within_k", "close"):
        label = f"{label} (rank ≤ {close})" if metric == "within_k" else f"{label} (rank 1–{close})"
    return f"{label} ({direction})"


def choice_figures(choice: EpsilonChoice, privacy_metric: str = "unchanged", *, chosen_epsilon: float | None = None,
                   narrow: bool = False) -> list:
    """The charts of a choice as (key, figure) pairs: the trade-off (``privacy_metric`` against
    the utility target's metric), then each metric of `METRIC_CHARTS` against epsilon with its
    ±2 SE band, the targets as lines and the recommended ranges shaded, and last, when the choice
    has an attack, `attack_chart` (key `ATTACK_CHART`). Used by the page and the report alike.
    ``chosen_epsilon``: an ε to mark on every chart against ε; ``narrow``: the charts against ε
    are drawn in half the page's width."""
    if privacy_metric not in METRICS:
        raise ValueError(f"privacy_metric must be one of {', '.join(METRICS)}, got {privacy_metric!r}.")
    t, K = choice.targets, choice.close
    results, answers = choice.results, choice.answers
    utility = t.utility_metric
    out = [("tradeoff", figures.epsilon_tradeoff(
        results, answers, privacy=privacy_metric, utility=utility,
        privacy_title=_axis_title(privacy_metric, K), utility_title=_axis_title(utility, K),
        title="Trade-off: privacy against utility, one point per ε"))]
    for metric, title in METRIC_CHARTS:
        target, label = None, "target"
        if metric == utility:
            target, label = t.utility, "utility target"
        elif metric == t.privacy_metric:
            target, label = t.max_keep, "privacy floor"
        fraction = metric in ("within_k", "unchanged_max", "unchanged", "close")
        rank = metric == "median_rank"
        out.append((metric, figures.metric_vs_epsilon(
            results, metric, answers, target=target, target_label=label,
            y_title=("median rank + 1 (log scale; lower = more utility)" if rank else _axis_title(metric, K)),
            fraction=fraction, log_y=rank or metric == "effective", offset=1.0 if rank else 0.0,
            chosen_epsilon=chosen_epsilon, narrow=narrow,
            title=title.replace("K nearest", f"{K} nearest")
            + (f" — from {choice.samples:,} runs it saturates near {1.65 * choice.samples:,.0f}"
               if metric == "effective" and not all(r.exact for r in results) else ""))))
    attack = attack_chart(choice, chosen_epsilon=chosen_epsilon)
    if attack is not None:
        out.append((ATTACK_CHART, attack))
    return out


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em} h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em} td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3} td.l,th.l{text-align:left} .ok{background:#e6f4e6} .words{font-family:monospace;font-size:.9em}
.note{color:#555;font-size:.92em} .mech{border-left:4px solid #888;padding:.2em .9em;margin:1em 0;background:#fafafa}
code,pre{background:#f5f5f5;padding:2px 4px;border-radius:3px} pre{padding:.6em;white-space:pre-wrap}
.chart{margin:1em 0}
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _num(value, metric: str) -> str:
    if metric in ("within_k", "unchanged_max", "unchanged", "close"):
        return f"{value:.1%}"
    if metric == "median_rank":
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _metric_table(choice: EpsilonChoice, i: int) -> str:
    r, a = choice.results[i], choice.answers[i]
    attack = choice.attacks[i] if choice.attacks else None
    head = "".join(f"<th>{_e(METRICS[m][0])}</th>" for m in METRICS)
    if attack is not None:
        head += f"<th>re-identified ({'exact' if attack.exact else 'sampled'}), ±{BAND_SE:g} SE range</th>"
    rows = []
    for j, eps in enumerate(np.asarray(choice.epsilons)):
        cells = "".join(f"<td>{_num(r.values[m][j], m)}<br><span class=note>± {_num(r.standard_errors[m][j], m)}"
                        f"</span></td>" for m in METRICS)
        if attack is not None:
            cells += (f"<td>{attack.success[j]:.2%}<br><span class=note>{attack.bands[0][j]:.2%}–"
                      f"{attack.bands[1][j]:.2%}</span></td>")
        cls = ' class="ok"' if a.recommended[j] else ""
        rows.append(f"<tr{cls}><td>{eps:g}</td><td>{choice.budget[j]:g}</td>{cells}</tr>")
    return (f"<table><tr><th>ε</th><th>{choice.sentence_length}-word budget</th>{head}</tr>"
            + "".join(rows) + "</table>")


def _cli_command(choice: EpsilonChoice, i: int) -> str | None:
    """The equivalent `python -m privlib choose` command for mechanism i (built-in GloVe only)."""
    emb = choice.embedding
    if not str(emb["name"]).startswith("GloVe 6B 50d"):
        return None
    r, t = choice.results[i], choice.targets
    eps = ",".join(f"{e:g}" for e in np.asarray(choice.epsilons))
    args = ["python", "-m", "privlib", "choose"]
    if emb["vocabulary_size"] != 400_000:
        args += ["--vocab-size", str(emb["vocabulary_size"])]
    if choice.words.scope == VOCABULARY:
        args += ["--words", str(len(choice.words))]
    else:
        args += ["--words-file", "WORDS.txt"]
    args += ["--epsilons", eps, "--mechanism", r.mechanism]
    for k, v in r.parameters.items():
        args += ["--param", f"{k}={v}"]
    args += ["--samples", str(choice.samples), "--close", str(choice.close), "--sentence-length",
             str(choice.sentence_length), "--max-keep", f"{t.max_keep:g}", "--keep-statistic", t.keep_statistic]
    if t.attack is not None:
        a = choice.attack_settings
        args += ["--attack-target", f"{t.attack:g}", "--attack-measure", t.attack_measure.replace("_", "-"),
                 "--attack-candidates", str(a.candidates), "--attack-prior", a.prior,
                 "--attack-samples", str(a.samples_per_word)]
        if a.runs is not None:
            args += ["--attack-runs", str(a.runs)]
    if choice.seed is not None:
        args += ["--seed", str(choice.seed)]
    if t.utility_metric == "within_k":
        args += ["--target-close", f"{t.utility:g}"]
    return " ".join(shlex.quote(a) for a in args)


def choice_report(choice: EpsilonChoice, privacy_metric: str = "unchanged", created: str | None = None,
                  title: str = "Choosing ε for word-level d_X-privacy", *, list_words: bool = True,
                  appendix: str = "") -> str:
    """The report as one HTML string (pure: the same choice gives the same text). ``created``
    (e.g. a timestamp) is printed when given. ``list_words``: False leaves out the words and the
    input's words outside the vocabulary (a user's text: `privlib.analyses.choose_epsilon` lists them
    only when the user includes them); ``appendix``: HTML added at the end (the page's settings and code,
    `privlib.analyses.choose_epsilon.report`)."""
    if not isinstance(choice, EpsilonChoice):
        raise ValueError("choice_report needs an EpsilonChoice (from privlib.words.choice.choose_epsilon).")  # noqa: TRY004 (bad input)
    t, emb, ws = choice.targets, choice.embedding, choice.words
    wording = t.describe(choice.close)
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
              f"<style>{_STYLE}</style></head><body>"),
             f"<h1>{_e(title)}</h1>",
             (f"<p class=note>Epsilon Lab report{(' · ' + _e(created)) if created else ''}. Smaller ε = more noise = "
              f"more privacy; a sentence of L sanitised words spends L·ε (composition). Privacy statistics: "
              f"Feyisetan et al. 2020 (N_w = how often the word is kept, S_w = distinct outputs); ranks as in "
              f"Asghar et al. (rank 0 = the word itself, 1..K = close neighbours).</p>"),
             "<h2>Targets</h2><ul>",
             f"<li>Utility: {_e(wording['utility'])}</li><li>Privacy floor: {_e(wording['privacy'])}</li>",
             *([(f"<li>Attack target: {_e(wording['attack'])} (re-identification among the "
                 f"{choice.attack_settings.candidates:,} most frequent words, {_e(choice.attack_settings.prior)} prior; "
                 f"exact Bayes attacker for SanText, SanText+, TEM and CusText, else a sampled attack, a lower bound "
                 f"on the best attacker)</li>")] if "attack" in wording else []),
             f"<li>Sentence length for the budget: {choice.sentence_length} words</li></ul>",
             "<h2>Answers</h2>"]
    for i, (r, a) in enumerate(zip(choice.results, choice.answers)):
        colour = figures.SERIES_COLOURS[i % len(figures.SERIES_COLOURS)]
        verdict = (f"Recommended: ε = {a.range[0]:g}–{a.range[1]:g}" if a.feasible and a.range[0] != a.range[1]
                   else f"Recommended: ε = {a.range[0]:g}" if a.feasible else "Infeasible on this grid")
        attack = "" if a.attack is None else f"<p class=attack><b>{_e(a.attack_summary)}</b></p>"
        parts.append(f"<div class=mech style=\"border-left-color:{colour}\"><h3>{_e(r.label)} — {_e(verdict)}</h3>"
                     f"{attack}<p>{_e(a.message)}</p><p><b>{_e(choice.summary(i))}</b></p>"
                     f"<p class=note>Guarantee: {_e(r.guarantee)}</p></div>")
    parts.append("<h2>Charts</h2><p class=note>Bands and error bars: ±"
                 f"{BAND_SE:g} standard errors. Shaded ε ranges: recommended (every target met by the estimates).</p>")
    for k, (key, fig) in enumerate(choice_figures(choice, privacy_metric)):
        parts.append(f"<div class=chart id=\"chart-{_e(key)}\">"
                     + fig.to_html(full_html=False, include_plotlyjs=(k == 0), config={"displaylogo": False},
                                   div_id=f"plot-{key}")
                     + "</div>")
    parts.append("<h2>All numbers</h2><p class=note>Each cell: estimate and its standard error "
                 f"({_e(SCOPES[ws.scope])}). Green rows: recommended ε.</p>")
    for i, r in enumerate(choice.results):
        parts.append(f"<h3>{_e(r.label)}{' (exact output law)' if r.exact else ''}</h3>{_metric_table(choice, i)}")

    parts.append("<h2>Reproduce this analysis</h2><table>")
    params = "; ".join(f"{_e(r.mechanism)}: " + (", ".join(f"{_e(k)} = {_e(v)}" for k, v in r.parameters.items())
                                                  or "no parameters") for r in choice.results)
    rows = [("Embedding", emb["name"]), ("Vocabulary size", f"{emb['vocabulary_size']:,}"),
            ("Dimension", emb["dimension"]), ("Fingerprint (SHA-1 of words and vectors)", emb["fingerprint"]),
            ("Words", f"{len(ws):,} — {ws.source}"), ("Standard errors", SCOPES[ws.scope]),
            ("Mechanisms", ", ".join(r.mechanism for r in choice.results)), ("Parameters", None),
            ("ε grid", ", ".join(f"{e:g}" for e in np.asarray(choice.epsilons))),
            ("Runs per word and ε", f"{choice.samples:,} (exact output laws are not sampled)"),
            ("K (close neighbours)", choice.close), ("Sentence length", choice.sentence_length),
            ("Targets", f"{t.utility_metric} ≥ {t.utility:g}; {t.keep_statistic} Pr[output = input] ≤ {t.max_keep:g}"
                        + ("" if t.attack is None else f"; attack {t.attack_measure} ≤ {t.attack:g}")),
            *([("Attack", (f"{choice.attack_settings.candidates:,} candidates (the most frequent words), "
                           f"{choice.attack_settings.prior} prior, {choice.attack_settings.samples_per_word} fitting "
                           f"outputs per candidate for a sampled attack, "
                           f"{choice.attack_settings.runs or 'as many'} fresh scoring runs"))]
              if choice.attack_settings is not None else []),
            ("Random seed", "none" if choice.seed is None else choice.seed),
            ("Software", f"privlib (Epsilon Lab), numpy {np.__version__}, plotly {_version('plotly')}")]
    for name, value in rows:
        cell = params if value is None else _e(value)
        parts.append(f"<tr><th class=l>{_e(name)}</th><td class=l>{cell}</td></tr>")
    parts.append("</table>")
    if not list_words:
        parts.append(f"<p class=note>The words ({len(ws):,}) are not included in this report.</p>")
    else:
        parts.append(f"<p>The words ({len(ws):,}):</p><p class=words>{_e(' '.join(ws.words))}</p>")
    if ws.unknown and list_words:
        parts.append(f"<p class=note>Not in the vocabulary, left out ({len(ws.unknown):,}): "
                     f"<span class=words>{_e(' '.join(ws.unknown))}</span></p>")
    commands = [c for c in (_cli_command(choice, i) for i in range(len(choice.results))) if c]
    if commands:
        parts.append("<p>The same numbers from the command line, one mechanism at a time"
                     + ("" if ws.scope == VOCABULARY else " (WORDS.txt: your words, one per line)")
                     + ":</p><pre>" + _e("\n".join(commands)) + "</pre>")
    parts.append(appendix + "</body></html>")
    return "\n".join(parts)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "?"
