"""Fixtures shared by every test module."""
import os

import pytest

from mlbench.cli import main

MIRROR_REASON = "needs MLBENCH_MIRROR (the offline dataset mirror)"


def pytest_runtest_setup(item):
    """A test marked ``mirror`` reads dataset files from the offline mirror: without
    ``MLBENCH_MIRROR`` (a fresh clone, no network) it is skipped, with that reason, not failed."""
    if item.get_closest_marker("mirror") and not os.environ.get("MLBENCH_MIRROR"):
        pytest.skip(MIRROR_REASON)


@pytest.fixture
def mirror():
    """The dataset mirror (``$MLBENCH_MIRROR``: a directory or a base URL); skipped without it."""
    root = os.environ.get("MLBENCH_MIRROR")
    if not root:
        pytest.skip(MIRROR_REASON)
    return root


@pytest.fixture
def cli(capsys):
    """Run ``mlbench ARGV`` in-process: ``cli(argv) -> (exit status, stdout, stderr)``.

    Arguments may be paths or numbers (converted with ``str``).  Output captured before the call is
    discarded, so the returned text is the command's own.
    """
    def run(argv):
        capsys.readouterr()
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return run
