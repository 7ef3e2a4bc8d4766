"""End-to-end: the real app in a real (headless Debian Chromium) browser."""
import re
import time

import pytest
from browser import (
    CHARTS_JS,
    CHECKOUT,
    assert_no_exception,
    streamlit_server,
    wait_for_app_idle,
)

pytestmark = pytest.mark.browser


def _metric_value(page, label_start: str) -> str:
    metric = page.locator('[data-testid="stMetric"]', has_text=label_start).first
    return metric.locator('[data-testid="stMetricValue"]').inner_text()


def _open(browser, url: str, charts: int, timeout_ms: int = 90_000):
    """A new tab at ``url``, once ``charts`` Plotly charts are drawn; returns (page, JS errors)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    # Stops early when the page shows an exception instead (it never draws its charts then).
    page.wait_for_function(
        f"() => {CHARTS_JS} >= {charts}"
        " || document.querySelector('[data-testid=\"stException\"]') !== null", timeout=timeout_ms)
    assert_no_exception(page)
    return page, errors


def _routed_by_app(page, path: str) -> None:
    """The page came through app.py: its URL is kept and the navigation has app.py's sections, not
    Streamlit's legacy list of the pages/ folder (which has an "app" entry)."""
    assert page.get_by_text("Page not found").count() == 0
    assert page.url.split("?")[0].rstrip("/").endswith(path.rstrip("/")), page.url
    nav = page.locator('[data-testid="stSidebarNav"]')
    nav.get_by_text("Word-level text").wait_for(timeout=30_000)
    assert nav.get_by_text("Overview").count() == 1
    assert nav.get_by_text("app", exact=True).count() == 0


def test_overview_opens_at_the_root_and_links_every_page(browser):
    with streamlit_server() as (url, started):
        page, errors = _open(browser, f"{url}/", charts=0)
        page.locator("h1", has_text="Epsilon Lab").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        print(f"overview: cold start to first render {time.perf_counter() - started:.2f} s")
        _routed_by_app(page, url)
        assert_no_exception(page)
        assert "more privacy" in page.get_by_text("Smaller ε").inner_text()
        links = page.locator('[data-testid="stPageLink-NavLink"]')
        links.nth(4).wait_for(timeout=30_000)
        assert links.count() == 9  # What ε means, 5 word-level pages, Random projections, Label DP, Private learning
        assert links.nth(0).get_attribute("href") == "what_epsilon_means"
        assert sorted(links.nth(i).get_attribute("href") for i in range(1, 6)) == [
            "choose_epsilon", "neighbour_ranks", "noisy_dot_product", "sanitise_text", "why_it_happens"]
        # no embedding sidebar on the overview
        assert page.get_by_text("Word vectors").count() == 0
        # a link opens its page, which gets the embedding sidebar
        page.locator('[data-testid="stPageLink"]', has_text="Noisy dot product").click()
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=90_000)
        wait_for_app_idle(page)
        assert page.locator("h1").first.inner_text() == "Noisy dot product"
        assert page.url.split("?")[0].rstrip("/").endswith("/noisy_dot_product"), page.url  # and its settings
        assert page.get_by_text("Word vectors").count() == 1
        # the sidebar's settings follow the user to the other word-level pages, past the overview
        sidebar, nav = page.locator('[data-testid="stSidebar"]'), page.locator('[data-testid="stSidebarNav"]')
        box = page.get_by_role("spinbutton", name="Vocabulary size")
        box.fill("20000")
        box.press("Enter")
        sidebar.get_by_text("top 20,000 of 400,000 words").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        nav.get_by_text("Overview").click()
        page.locator("h1", has_text="Epsilon Lab").wait_for(timeout=60_000)
        nav.get_by_text("Sanitise text").click()
        page.get_by_text("Results (JSON)").wait_for(timeout=90_000)
        wait_for_app_idle(page)
        assert "top 20,000 of 400,000 words" in sidebar.get_by_text("dimensions").inner_text()
        assert_no_exception(page)
        assert errors == []


def test_an_uploaded_embedding_follows_the_user_to_the_other_pages(browser, tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    path = tmp_path / "small_vectors.txt"
    path.write_text("".join(f"{w} " + " ".join(f"{x:.5f}" for x in rng.standard_normal(8)) + "\n"
                            for w in ["king"] + [f"w{i}" for i in range(1499)]))
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/sanitise_text", charts=0)
        page.get_by_text("Results (JSON)").wait_for(timeout=90_000)
        wait_for_app_idle(page)
        sidebar, nav = page.locator('[data-testid="stSidebar"]'), page.locator('[data-testid="stSidebarNav"]')
        sidebar.get_by_text("Upload a file").click()
        page.get_by_text("No embedding is loaded yet").wait_for(timeout=60_000)  # the page waits for a file
        wait_for_app_idle(page)
        # the app's own settings apply wherever it is started from (server.maxUploadSize = 1 GB)
        assert "1GB per file" in sidebar.locator('[data-testid="stFileUploaderDropzone"]').inner_text()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
        sidebar.get_by_text("1,500 words × 8 dimensions").wait_for(timeout=60_000)
        page.get_by_text("Results (JSON)").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        nav.get_by_text("Neighbour ranks").click()  # the uploader is a new, empty widget on this page
        page.get_by_text("About this mechanism").wait_for(timeout=90_000)
        wait_for_app_idle(page)
        assert page.locator("h1").first.inner_text() == "Neighbour ranks"
        assert "uploaded earlier in this session" in sidebar.inner_text()
        assert "1,500 words × 8 dimensions" in sidebar.get_by_text("dimensions").inner_text()
        assert_no_exception(page)
        assert errors == []


def test_neighbour_ranks_page_renders_and_reacts_to_epsilon(browser):
    with streamlit_server() as (url, started):
        page, errors = _open(browser, f"{url}/neighbour_ranks?word=king&epsilon=10&seed=1", charts=1)
        wait_for_app_idle(page)
        first_render = time.perf_counter() - started
        print(f"cold start to first rendered chart: {first_render:.2f} s")

        _routed_by_app(page, f"{url}/neighbour_ranks")  # a direct link on a fresh server
        assert page.locator("h1").first.inner_text() == "Neighbour ranks"
        assert_no_exception(page)
        original_at_10 = _metric_value(page, "Original word")
        assert re.fullmatch(r"\d+\.\d%", original_at_10)

        # Move the epsilon slider to its smallest value with the keyboard (as a person would).
        slider = page.get_by_role("slider", name="ε (epsilon)")
        slider.focus()
        slider.press("Home")
        page.wait_for_function(
            "(old) => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
            ".find(e => e.innerText.includes('Original word'));"
            " return m && !m.innerText.includes(old); }",
            arg=original_at_10, timeout=90_000,
        )
        wait_for_app_idle(page)
        assert "epsilon=0.1" in page.url, page.url  # the view is shareable
        assert _metric_value(page, "Original word") == "0.0%"  # at ε = 0.1 the word never survives
        # the histogram and, below it, the button of the curve across ε (on request: issue 22)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=90_000)
        page.get_by_text("Draw the curve across ε").wait_for(timeout=90_000)
        page.get_by_text("About this mechanism").wait_for(timeout=90_000)  # the page's last element
        assert_no_exception(page)
        assert errors == []


def test_noisy_dot_product_page_renders_and_reacts(browser):
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/noisy_dot_product", charts=5)
        wait_for_app_idle(page)
        assert_no_exception(page)
        assert page.get_by_text("Page not found").count() == 0  # a direct link opens the page itself
        assert page.locator("h1").first.inner_text() == "Noisy dot product"
        _routed_by_app(page, f"{url}/noisy_dot_product")
        caption = page.get_by_text("standard deviation").inner_text()
        slider = page.get_by_role("slider", name="ε (epsilon)")
        slider.focus()
        started = time.perf_counter()
        slider.press("ArrowLeft")
        page.wait_for_function(
            "(old) => { const e = [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
            ".find(c => c.innerText.includes('standard deviation')); return e && e.innerText !== old; }",
            arg=caption, timeout=60_000,
        )
        wait_for_app_idle(page)
        print(f"noisy dot product: epsilon change rendered in {time.perf_counter() - started:.2f} s")
        assert "ε = 7" in page.get_by_text("standard deviation").inner_text()
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=60_000)
        page.get_by_text("Summary (JSON)").wait_for(timeout=60_000)  # the page's last element
        assert_no_exception(page)
        assert errors == []


def test_sanitise_text_page_highlights_changes_and_resamples(browser):
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/sanitise_text", charts=0)
        page.get_by_text("Results (JSON)").wait_for(timeout=90_000)  # the page's last element
        wait_for_app_idle(page)
        assert_no_exception(page)
        assert page.locator("h1").first.inner_text() == "Sanitise text"
        _routed_by_app(page, f"{url}/sanitise_text")
        assert "Privacy budget for this text: 350" in page.get_by_text("Privacy budget").inner_text()
        versions = page.locator("div.sanitised")
        assert versions.count() >= 2
        # changed words are highlighted and say, on hover, what they replaced
        changed = page.locator("div.sanitised span[title]")
        assert changed.count() > 0
        assert re.search(r"→ .* · rank [\d,]+ · distance \d+\.\d{3}", changed.first.get_attribute("title"))
        before = versions.first.inner_text()
        page.get_by_role("button", name="Resample").click()
        page.wait_for_function(
            "(old) => { const v = document.querySelector('div.sanitised'); return v && v.innerText !== old; }",
            arg=before, timeout=60_000,
        )
        wait_for_app_idle(page)
        assert_no_exception(page)
        assert errors == []


def test_why_it_happens_page_walks_through_the_steps(browser):
    with streamlit_server() as (url, _):
        # the slowest first view (Table 2 on the full vocabulary): the same 180 s as its last element below
        page, errors = _open(browser, f"{url}/why_it_happens", charts=7, timeout_ms=180_000)
        page.get_by_text("Try both mechanisms").wait_for(timeout=180_000)  # the page's last element
        wait_for_app_idle(page, timeout_ms=180_000)
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator("h1").first.inner_text() == "Why it happens"
        _routed_by_app(page, f"{url}/why_it_happens")
        assert_no_exception(page)
        assert page.locator(".js-plotly-plot").count() >= 7  # steps 1-5 (Fig. 4 sits in a closed expander)
        assert page.locator('[data-testid="stDataFrame"]').count() == 1  # Table 2
        # a word outside the vocabulary is explained, not a traceback, and the other steps stay
        box = page.get_by_label("Word", exact=True)
        box.fill("qwzxqwzxq")
        box.press("Enter")
        page.get_by_text("is not in the vocabulary").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        assert_no_exception(page)
        assert page.locator(".js-plotly-plot").count() >= 6
        assert errors == []


def test_choose_epsilon_page_runs_and_exports_the_report(browser):
    with streamlit_server() as (url, _):
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/choose_epsilon")
        run = page.get_by_role("button", name="Run", exact=True)
        run.wait_for(timeout=90_000)
        wait_for_app_idle(page)
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator("h1").first.inner_text() == "Choose epsilon"
        _routed_by_app(page, f"{url}/choose_epsilon")
        # a new text and Run at once: the run uses the new text
        page.locator("textarea").first.fill("The river bank was flooded; money stayed in the bank.")
        started = time.perf_counter()
        run.click()
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 9", timeout=180_000)
        wait_for_app_idle(page, timeout_ms=180_000)
        print(f"choose epsilon: 8 words x 8 epsilons x 20 runs, 2 mechanisms, rendered in "
              f"{time.perf_counter() - started:.2f} s")
        assert page.get_by_text("sentence spends").count() >= 2  # one answer per mechanism
        # the typed words go into the report only when included (issue 24): tick Take this analysis home's box
        page.get_by_text("Include what I typed (your words) in the downloads").click()
        wait_for_app_idle(page)
        with page.expect_download(timeout=90_000) as download:
            page.get_by_role("button", name="Report (HTML)").click()
        with open(download.value.path(), encoding="utf-8") as fh:
            report = fh.read()
        assert "plotly.js v" in report and "the river bank was flooded money stayed in" in report
        assert_no_exception(page)
        assert errors == []


def test_random_projections_page_renders_and_reacts_to_epsilon(browser):
    with streamlit_server() as (url, started):
        page, errors = _open(browser, f"{url}/random_projections", charts=1)
        page.get_by_text("Sweep results (JSON)").wait_for(timeout=180_000)  # the page's last element
        wait_for_app_idle(page, timeout_ms=180_000)
        print(f"random projections: cold start to the whole page {time.perf_counter() - started:.2f} s")
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator("h1").first.inner_text() == "Random projections"
        _routed_by_app(page, f"{url}/random_projections")
        assert_no_exception(page)
        main_chart = page.locator(".js-plotly-plot").first
        assert "precision@50" in main_chart.inner_text() and "chosen ε = 5" in main_chart.inner_text()
        assert page.get_by_text("Word vectors").count() == 0  # no embedding sidebar
        slider = page.get_by_role("slider", name="ε (epsilon)")
        slider.focus()
        changed = time.perf_counter()
        slider.press("ArrowLeft")  # 5 -> 3 (the shared ε slider's 1-1.5-2-3-5-7 steps)
        page.get_by_text("At ε = 3", exact=True).wait_for(timeout=60_000)
        wait_for_app_idle(page)
        print(f"random projections: epsilon change rendered in {time.perf_counter() - changed:.2f} s")
        page.wait_for_function(
            "() => { const p = document.querySelector('.js-plotly-plot');"
            " return p && p.innerText.includes('chosen ε = 3'); }",
            timeout=60_000)
        assert_no_exception(page)
        assert errors == []


def test_label_dp_page_renders_and_reacts_to_epsilon(browser):
    with streamlit_server() as (url, started):
        page, errors = _open(browser, f"{url}/label_dp", charts=1)
        page.get_by_text("Sweep results (JSON)").wait_for(timeout=180_000)  # the experiment tab's last element
        wait_for_app_idle(page, timeout_ms=180_000)
        print(f"label DP: cold start to the whole page {time.perf_counter() - started:.2f} s")
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator("h1").first.inner_text() == "Label DP: randomised response and retraining"
        _routed_by_app(page, f"{url}/label_dp")
        assert_no_exception(page)
        main_chart = page.locator(".js-plotly-plot").first
        assert "consensus retraining" in main_chart.inner_text() and "chosen ε = 0.405" in main_chart.inner_text()
        slider = page.get_by_role("slider", name="ε (epsilon)")
        slider.focus()
        changed = time.perf_counter()
        slider.press("ArrowRight")  # ln 1.5 -> 0.5
        page.wait_for_function(
            "() => { const p = document.querySelector('.js-plotly-plot');"
            " return p && p.innerText.includes('chosen ε = 0.5'); }",
            timeout=60_000)
        wait_for_app_idle(page)
        print(f"label DP: epsilon change rendered in {time.perf_counter() - changed:.2f} s (a new scatter run)")
        assert page.get_by_text("The data and its labels at ε = 0.5").count() == 1
        changed = time.perf_counter()
        slider.press("ArrowLeft")  # back to ln 1.5: every result cached
        page.wait_for_function(
            "() => { const p = document.querySelector('.js-plotly-plot');"
            " return p && p.innerText.includes('chosen ε = 0.405'); }",
            timeout=60_000)
        wait_for_app_idle(page)
        print(f"label DP: epsilon change rendered in {time.perf_counter() - changed:.2f} s (cached)")
        assert_no_exception(page)
        assert errors == []


def test_private_learning_page_renders_and_reacts_to_epsilon_and_n(browser):
    with streamlit_server() as (url, started):
        opened = time.perf_counter()
        page, errors = _open(browser, f"{url}/private_learning", charts=1)
        print(f"private learning: first chart {time.perf_counter() - opened:.2f} s after opening the page "
              f"({time.perf_counter() - started:.2f} s after starting the server)")
        page.get_by_text("Sweep results (JSON)").wait_for(timeout=180_000)  # the page's last element
        wait_for_app_idle(page, timeout_ms=180_000)
        print(f"private learning: cold start to the whole page {time.perf_counter() - started:.2f} s")
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator("h1").first.inner_text() == "Private learning: input vs objective vs output perturbation"
        _routed_by_app(page, f"{url}/private_learning")
        assert_no_exception(page)
        assert page.locator(".js-plotly-plot").count() == 6
        main_chart = page.locator(".js-plotly-plot").first
        assert "Input perturbation (safe calibration)" in main_chart.inner_text()
        assert "chosen n = 10,000" in main_chart.inner_text()
        assert "rate O(1/n), not a bound" in page.locator(".js-plotly-plot").nth(1).inner_text()
        assert "invalid for ε ≥ 1" in page.locator(".js-plotly-plot").nth(2).inner_text()
        assert page.get_by_text("model DP holds only if at least n honestly perturbed records arrive").count() == 1
        slider = page.get_by_role("slider", name="ε (epsilon)")
        slider.focus()
        changed = time.perf_counter()
        slider.press("ArrowLeft")  # 1 -> 0.7: a new sweep over n
        page.get_by_text("Test RMSE against n at ε = 0.7").wait_for(timeout=90_000)
        wait_for_app_idle(page, timeout_ms=90_000)
        print(f"private learning: epsilon change rendered in {time.perf_counter() - changed:.2f} s (a new sweep)")
        n_slider = page.get_by_role("slider", name="n (contributors, log scale)")
        n_slider.focus()
        n_slider.press("Home")  # n = 100: too small for the safe calibration, said plainly
        page.get_by_text("Input perturbation (safe calibration) is not available here.").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        assert "n ≥" in page.get_by_text("does not fall back to the asymptotic match").inner_text()
        assert_no_exception(page)
        assert errors == []


def test_the_checkouts_app_py_serves_the_same_app(browser):
    """The README's `streamlit run app.py` in the checkout: a direct link opens its page in the
    package's navigation, and the navigation switches pages."""
    with streamlit_server(how=CHECKOUT) as (url, _):
        page, errors = _open(browser, f"{url}/noisy_dot_product", charts=5)
        wait_for_app_idle(page)
        assert page.locator("h1").first.inner_text() == "Noisy dot product"
        _routed_by_app(page, f"{url}/noisy_dot_product")
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Overview").click()
        page.locator("h1", has_text="Epsilon Lab").wait_for(timeout=60_000)
        wait_for_app_idle(page)
        assert page.url.rstrip("/") == url, page.url
        assert page.locator('[data-testid="stPageLink-NavLink"]').count() == 9  # the overview links every page but itself
        assert_no_exception(page)
        assert errors == []
