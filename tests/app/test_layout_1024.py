"""End-to-end: at a 1024×768 window (a small laptop), nothing a page shows is cut off.

One server and one headless Chromium tab (Debian's, tests/app/browser.py) visit every page of the
app; on each, once the run has ended and every chart is drawn, with every expander opened and each
tab shown in turn:

- every Plotly chart's text — title, axis titles, tick labels, legend entries, annotations — lies
  inside the chart's SVG box (text past it is clipped by the browser), a legend entry inside its
  legend's box (a legend too long for its box scrolls, hiding entries), and none is shortened with
  a trailing ellipsis;
- every table (st.dataframe, drawn on a canvas by Glide Data Grid: its columns' titles and widths,
  and its cells, are read from the grid's own React props, found from the canvas) has each column
  header wider than its text and inside the table's frame (a column past the frame's right edge is
  cut, or hidden behind a horizontal scroll), and no cell shows "None" (a missing value shown as a
  word); HTML tables likewise have no "None";
- no text is cut by CSS with an ellipsis (``text-overflow: ellipsis`` with text wider than its box:
  Streamlit does this to metric labels, multiselect tags, select boxes, tab labels).

The Choose epsilon page draws its charts on request: its Run button is pressed first.
"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    assert_no_exception,
    require_chromium,
    streamlit_server,
    wait_for_app_idle,
)

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}
#: Every page of the app (pages/*.py in the checkout); the navigation must list exactly these.
PAGES = sorted(p.stem for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
#: Pages that compute their charts on request: the button pressed before the check.
ON_REQUEST = {"choose_epsilon": "Run", "what_epsilon_means": "Run the audit"}
TIMEOUT_MS = 300_000

CHARTS_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .filter(e => !e.closest('.st-key-plotly_warmup') && e.getBoundingClientRect().width > 0)
  .every(e => e.querySelector('.js-plotly-plot .main-svg'))"""

#: The Plotly charts' text outside their box or ending with an ellipsis: a list of sentences.
CHART_TEXT_JS = r"""
() => {
  // a text's lines (Plotly's <br> makes tspans) joined by a space
  const textOf = t => {
    const lines = [...t.querySelectorAll('tspan.line')];
    return (lines.length ? lines.map(l => l.textContent.trim()).join(' ') : t.textContent).trim();
  };
  const problems = [];
  const charts = [...document.querySelectorAll('.js-plotly-plot')]
    .filter(c => !c.closest('.st-key-plotly_warmup'));
  charts.forEach((chart, i) => {
    const svg = chart.querySelector('svg.main-svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;  // not displayed now (another tab)
    const title = chart.querySelector('.gtitle');
    const name = `chart ${i + 1}` + (title && textOf(title) ? ` "${textOf(title)}"` : '');
    const legendBg = chart.querySelector('.legend .bg');
    const legendBox = legendBg ? legendBg.getBoundingClientRect() : null;
    for (const t of chart.querySelectorAll('text')) {
      const text = textOf(t);
      if (!text || t.closest('.hoverlayer')) continue;
      const r = t.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const kind = t.closest('.legend') ? 'legend entry' : t.closest('.annotation') ? 'annotation'
        : t.closest('.g-gtitle') ? 'title' : t.closest('[class*="title"]') ? 'axis title' : 'tick label';
      const out = [];
      if (r.left < box.left - 1) out.push(`${Math.round(box.left - r.left)} px past the left`);
      if (r.right > box.right + 1) out.push(`${Math.round(r.right - box.right)} px past the right`);
      if (r.top < box.top - 1) out.push(`${Math.round(box.top - r.top)} px past the top`);
      if (r.bottom > box.bottom + 1) out.push(`${Math.round(r.bottom - box.bottom)} px past the bottom`);
      if (kind === 'legend entry' && legendBox && out.length === 0
          && (r.bottom > legendBox.bottom + 1 || r.top < legendBox.top - 1 || r.right > legendBox.right + 1))
        out.push('outside its legend box: hidden until the legend is scrolled');
      if (out.length)
        problems.push(`${name}: ${kind} "${text}" cut off (${out.join(', ')} `
                      + `of the ${Math.round(box.width)}×${Math.round(box.height)} chart)`);
      if (/(…|\.\.\.)$/.test(text)) problems.push(`${name}: ${kind} "${text}" shortened with an ellipsis`);
    }
  });
  return problems;
}
"""

#: The tables' cut column headers and "None" cells: a list of sentences.
TABLES_JS = r"""
async () => {
  await document.fonts.ready;  // the headers are measured in the grid's own font
  const problems = [];
  const frames = [...document.querySelectorAll('[data-testid="stDataFrame"]')];
  frames.forEach((frame, i) => {
    const canvas = frame.querySelector('canvas[data-testid="data-grid-canvas"]');
    if (!canvas) { problems.push(`table ${i + 1}: no grid canvas found (has Streamlit changed?)`); return; }
    if (canvas.getBoundingClientRect().width === 0) return;  // not displayed now (another tab)
    // The grid component's props: its columns (title, width in px), its visible width and its cells.
    const fiberKey = Object.keys(canvas).find(k => k.startsWith('__reactFiber$'));
    let fiber = fiberKey ? canvas[fiberKey] : null, props = null;
    while (fiber) {
      const p = fiber.memoizedProps;
      if (p && Array.isArray(p.columns) && typeof p.getCellContent === 'function' && typeof p.rows === 'number'
          && typeof p.width === 'number' && p.columns.every(c => typeof c.width === 'number')) { props = p; break; }
      fiber = fiber.return;
    }
    if (!props) { problems.push(`table ${i + 1}: its columns could not be read (has Streamlit changed?)`); return; }
    const titles = props.columns.map(c => c.title);
    const label = `table ${i + 1} [${titles.filter(t => t).join(' | ')}]`;
    const style = getComputedStyle(frame.querySelector('.stDataFrameGlideDataEditor') || frame);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${style.getPropertyValue('--gdg-header-font-style').trim() || '400 14px'} `
      + `${style.getPropertyValue('--gdg-font-family').trim() || 'sans-serif'}`;
    const padding = parseFloat(style.getPropertyValue('--gdg-cell-horizontal-padding')) || 8;
    let left = 0;
    for (const c of props.columns) {
      const right = left + c.width;
      if (c.title) {
        const needed = ctx.measureText(c.title).width + 2 * padding + (c.icon ? 28 : 0);
        if (needed > c.width + 0.5)
          problems.push(`${label}: column header "${c.title}" cut (${Math.round(needed)} px of text `
                        + `in a ${Math.round(c.width)} px column)`);
        else if (right > props.width + 1)
          problems.push(`${label}: column "${c.title}" ${left >= props.width ? 'hidden' : 'cut'} past the `
                        + `table's right edge (columns ${Math.round(right)} px wide in a ${Math.round(props.width)} px frame; `
                        + `seen only by scrolling sideways)`);
      }
      left = right;
    }
    const nones = new Set();
    for (let row = 0; row < Math.min(props.rows, 5000); row++) {
      for (let col = 0; col < props.columns.length; col++) {
        const cell = props.getCellContent([col, row]);
        const shown = cell.displayData !== undefined ? cell.displayData : cell.data;
        if (cell.isMissingValue || /\bNone\b/.test(String(shown))) nones.add(titles[col] || '(index)');
      }
    }
    for (const title of nones) problems.push(`${label}: column "${title}" shows "None"`);
  });
  for (const cell of document.querySelectorAll('[data-testid="stMain"] table td, [data-testid="stMain"] table th')) {
    if (cell.closest('canvas')) continue;  // the grid's accessible copy of its cells, checked above
    if (/\bNone\b/.test(cell.textContent))
      problems.push(`HTML table cell shows "None": "${cell.textContent.trim().slice(0, 80)}"`);
  }
  return problems;
}
"""

#: Text the browser cuts with an ellipsis (CSS text-overflow), in the page and the sidebar.
CSS_ELLIPSIS_JS = r"""
() => {
  const problems = [];
  const roots = ['[data-testid="stMain"]', '[data-testid="stSidebarUserContent"]']
    .map(s => document.querySelector(s)).filter(e => e);
  for (const root of roots) {
    for (const e of root.querySelectorAll('*')) {
      if (e.closest('.js-plotly-plot, [data-testid="stDataFrame"]')) continue;
      if (e.clientWidth === 0 || e.scrollWidth <= e.clientWidth + 1) continue;
      if (getComputedStyle(e).textOverflow !== 'ellipsis') continue;
      const text = e.textContent.trim();
      if (!text) continue;
      // the widget it belongs to (e.g. stMetricLabel, stMultiSelect, stDownloadButton)
      const holder = e.closest('[data-testid]:not([data-testid="stMarkdownContainer"])');
      const where = holder ? holder.getAttribute('data-testid') : e.tagName.toLowerCase();
      problems.push(`${where}: "${text.slice(0, 120)}" cut with an ellipsis (${e.scrollWidth} px of text in ${e.clientWidth} px)`);
    }
  }
  return problems;
}
"""


@pytest.fixture(scope="module")
def app_tab():
    """One server and one 1024×768 tab for every page: (tab, the app's URL)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, streamlit_server() as (url, _):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        tab = browser.new_page(viewport=VIEWPORT)
        yield tab, url
        browser.close()


def _settle(tab) -> None:
    """Wait until the run has ended and every displayed chart is drawn."""
    wait_for_app_idle(tab, timeout_ms=TIMEOUT_MS)
    tab.wait_for_function(CHARTS_DRAWN_JS, timeout=TIMEOUT_MS)
    tab.wait_for_timeout(500)  # Plotly's relayout to the column's width


def _problems(tab) -> list[str]:
    return tab.evaluate(CHART_TEXT_JS) + tab.evaluate(TABLES_JS) + tab.evaluate(CSS_ELLIPSIS_JS)


def test_the_navigation_lists_every_page(app_tab):
    tab, url = app_tab
    tab.goto(f"{url}/")
    wait_for_app_idle(tab, timeout_ms=TIMEOUT_MS)
    links = tab.locator('[data-testid="stSidebarNav"] a')
    links.first.wait_for(timeout=60_000)
    # the overview is the root URL; every other page is its file's name
    listed = [urlparse(links.nth(i).get_attribute("href")).path.strip("/") or "overview" for i in range(links.count())]
    assert sorted(listed) == PAGES


@pytest.mark.parametrize("name", PAGES)
def test_nothing_is_cut_off_at_1024x768(app_tab, name):
    tab, url = app_tab
    tab.goto(f"{url}/" if name == "overview" else f"{url}/{name}")  # the overview is the root URL
    _settle(tab)
    assert tab.get_by_text("Page not found").count() == 0
    if name in ON_REQUEST:
        tab.get_by_role("button", name=ON_REQUEST[name], exact=True).click()
        tab.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=TIMEOUT_MS)  # the run has drawn
        _settle(tab)
    assert_no_exception(tab)
    assert tab.locator('[data-testid="stPlotlyChart"], [data-testid="stDataFrame"]').count() > 0 \
        or name == "overview", f"{name}: nothing to check (no chart, no table)"
    # every expander opened (in the browser alone: no rerun)
    tab.evaluate("""() => document.querySelectorAll('[data-testid="stExpander"] details:not([open]) > summary')
                            .forEach(s => s.click())""")
    tab.wait_for_timeout(300)
    _settle(tab)
    problems = dict.fromkeys(_problems(tab))
    tabs = tab.locator('[data-testid="stTabs"] [role="tab"]')
    for i in range(tabs.count()):
        tabs.nth(i).click()
        tab.wait_for_timeout(300)
        _settle(tab)
        problems.update(dict.fromkeys(_problems(tab)))
    assert not problems, f"{name} at 1024×768:\n" + "\n".join(problems)
