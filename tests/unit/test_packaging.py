"""The distribution's metadata: one version, the extras users install, a valid citation file."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import mlbench

ROOT = Path(__file__).resolve().parents[2]


def _source_file(name):
    path = ROOT / name
    if not path.is_file():
        pytest.skip(f"{name} is not here (an installed copy, not a source tree)")
    return path


def test_python_dash_m_mlbench_is_the_cli():
    proc = subprocess.run([sys.executable, "-m", "mlbench", "--version"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"mlbench, version {mlbench.__version__}"


def test_the_version_has_one_source_and_the_extras_exist():
    tomllib = pytest.importorskip("tomllib")          # Python >= 3.11
    meta = tomllib.loads(_source_file("pyproject.toml").read_text())
    assert meta["project"]["dynamic"] == ["version"] and "version" not in meta["project"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mlbench.__version__"}
    extras = meta["project"]["optional-dependencies"]
    assert {"dask", "parquet", "docs", "test", "dev"} <= set(extras)
    assert any(dep.startswith("build") for dep in extras["dev"])
    assert "cython>=3.0" in meta["build-system"]["requires"]      # sdist builds without Cython
    data = meta["tool"]["setuptools"]["package-data"]["mlbench"]
    assert "methods/index.json" in data and "_ext/*.pyx" in data


def test_citation_file_names_this_version():
    cff = yaml.safe_load(_source_file("CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["version"] == mlbench.__version__
    assert cff["message"] and cff["title"] and cff["authors"]
    assert "## Unreleased" in _source_file("CHANGELOG.md").read_text()
