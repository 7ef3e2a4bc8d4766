"""The packages of the wheel, with the one mapping pyproject.toml cannot say beside a package search:
the top-level ``pages/`` folder (the project's layout: pages beside app.py, privlib/ and
epsilon_lab/) installs as ``epsilon_lab/pages``, beside the installed router epsilon_lab/app.py.
Everything else is in pyproject.toml. No top-level app.py or pages/ goes into site-packages."""
from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["privlib", "privlib.*", "epsilon_lab", "epsilon_lab.*"]), "epsilon_lab.pages"],
    package_dir={"epsilon_lab.pages": "pages"},
)
