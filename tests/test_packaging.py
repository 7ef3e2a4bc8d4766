"""The project installs: `pip install .` builds a wheel with the library, its data files and the app
(the top-level pages/ folder as epsilon_lab/pages; no top-level app.py, ui.py or pages/), whose `epsilon-lab` command and `python -m privlib` work
from any folder; `pip install -e .` too.

Nothing is downloaded: the builds run without build isolation (setuptools comes from
requirements-test.txt), the installs take no dependencies from an index (--no-deps --no-index), and
each fresh environment sees the running one's packages through a .pth file. The build reads a copy
of the project, so it leaves no build/ or *.egg-info in the checkout.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: What the build reads, and the checkout's app.py (a top-level module the wheel must not install).
SOURCES = ["pyproject.toml", "setup.py", "README.md", "requirements.txt", "requirements-test.txt", "privlib",
           "epsilon_lab", "pages", "app.py"]
#: The wheel's top-level entries: the library and the app, nothing else.
TOP_LEVEL = {"privlib", "epsilon_lab"}
TIMEOUT = 300


def run(args, cwd, check=True) -> subprocess.CompletedProcess:
    """Run ``args`` in ``cwd`` as a user would: no PYTHONPATH, so nothing comes from the checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                            check=False)
    if check:
        assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
    return result


def pip(*args) -> None:
    run([sys.executable, "-m", "pip", "-q", *args], cwd=ROOT)


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def fresh_venv(path: Path) -> Path:
    """A new environment without pip that also sees the running environment's packages (the
    dependencies) after its own; its python."""
    run([sys.executable, "-m", "venv", "--without-pip", path], cwd=ROOT)
    python = bin_dir(path) / "python"
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=ROOT).stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "dependencies-of-the-test-environment.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    return python


def source_files(package: str) -> set[str]:
    """Every file of ``package`` in the checkout (no caches), as paths in a wheel."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / package).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(ROOT / name, src / name)
    return src


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    pip("wheel", source, "--no-deps", "--no-build-isolation", "--no-index", "-w", dist)
    (built,) = dist.glob("epsilon_lab-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """`pip install .` in a fresh environment: its python."""
    python = fresh_venv(tmp_path_factory.mktemp("venv") / "venv")
    pip("--python", python, "install", "--no-deps", "--no-index", wheel)
    return python


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> Path:
    """An empty folder outside the checkout, where the installed commands are run."""
    return tmp_path_factory.mktemp("elsewhere")


def requirement_lines(name: str) -> list[str]:
    lines = (ROOT / name).read_text().splitlines()
    return sorted(str(Requirement(line)) for line in lines if line.strip() and not line.lstrip().startswith("#"))


def test_the_wheel_declares_the_requirements_files_and_the_command(wheel):
    with zipfile.ZipFile(wheel) as whl:
        info = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(whl.read(info).decode())
        entry_points = whl.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert metadata["Name"] == "epsilon-lab" and metadata["Requires-Python"] == ">=3.11"
    requires = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    assert sorted(str(r) for r in requires if r.marker is None) == requirement_lines("requirements.txt")
    assert metadata.get_all("Provides-Extra") == ["dev"]
    dev = sorted(str(Requirement(f"{r.name}{r.specifier}")) for r in requires if r.marker is not None)
    assert dev == requirement_lines("requirements-test.txt")
    assert "epsilon-lab = epsilon_lab.command:main" in entry_points
    # requirements-dev.txt, the README's test install, is both files
    assert [line for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
            if line and not line.startswith("#")] == ["-r requirements.txt", "-r requirements-test.txt"]


def test_the_wheel_holds_the_library_its_data_and_the_app_and_nothing_else(wheel):
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
    # the top-level pages/ folder installs as epsilon_lab/pages (setup.py)
    pages = {f"epsilon_lab/{name}" for name in source_files("pages") if name.endswith(".py")}
    expected = source_files("privlib") | source_files("epsilon_lab") | pages
    assert expected <= names, sorted(expected - names)
    assert {"privlib/words/data/stopwords_en.txt", "privlib/words/data/us_state_centres.csv",
            "epsilon_lab/app.py", "epsilon_lab/ui.py", "epsilon_lab/pages/overview.py",
            "epsilon_lab/.streamlit/config.toml"} <= names
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == TOP_LEVEL  # no app.py, ui.py, pages/


def test_the_packaged_streamlit_settings_are_the_checkouts():
    """`streamlit run app.py` in the checkout reads .streamlit/config.toml; the installed app reads the
    copy beside epsilon_lab/app.py: they must be the same settings."""
    assert (ROOT / ".streamlit" / "config.toml").read_text() == (ROOT / "epsilon_lab" / ".streamlit" / "config.toml").read_text()


def test_the_installed_commands_work_from_any_folder(installed, elsewhere):
    bin_ = installed.parent
    where = run([installed, "-c", "import privlib, epsilon_lab; print(privlib.__file__); print(epsilon_lab.__file__)"],
                elsewhere).stdout.split()
    assert all(Path(p).is_relative_to(bin_.parent) for p in where), where  # the installed copies
    help_ = run([bin_ / "epsilon-lab", "--help"], elsewhere).stdout
    assert help_.startswith("usage: epsilon-lab") and "epsilon-lab app" in help_ and "sanitize" in help_
    mechanisms = json.loads(run([bin_ / "epsilon-lab", "mechanisms", "--json"], elsewhere).stdout)
    assert mechanisms == json.loads(run([sys.executable, "-m", "privlib", "mechanisms", "--json"], ROOT).stdout)
    dot = json.loads(run([installed, "-m", "privlib", "dot", "--n", "5", "--epsilon", "1", "--json"], elsewhere).stdout)
    assert dot["n"] == 5 and dot["epsilon"] == 1.0 and dot["cdf"][0] == pytest.approx(0.5)
    # the stop words and US state centres are read from the installed data files
    code = ("from privlib.words.text import stop_words; from privlib.words.theory.analogies import PointMap; "
            "print(len(stop_words()), len(PointMap.us_states().names))")
    data = run([installed, "-c", code], elsewhere).stdout.split()
    assert int(data[0]) > 100 and int(data[1]) == 50, data
    for name in ("app", "ui", "pages"):  # no top-level modules from the checkout
        assert run([installed, "-c", f"import {name}"], elsewhere, check=False).returncode != 0, name


def test_the_installed_app_runs(installed, elsewhere):
    """The installed epsilon_lab/app.py (what `epsilon-lab app` runs) routes to its installed pages."""
    code = ("import json, pathlib, epsilon_lab; from streamlit.testing.v1 import AppTest; "
            "at = AppTest.from_file(str(pathlib.Path(epsilon_lab.__file__).with_name('app.py')), default_timeout=120).run(); "
            "print(json.dumps([[e.value for e in at.exception], at.title[0].value, "
            "sorted(link.proto.page for link in at.get('page_link'))]))")
    exceptions, title, links = json.loads(run([installed, "-c", code], elsewhere).stdout.splitlines()[-1])
    assert exceptions == [] and title == "Epsilon Lab"
    assert links == sorted(p.stem for p in (ROOT / "pages").glob("*.py") if p.stem != "overview")


def _listening_addresses(port: int) -> set[str]:
    """The local IPv4/IPv6 addresses (hex, as in /proc/net/tcp*) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
                found.add(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads the listening sockets from /proc/net (Linux)")
def test_epsilon_lab_app_serves_the_installed_app_on_this_computer_only(installed, elsewhere):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([installed.parent / "epsilon-lab", "app", "--server.port", str(port),
                             "--server.headless", "true", "--server.fileWatcherType", "none"],
                            cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        started = time.perf_counter()
        while True:
            assert proc.poll() is None, proc.stdout.read().decode(errors="replace")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.perf_counter() - started < 60, "the app did not start within 60 s"
            time.sleep(0.2)
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_an_editable_install_works_from_any_folder(source, tmp_path_factory, elsewhere):
    """`pip install -e .`: the commands run the project's own files, and only its two packages are
    importable (not the checkout's app.py)."""
    python = fresh_venv(tmp_path_factory.mktemp("editable") / "venv")
    pip("--python", python, "install", "--no-deps", "--no-index", "--no-build-isolation", "-e", source)
    where = run([python, "-c", "import privlib, epsilon_lab; print(privlib.__file__); print(epsilon_lab.__file__)"],
                elsewhere).stdout.split()
    assert [Path(p) for p in where] == [source / "privlib" / "__init__.py", source / "epsilon_lab" / "__init__.py"]
    assert json.loads(run([python.parent / "epsilon-lab", "mechanisms", "--json"], elsewhere).stdout)["mechanisms"]
    assert run([python, "-c", "import app"], elsewhere, check=False).returncode != 0
