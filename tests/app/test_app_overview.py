"""The overview (the default page) in-process (AppTest): no embedding, a link to every page."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from epsilon_lab import app

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
WORD_PAGES = ["pages/neighbour_ranks.py", "pages/noisy_dot_product.py", "pages/sanitise_text.py",
              "pages/why_it_happens.py", "pages/choose_epsilon.py"]
#: Every page file of the app but the overview, and the topic sections of app.py's router.
ALL_PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if p.name != "overview.py")
SECTIONS = [name for name in app.SECTIONS if name]


@pytest.fixture(scope="module")
def overview():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def test_the_router_lists_every_page_file_once():
    listed = [file for pages in app.SECTIONS.values() for file in pages]
    assert sorted(f"pages/{file}" for file, _title in listed) == sorted(ALL_PAGES + ["pages/overview.py"])
    # the default page first, then the explainer of ε of every topic
    assert app.SECTIONS[""] == [("overview.py", "Overview"), ("what_epsilon_means.py", "What ε means")]


def test_the_package_router_runs_the_same_app():
    """The package's router (epsilon_lab/app.py, what `epsilon-lab app` runs once installed) run from
    the checkout, where no pages/ folder is beside it: the overview, its sections and a link to
    every page of the top-level pages/ folder (ui.PAGES)."""
    at = AppTest.from_file(str(ROOT / "epsilon_lab" / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Epsilon Lab"
    assert [h.value for h in at.header] == SECTIONS
    assert sorted(link.proto.page for link in at.get("page_link")) == sorted(Path(p).stem for p in ALL_PAGES)
    at.switch_page("../pages/label_dp.py")  # raises unless the top-level page is registered


def test_overview_is_the_default_page_and_renders(overview):
    assert not overview.exception, [e.value for e in overview.exception]
    assert not overview.error
    assert overview.title[0].value == "Epsilon Lab"
    assert any("Smaller ε" in i.value and "more privacy" in i.value for i in overview.info)
    # one header per topic section of the router, the word-level topic first
    assert [h.value for h in overview.header] == SECTIONS and SECTIONS[0] == "Word-level text"


def test_overview_links_every_page_once(overview):
    links = overview.get("page_link")
    # every page file of the app is linked once (URL paths are the file names), except the overview
    assert sorted(link.proto.page for link in links) == sorted(Path(p).stem for p in ALL_PAGES)
    assert set(WORD_PAGES) <= set(ALL_PAGES)
    assert all(link.proto.label and link.proto.page_script_hash for link in links)


def test_overview_needs_no_embedding(overview):
    assert not overview.sidebar.radio and not overview.sidebar.number_input  # no embedding sidebar
    assert "embedding_source" not in overview.session_state


def test_each_linked_page_opens_from_the_overview():
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/sanitise_text.py").run()
    assert not at.exception and at.title[0].value == "Sanitise text"
    at.switch_page("pages/overview.py").run()
    assert not at.exception and at.title[0].value == "Epsilon Lab"
