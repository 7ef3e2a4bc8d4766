"""Take a page's analysis home: its settings in the link and in a settings file, its code as a script
and a notebook, and a one-file report — the same on every page that has an analysis in
`privlib.analyses` (issue 24).

A page uses three calls:

1. `restore(settings, keys)` after `ui.start_page()` and before its widgets: the session's first view
   of the page takes a shared link's settings (what cannot be used is named, never fatal);
2. its widgets read their values from the widget state (create each widget without ``value=``, after
   ``st.session_state.setdefault(key, default)``, so a restored value is not overridden);
3. `share(settings, values)` once the values are read (the link now reproduces the view), and at the
   end `panel(...)`: downloads of the settings, script, notebook and report, an upload of a settings
   file, and the numbers the script prints.
"""
from __future__ import annotations

import datetime as _dt

import streamlit as st

from epsilon_lab import ui

#: The sidebar's widget keys of the word pages' shared settings (`privlib.analyses.embedding`).
EMBEDDING_KEYS = {"embedding": "embedding_source", "vocab_size": "vocab_size", "seed": "seed"}


def _state_key(settings, what: str) -> str:
    return f"take_home.{settings.page}.{what}"


def restore(settings, keys) -> None:
    """Put a shared link's settings into the page's widget state on the session's first view of this page,
    or a settings file's (uploaded in `panel`) on the run after its upload, and show what could not be used.
    ``keys``: setting name → widget key (the word pages' sidebar settings are added: `EMBEDDING_KEYS`)."""
    keys = {**EMBEDDING_KEYS, **dict(keys)}
    read_key, pending_key = _state_key(settings, "link_read"), _state_key(settings, "pending")
    if read_key not in st.session_state:
        st.session_state[read_key] = True
        values, problems = settings.from_query(st.query_params.to_dict())
        problems += apply(settings, values, keys)
        if "seed" in settings.by_name and keys["seed"] == EMBEDDING_KEYS["seed"] and "seed" not in st.session_state:
            # the sidebar reads a link's seed only when none is set: the link was read here (its problems said)
            st.session_state["seed"] = settings.by_name["seed"].default
    else:
        problems = st.session_state.pop(pending_key, [])
    for problem in problems:
        st.warning(problem, icon="⚠️")


def apply(settings, values, keys) -> list[str]:
    """Set the widget state of ``values`` (setting name → value); returns the problems: an embedding that
    is a file of the user's cannot be loaded from a link or a settings file."""
    from epsilon_lab import embedding_ui
    from privlib.analyses.embedding import BUILT_IN

    problems = []
    for name, value in values.items():
        if name == "embedding":
            if value == BUILT_IN:
                st.session_state[keys[name]] = embedding_ui.BUILT_IN_SOURCE
            else:
                problems.append(f"These settings were made with your embedding file {value!r}: load it in the "
                                "sidebar to see the same view (a link or a settings file never carries a file).")
            continue
        st.session_state[keys.get(name, name)] = list(value) if isinstance(value, tuple) else value  # a multiselect's
    return problems


def share(settings, values) -> None:
    """Write ``values`` into the page's link (every setting, so the link reproduces the view)."""
    query = settings.to_query(values)
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)


def embedding_values(space, seed: int) -> dict:
    """The word pages' shared settings of the loaded ``space`` (see `privlib.analyses.embedding`)."""
    from privlib.analyses.embedding import BUILT_IN, GLOVE_WORDS

    name = BUILT_IN if space.name.startswith("GloVe 6B 50d") else space.name
    size = int(st.session_state.get("vocab_size", GLOVE_WORDS))
    return {"embedding": name, "vocab_size": size, "seed": int(seed)}


def _load_settings_file(settings, keys, upload_key) -> None:
    """The uploader's callback: apply an uploaded settings file before the next run draws the widgets."""
    upload = st.session_state.get(upload_key)
    if upload is None:
        return
    try:
        values, problems = settings.from_json(upload.getvalue())
    except ValueError as exc:
        st.session_state[_state_key(settings, "pending")] = [str(exc)]
        return
    keys = {**EMBEDDING_KEYS, **dict(keys)}
    problems += apply(settings, values, keys)
    st.session_state[_state_key(settings, "pending")] = problems


def included(settings) -> bool:
    """Whether the user ticked `panel`'s box that puts what they typed into the downloads (a page's own downloads,
    drawn before the panel, follow it too)."""
    return bool(st.session_state.get(_state_key(settings, "include_private"), False))


def panel(settings, values, numbers, charts, keys, protects: str, report=None) -> None:
    """The "Take this analysis home" section: settings file (download, upload), the script, and on request
    the notebook and the report; the numbers the script prints. ``numbers``: the page's numbers (name →
    value, the analysis's `numbers`); ``charts``: the page's Plotly figures, in order (for the report);
    ``keys``: as in `restore`; ``protects``: what ε protects on the page; ``report``: the page's own report,
    ``report(values, created) -> str`` (HTML; Choose epsilon's), instead of `page_report`."""
    from privlib import analyses

    page = settings.page
    st.subheader("Take this analysis home")
    st.markdown(
        "Rerun this exact view outside the app: the **script** runs with `python` where Epsilon Lab is installed "
        "and opens as a notebook in Jupyter or VS Code (`# %%` cells); it calls privlib's public functions with "
        "the settings and seed above, draws the same charts and prints the numbers below. The **settings file** "
        "restores this view here (upload it) and runs the command line: "
        + (f"`python -m privlib {settings.command} --settings FILE`." if settings.command else "—.")
        + " The link in the address bar carries the same settings.")
    upload_key = _state_key(settings, "upload")
    private = [s.label or s.name for s in settings.settings if s.private]
    include = private and st.checkbox(
        f"Include what I typed ({', '.join(private).lower()}) in the downloads", value=False,
        key=_state_key(settings, "include_private"),
        help="Unticked, the downloads leave it out: the code uses a placeholder you can replace.")
    if not include:  # what the user typed stays out of every download
        values = {name: value for name, value in values.items() if not settings.by_name[name].private}
    left, middle, right = st.columns(3)
    left.download_button("Settings file (JSON)", settings.to_json(values, include_private=bool(include)),
                         file_name=f"{page}-settings.json", mime="application/json", on_click="ignore",
                         key=_state_key(settings, "settings_json"))
    script = analyses.script(page, values)
    middle.download_button("Python script (.py)", script, file_name=f"{page}.py", mime="text/x-python",
                           on_click="ignore", key=_state_key(settings, "script"))
    work = (page, settings.to_json(values, include_private=bool(include)))
    requested = _state_key(settings, "requested")
    if work in st.session_state.get(requested, set()):
        from privlib.analyses.report import page_report

        right.download_button("Notebook (.ipynb)", analyses.notebook(page, values), file_name=f"{page}.ipynb",
                              mime="application/x-ipynb+json", on_click="ignore", key=_state_key(settings, "notebook"))
        created = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        right.download_button("Report (HTML)",
                              page_report(settings, values, numbers, charts, script, protects, created=created)
                              if report is None else report(values, created),
                              file_name=f"{page}-report.html", mime="text/html", on_click="ignore",
                              key=_state_key(settings, "report"))
    else:
        right.button("Notebook and report", key=_state_key(settings, "prepare"),
                     on_click=ui.request, args=(requested, work),
                     help="Prepare the notebook (no outputs stored) and a one-file HTML report of this view: charts, "
                          "numbers, settings and the code.")
    st.file_uploader("Load a settings file", type=["json"], key=upload_key,
                     on_change=_load_settings_file, args=(settings, keys, upload_key),
                     help="A settings file downloaded from this page: the page takes its settings.")
    # JSON, not a table: every digit as the script prints it, and no pandas import on pages that need none
    st.json({name: (value.item() if hasattr(value, "item") else value) for name, value in numbers.items()},
            expanded=True)
    st.caption("The numbers of this view, every digit, as the exported script prints them.")
