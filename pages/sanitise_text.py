"""Page "Sanitise text": the paper's mechanism (and others) on your own sentences, side by side."""
import streamlit as st

from epsilon_lab import embedding_ui, take_home, ui
from privlib.analyses import sanitise_text as analysis
from privlib.analyses.sanitise_text import MAX_MECHANISMS, PROTECTS, SETTINGS
from privlib.presentation.style import table_column
from privlib.presentation.words.figures import short_label
from privlib.words.mechanisms import MECHANISMS, resolve_mechanism
from privlib.words.text import (
    CASE_POLICIES,
    MAX_CHARACTERS,
    NUMBER_POLICIES,
    OOV_POLICIES,
    REDACTED,
    SanitisePolicy,
    records_csv,
    records_table,
    results_json,
    sanitize,
)

#: The widget key of each setting (`privlib.analyses.sanitise_text.SETTINGS`); a mechanism's parameter p: "san.<name>.p".
KEYS = {"text": "san_text", "mechanisms": "san_mechanisms", "epsilon": "san_epsilon", "draw": "san_draw",
        "oov": "san_oov", "case": "san_case", "keep_stop_words": "san_stop", "numbers": "san_numbers",
        "close": "san_close", **{s.name: f"san.{s.name}" for s in SETTINGS.settings if "." in s.name}}


@st.cache_data(show_spinner="Sanitising …", max_entries=64)
def cached_sanitise(_space, space_key, text, mechanism, epsilon, policy, seed, draw, slot):
    rng = analysis.column_rng(seed, draw, slot)  # one independent stream per (seed, resample count, column)
    return sanitize(text, resolve_mechanism(mechanism), epsilon, _space, rng, SanitisePolicy(**dict(policy)))


def resample():
    st.session_state["san_draw"] = st.session_state.get("san_draw", 0) + 1


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets (never the text: it stays here)
space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)
defaults = {**SETTINGS.defaults(), "close": min(SETTINGS.defaults()["close"], len(space) - 1)}
for name in ("text", "mechanisms", "oov", "case", "keep_stop_words", "numbers", "close"):
    st.session_state.setdefault(KEYS[name], list(defaults[name]) if name == "mechanisms" else defaults[name])

st.title("Sanitise text")
st.markdown(
    "Each word and number of your text is run through a word-level privacy mechanism at the same ε and "
    "replaced by its output; contractions and possessives are cut as the embedding's tokeniser cut them "
    "(can't → ca + n't, John's → John + 's) and put back together; punctuation and spacing stay as they are. "
    "Compare up to three mechanisms side by side. Highlighted words changed: **green** = replaced by one of "
    "the word's close neighbours, **red** = replaced by a distant word; hover over a word to see the "
    "original, its rank and distance."
)

text = st.text_area("Text to sanitise", height=130, max_chars=MAX_CHARACTERS, key="san_text",
                    help="Stays on this computer: it is not stored, logged or put in the page's address. "
                         "Default: the worked example of Asghar et al. (2026).")
chosen = st.multiselect(f"Mechanisms to compare (up to {MAX_MECHANISMS})", list(MECHANISMS),
                        max_selections=MAX_MECHANISMS, format_func=lambda n: short_label(MECHANISMS[n].label),
                        key="san_mechanisms")
c2, c3 = st.columns([4, 1], vertical_alignment="center")
with c2:
    epsilon = ui.epsilon_slider(key="san_epsilon", help=embedding_ui.WORD_EPSILON_HELP)
with c3:
    st.button("Resample", on_click=resample, help="Run the mechanisms again with fresh randomness "
                                                   "(the sidebar's seed makes the sequence reproducible).")

with st.expander("Options: unknown words, numbers, stop words, capitals, parameters"):
    o1, o2 = st.columns(2)
    with o1:
        oov = st.radio("Not in the vocabulary (words, numbers, addresses)", list(OOV_POLICIES), key="san_oov",
                       format_func=lambda p: {"redact": f"Redact as {REDACTED}", "keep": "Keep as they are",
                                              "random": "Replace by a random word"}[p],
                       captions=list(OOV_POLICIES.values()))
        case = st.radio("Capitals", list(CASE_POLICIES), key="san_case",
                        format_func=lambda p: {"match": "Match the vocabulary, restore capitals",
                                               "exact": "Exactly as typed"}[p],
                        captions=list(CASE_POLICIES.values()))
    with o2:
        keep_stop = st.checkbox("Leave stop words untouched", key="san_stop",
                                help="Stop words (the, of, and, …) then cost no budget and get no protection.")
        numbers = st.radio("Numbers", list(NUMBER_POLICIES), key="san_numbers",
                           format_func=lambda p: {"sanitise": "Sanitise them like words",
                                                  "keep": "Keep them as typed (not protected)"}[p],
                           captions=list(NUMBER_POLICIES.values()))
        close = st.number_input("Close neighbour = rank 1 … K, K =", min_value=1,
                                max_value=min(10_000, len(space) - 1), key="san_close")
    mechanisms = []
    for name in chosen:
        if MECHANISMS[name].PARAMETERS:
            st.markdown(f"**{MECHANISMS[name].label}**")
        mechanisms.append((name, ui.parameter_controls(MECHANISMS[name].PARAMETERS, key=f"san.{name}")))

if not text.strip():
    st.info("Type or paste a text to sanitise.")
    st.stop()
if not mechanisms:
    st.info("Choose at least one mechanism.")
    st.stop()

policy = (("case", case), ("oov", oov), ("keep_stop_words", keep_stop), ("numbers", numbers))
seed, draw = int(st.session_state["seed"]), int(st.session_state.get("san_draw", 0))
values = {**take_home.embedding_values(space, seed), "text": text, "mechanisms": tuple(chosen),
          "epsilon": float(epsilon), "draw": draw, "oov": oov, "case": case, "keep_stop_words": bool(keep_stop),
          "numbers": numbers, "close": int(close),
          **{f"{name}.{pname}": value for name, params in mechanisms for pname, value in params}}
take_home.share(SETTINGS, values)
results = []
try:
    for slot, mechanism in enumerate(mechanisms):
        results.append(cached_sanitise(space, key, text, mechanism, epsilon, policy, seed, draw, slot))
except ValueError as exc:
    st.error(str(exc))
    st.stop()

st.info(results[0].budget_message(), icon="🔒")  # the same policy, so the same budget, for every mechanism

columns = st.columns(len(results))
for col, result, (name, params) in zip(columns, results, mechanisms):
    with col:
        # the short name as the heading (a citation in heading size took three lines at 1024 px), the full one below
        st.markdown(f"#### {short_label(MECHANISMS[name].label)}", help=MECHANISMS[name].label)
        st.markdown(result.to_html(int(close)), unsafe_allow_html=True)
        summary = result.summary(int(close))
        f = summary["fractions"]
        # side by side in a wide column; one below the other in a narrow one (their labels were cut off at 1024 px)
        a, b, c = st.columns(3) if len(results) == 1 else (st.container(), st.container(), st.container())
        a.metric("Unchanged", f"{f['unchanged']:.0%}", help="Sanitised words output as themselves (rank 0).")
        b.metric("Close neighbour", f"{f['close']:.0%}",
                 help=f"Replaced by one of the word's {close} nearest neighbours.")
        c.metric("Distant word", f"{f['distant']:.0%}", help=f"Replaced by a word ranked beyond {close}.")
        st.caption(resolve_mechanism((name, params)).guarantee.text)

# What an attacker learns (issue 23): the sentence of Neighbour ranks' "Attacker's view" for the first
# mechanism, here only when it is cheap (the library's estimate within SANITISE_ATTACK_SECONDS), and a link there.
SANITISE_ATTACK_SECONDS = 0.5


@st.cache_data(show_spinner=False, max_entries=32)
def cached_sanitise_attack_seconds(_space, space_key, mechanism, epsilon, close):
    """`attack_seconds` from the stored kernel costs (``timed=False``): microseconds, no kernel timed, at any
    vocabulary size (a timing run cost about a second of the first view: issue 22)."""
    from privlib.words.attacks import attack_seconds

    return attack_seconds(_space, resolve_mechanism(mechanism), [epsilon], close=close, timed=False)


# a resource, not data: an exact attack keeps its likelihood, which holds the space
@st.cache_resource(show_spinner="Measuring what an attacker learns …", max_entries=16)
def cached_sanitise_attack(_space, space_key, mechanism, epsilon, close, seed):
    from privlib.words.attacks import attacker_view

    return attacker_view(_space, resolve_mechanism(mechanism), epsilon, close=close, seed=seed)


def sanitise_attack_is_cheap() -> bool:
    """Whether the first mechanism's attack is estimated within `SANITISE_ATTACK_SECONDS`; settings the attack
    refuses (e.g. CusText mapping fewer words than the candidates) get the link only."""
    try:
        return cached_sanitise_attack_seconds(space, key, mechanisms[0], epsilon, int(close)) <= SANITISE_ATTACK_SECONDS
    except ValueError:
        return False


if sanitise_attack_is_cheap():
    attack = cached_sanitise_attack(space, key, mechanisms[0], epsilon, int(close), seed)
    st.markdown(f"**What an attacker learns ({short_label(MECHANISMS[mechanisms[0][0]].label)}).** {attack.sentence}")
st.page_link(ui.PAGES / "neighbour_ranks.py", icon="➡️",
             label="What an attacker learns: Neighbour ranks → Attacker's view")

with st.expander("Every token"):
    tokens = records_table(results)
    columns = ["mechanism", "original", "replacement", "action", "reason", "rank", "distance", "cosine", "epsilon"]
    table = {column: [row.get(column) for row in tokens] for column in columns}
    # rank, distance and cosine exist only for a sanitised token: say so rather than "None"
    for column, fmt in (("rank", "{:,}"), ("distance", "{:.3f}"), ("cosine", "{:.3f}")):
        table[column] = table_column(table[column], fmt)
    table["reason"] = table_column(table["reason"])
    # the columns that fit at 1024 pixels; the reason, cosine and ε spent of every token are in the CSV below
    st.dataframe(table, hide_index=True,
                 column_order=["mechanism", "original", "replacement", "action", "rank", "distance"])
    st.caption("— : the token was not sanitised (kept, redacted or replaced at random), so it has no rank or "
               "distance. Rank: the output's place among the token's neighbours (0 = unchanged). The CSV also "
               "holds each token's reason, cosine and ε spent.")

d1, d2 = st.columns(2)
d1.download_button("Tokens (CSV)", records_csv(results), file_name=f"sanitised-eps{epsilon:g}.csv", mime="text/csv")
d2.download_button("Results (JSON)", results_json(results, int(close)), file_name=f"sanitised-eps{epsilon:g}.json",
                   mime="application/json")

take_home.panel(SETTINGS, values, analysis.numbers(results, int(close)), [], KEYS, PROTECTS)
