"""End-to-end, in headless Chromium: a shared link reloads the same view, and a page's settings file
goes out and comes back in unchanged (issue 24)."""
from __future__ import annotations

import json

import pytest
from browser import (
    CHARTS_JS,
    assert_no_exception,
    streamlit_server,
    wait_for_app_idle,
)

pytestmark = pytest.mark.browser

#: The first chart's traces (name, x and y of each, as Plotly decoded them), without Plotly's warm-up chart.
FIRST_CHART_JS = ("() => { const c = [...document.querySelectorAll('.js-plotly-plot')]"
                  ".filter(e => !e.closest('.st-key-plotly_warmup'))[0];"
                  " return JSON.stringify(c._fullData.map(t => [t.name, Array.from(t.x || []), Array.from(t.y || [])]));"
                  " }")


def _open(browser, url: str, charts: int):
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_function(f"() => {CHARTS_JS} >= {charts}"
                           " || document.querySelector('[data-testid=\"stException\"]') !== null", timeout=90_000)
    wait_for_app_idle(page)
    assert_no_exception(page)
    return page, errors


def _download(page, name: str) -> bytes:
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name=name).click()
    with open(download.value.path(), "rb") as fh:
        return fh.read()


def test_a_shared_link_and_a_settings_file_restore_the_noisy_dot_product_view(browser, tmp_path):
    link = "noisy_dot_product?epsilon=3.0&samples=10000&seed=11&word=queen&normalise=false"
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=5)
        first = page.evaluate(FIRST_CHART_JS)
        assert len(first) > 10_000  # the samples and the exact density
        shared = page.url  # the link the page wrote: every setting
        assert "word=queen" in shared and "seed=11" in shared
        again, more_errors = _open(browser, shared, charts=5)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        again.close()

        settings = _download(page, "Settings file (JSON)")
        assert json.loads(settings)["settings"]["word"] == "queen"
        slider = page.get_by_role("slider", name="ε (epsilon)")  # move away from the saved view
        slider.focus()
        slider.press("ArrowRight")
        page.wait_for_function("() => !location.search.includes('epsilon=3.0')", timeout=60_000)
        wait_for_app_idle(page)
        assert page.evaluate(FIRST_CHART_JS) != first
        path = tmp_path / "noisy_dot_product-settings.json"
        path.write_bytes(settings)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').last.set_input_files(str(path))
        page.wait_for_function("() => location.search.includes('epsilon=3.0')", timeout=60_000)
        wait_for_app_idle(page)
        page.wait_for_function(f"() => {CHARTS_JS} >= 5", timeout=60_000)
        assert page.evaluate(FIRST_CHART_JS) == first  # file → page: the same view
        assert _download(page, "Settings file (JSON)") == settings  # page → file: unchanged
        assert_no_exception(page)
        assert errors == [] and more_errors == []


def test_a_shared_link_restores_the_label_dp_view(browser):
    # the two-point law with another ε, size, randomiser, retraining mode, number of runs and seed; every
    # sweep starts by itself (tests/conftest.py fixes Label DP's timings), so all eleven charts are drawn
    link = "label_dp?epsilon=1.0&dataset=twopoint&n=200&d=2&randomiser=rr-prior&mode=full&repeats=3&seed=7"
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=11)
        first = page.evaluate(FIRST_CHART_JS)  # the accuracy against ε: mean ± SD of the 3 runs from seed 7
        assert "full retraining" in first
        shared = page.url  # the link the page wrote: every setting
        assert "seed=7" in shared and "dataset=twopoint" in shared and "delta_sep=&" in shared
        again, more_errors = _open(browser, shared, charts=11)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        again.close()
        assert_no_exception(page)
        assert errors == [] and more_errors == []


def test_a_shared_link_restores_the_private_learning_view(browser):
    link = "private_learning?epsilon=2.0&n=1000&task=classification&repeats=5&seed=7&methods=non_private,obj_gauss"
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=6)
        first = page.evaluate(FIRST_CHART_JS)  # the test metric against n
        assert "Obj-Gauss" in first and "Output" not in first
        shared = page.url  # the link the page wrote: every setting
        assert "seed=7" in shared and "methods=non_private%2Cobj_gauss" in shared.replace(",", "%2C")
        again, more_errors = _open(browser, shared, charts=6)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert_no_exception(again)
        assert errors == [] and more_errors == []


def test_a_shared_link_and_a_settings_file_restore_the_neighbour_ranks_view(browser, tmp_path):
    # another word, ε, sample count, K, seed and vocabulary, and a sampled mechanism with a parameter changed: the
    # rank histogram (the first chart) is drawn from the same 1,000 outputs in both tabs
    link = ("neighbour_ranks?word=queen&epsilon=20.0&samples=1000&close=50&seed=7&vocab_size=50000"
            "&mechanism=vickrey&vickrey.t=0.5")
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=1)
        first = page.evaluate(FIRST_CHART_JS)
        assert "Vickrey" in page.content() and "Ranks of 1,000 outputs" in page.content()
        shared = page.url  # the link the page wrote: every setting
        assert "vickrey.t=0.5" in shared and "seed=7" in shared and "candidates=" in shared
        again, more_errors = _open(browser, shared, charts=1)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        assert_no_exception(again)
        again.close()

        settings = _download(page, "Settings file (JSON)")
        assert json.loads(settings)["settings"]["vickrey.t"] == 0.5
        slider = page.get_by_role("slider", name="ε (epsilon)")  # move away from the saved view
        slider.focus()
        slider.press("ArrowRight")
        page.wait_for_function("() => !location.search.includes('epsilon=20.0')", timeout=60_000)
        wait_for_app_idle(page)
        assert page.evaluate(FIRST_CHART_JS) != first
        path = tmp_path / "neighbour_ranks-settings.json"
        path.write_bytes(settings)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').last.set_input_files(str(path))
        page.wait_for_function("() => location.search.includes('epsilon=20.0')", timeout=60_000)
        wait_for_app_idle(page)
        page.wait_for_function(f"() => {CHARTS_JS} >= 1", timeout=60_000)
        assert page.evaluate(FIRST_CHART_JS) == first  # file → page: the same view
        assert _download(page, "Settings file (JSON)") == settings  # page → file: unchanged
        assert_no_exception(page)
        assert errors == [] and more_errors == []


def test_a_shared_link_restores_the_what_epsilon_means_view(browser):
    # a μ-GDP guarantee with another group and the linear FPR axis, and an audit of another topic's mechanism with a
    # parameter changed (the audit runs on request: one chart, the guarantee's curve)
    link = ("what_epsilon_means?kind=gdp&mu=0.8&group=4&log_fpr=false&audit.topic=projections"
            "&audit.mechanism=dp-oporp&audit.dp-oporp.k=32&audit.seed=7")
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=1)
        first = page.evaluate(FIRST_CHART_JS)
        assert "the guarantee's limit (μ = 0.8)" in first
        shared = page.url  # the link the page wrote: every setting
        assert "mu=0.8" in shared and "audit.dp-oporp.k=32" in shared and "epsilon=&" in shared
        again, more_errors = _open(browser, shared, charts=1)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        assert_no_exception(again)
        assert errors == [] and more_errors == []


def test_a_shared_link_and_a_settings_file_restore_the_choose_epsilon_view(browser, tmp_path):
    # random vocabulary words in a smaller vocabulary, another seed, an exact and a sampled mechanism, another grid, runs,
    # K and the trade-off chart's privacy measure; the page computes on request, so each tab presses Run
    link = ("choose_epsilon?vocab_size=20000&seed=5&source=random&words=8&mechanisms=santext%2Cmultivariate-laplace"
            "&epsilons=1%2C5%2C20&samples=10&close=50&privacy_metric=distinct")

    def run(url):
        page, errors = _open(browser, url, charts=0)
        page.get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function(f"() => {CHARTS_JS} >= 9", timeout=180_000)
        wait_for_app_idle(page, timeout_ms=180_000)
        assert_no_exception(page)
        return page, errors

    with streamlit_server() as (url, _):
        page, errors = run(f"{url}/{link}")
        first = page.evaluate(FIRST_CHART_JS)
        assert "SanText" in first and "8 distinct vocabulary words" in page.content()
        shared = page.url  # the link the page wrote: every setting
        assert "privacy_metric=distinct" in shared and "seed=5" in shared and "text=" not in shared
        again, more_errors = run(shared)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        again.close()

        settings = _download(page, "Settings file (JSON)")
        assert json.loads(settings)["settings"]["mechanisms"] == ["santext", "multivariate-laplace"]
        length = page.get_by_role("spinbutton", name="Sentence length L")  # a target: it applies to the results at once
        length.fill("7")
        length.press("Enter")
        page.wait_for_function("() => location.search.includes('sentence_length=7')", timeout=60_000)
        wait_for_app_idle(page)
        path = tmp_path / "choose_epsilon-settings.json"
        path.write_bytes(settings)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').last.set_input_files(str(path))
        page.wait_for_function("() => location.search.includes('sentence_length=20')", timeout=60_000)
        wait_for_app_idle(page)
        assert page.evaluate(FIRST_CHART_JS) == first  # file → page: the same view
        assert _download(page, "Settings file (JSON)") == settings  # page → file: unchanged
        assert_no_exception(page)
        assert errors == [] and more_errors == []


def test_a_shared_link_restores_the_random_projections_view(browser):
    # the digits with another ε, k, R, seed, mechanisms and mechanism attacked: the precision chart (the first) is
    # the same sweep in both tabs, its means over the 3 repetitions from seed 7
    link = ("random_projections?dataset=digits&k=16&epsilon=2.0&seed=7&R=20&mechanisms=dp-oporp,dp-signrp-rr"
            "&attack_mechanism=dp-signrp-rr")
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=14)
        first = page.evaluate(FIRST_CHART_JS)
        assert "DP-SignRP-RR" in first and "DP-SignOPORP-RR" not in first and "chosen ε = 2" in first
        shared = page.url  # the link the page wrote: every setting
        assert "seed=7" in shared and "R=20" in shared and "attack_mechanism=dp-signrp-rr" in shared
        again, more_errors = _open(browser, shared, charts=14)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        assert_no_exception(again)
        again.close()
        assert errors == [] and more_errors == []


def test_a_shared_link_restores_the_why_it_happens_view(browser):
    # another seed, integer noise, draw count, map ε, places and word: the first chart (step 1's number line) is
    # drawn from the same 10,000 draws per ε in both tabs; Table 2 for 1,000 words (the default) starts by itself
    link = ("why_it_happens?seed=11&noise_1d=geometric&samples_1d=10000&map_epsilon=0.01&places=Alaska%2CTexas"
            "&word=queen")
    with streamlit_server() as (url, _):
        page, errors = _open(browser, f"{url}/{link}", charts=5)
        first = page.evaluate(FIRST_CHART_JS)
        assert "simulated (10,000 draws per ε)" in first
        shared = page.url  # the link the page wrote: every setting
        assert "seed=11" in shared and "noise_1d=geometric" in shared and "word=queen" in shared
        again, more_errors = _open(browser, shared, charts=5)  # the shared link, in a new tab
        assert again.evaluate(FIRST_CHART_JS) == first
        assert again.url == shared
        assert_no_exception(again)
        again.close()
        assert errors == [] and more_errors == []
