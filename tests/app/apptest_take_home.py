"""A page's *Take this analysis home* section in AppTest: the numbers it shows, and the files it offers
(AppTest shows a download button's label and URL but not its file, so the tests record every file the
page hands to Streamlit's in-memory media storage)."""
from __future__ import annotations

from pathlib import Path

from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def record_downloads(monkeypatch) -> dict[str, bytes]:
    """From now on, every file a page offers (file name → its bytes; the latest of a name wins)."""
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
        if filename is not None and isinstance(path_or_data, (bytes, str)):
            files[filename] = path_or_data.encode() if isinstance(path_or_data, str) else bytes(path_or_data)
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", load_and_get_id)
    return files


def page_numbers(at) -> dict:
    """The numbers a page's *Take this analysis home* section shows (its JSON, the last on the page), every
    digit: what its exported script must print."""
    import json

    return json.loads(at.json[-1].value)


def open_page(page: str, query: dict, timeout: float = 300) -> AppTest:
    """The app opened on ``page`` (e.g. "pages/label_dp.py") by a link with ``query``, run; no exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    at.query_params.update(query)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``python -m privlib ARGV``, in this process."""
    from privlib.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_notebook(nb, folder, timeout: float = 900) -> tuple[str, list]:
    """Execute the notebook ``nb`` (nbformat) with a Python kernel in ``folder``, the checkout on the kernel's
    PYTHONPATH; returns (everything its cells printed, the Plotly charts its cells showed)."""
    import os

    from nbclient import NotebookClient

    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT)  # the kernel process inherits it
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        if path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = path
    outputs = [output for cell in nb.cells for output in cell.get("outputs", [])]
    text = "".join(output.get("text", "") for output in outputs if output.get("output_type") == "stream")
    return text, [output for output in outputs if "application/vnd.plotly.v1+json" in output.get("data", {})]


def run_script(text: str | bytes, folder, name: str = "exported.py", timeout: float = 900) -> str:
    """Run ``text`` (an exported script) as ``folder/name`` with ``python`` in a fresh process, in ``folder``,
    the checkout on its PYTHONPATH; what it printed (it must exit 0: else its error's end is shown)."""
    import os
    import subprocess
    import sys

    path = Path(folder) / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, str(path)], check=False, cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def opened_by_link(page: str, link: dict, settings) -> tuple:
    """`open_page` by a shared link, and the page's settings as read back from the link it writes (all usable)."""
    at = open_page(page, link)
    values, problems = settings.from_query(dict(at.query_params))
    assert problems == []
    return at, values
