"""Fixtures shared by every test module."""
import pytest

from mlbench.cli import main


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
