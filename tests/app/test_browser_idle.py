"""The browser tests' "wait until the app is idle" helper must wait on something the app really shows.

Streamlit marks its root element with ``data-test-script-state`` (``initial`` before the first run,
``running`` / ``rerunRequested`` while the script works, ``notRunning`` when it is done); the helper
is correct only if, when it returns, that attribute says ``notRunning``.
"""
import pytest
from browser import script_state, streamlit_server, wait_for_app_idle

pytestmark = pytest.mark.browser


def test_idle_helper_returns_only_after_the_script_has_finished(browser):
    with streamlit_server() as (url, _started):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        # The neighbour-ranks page loads GloVe on first view: seconds of script time, so a helper
        # that returns at once (the old one waited on a widget this Streamlit never draws) is caught.
        page.goto(f"{url}/neighbour_ranks")
        wait_for_app_idle(page)
        assert script_state(page) == "notRunning"
        assert page.locator(".js-plotly-plot").count() >= 1  # the finished run drew its charts
        # And after an interaction: the rerun it triggers is waited for too.
        page.get_by_role("button", name="Random word").click()
        wait_for_app_idle(page)
        assert script_state(page) == "notRunning"
        page.close()
