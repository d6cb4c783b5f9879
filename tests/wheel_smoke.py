"""Install mlbench the way a user does and run it: the wheel smoke test of CI (``.ci/run``).

    python3 tests/wheel_smoke.py [--wheel DIST/mlbench-*.whl] [--keep]

Builds the sdist (from a copy of the source tree) and, from it, the wheel (``python -m build`` in
a throwaway virtual environment, with build isolation, so Cython comes from the build
requirements), installs the wheel NON-editable into a fresh virtual environment in a temporary
directory, and from that directory (not the checkout, so nothing is imported from the source tree)
runs ``mlbench --help``, every subcommand's ``--help`` (the list comes from the installed CLI),
``python -m mlbench --version``, ``mlbench methods``, ``mlbench costs`` and ``mlbench methods
mlknn`` (which say in one line that the paper results come with a source checkout only), a small
``mlbench run`` on the embedded emotions data, ``mlbench report`` and ``mlbench check`` of its
results.  Exit status 0 when every step passed; a failing step prints its command and output and
exits 1.  Needs only Python >= 3.10 with ``venv`` and access to PyPI.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
#: the run: two fast methods, one repeat of the quick protocol, on the data inside the package
RUN = ["run", "--protocol", "quick", "--methods", "br-lr,mlknn", "--datasets", "emotions",
       "--repeats", "1", "--jobs", "1", "-q"]
#: every step's environment: nothing on PYTHONPATH (a source tree there, with the mlbench.egg-info the
#: sdist step leaves, would make pip think mlbench is installed and the CLI import the checkout)
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "MLBENCH_MIRROR")}


def step(argv, cwd, env=ENV, what=None, status=0):
    """Run one command; unless it exits with ``status``, print it with its output and exit 1.
    Returns its stdout (its stderr when ``status`` is not 0)."""
    start = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    label = what or " ".join(Path(str(a)).name if i == 0 else str(a) for i, a in enumerate(argv))
    if proc.returncode != status:
        print(f"wheel smoke: FAILED ({proc.returncode}, not {status}) after {took:.1f} s: {label}\n"
              f"--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}", file=sys.stderr)
        sys.exit(1)
    print(f"ok {took:6.1f} s  {label}", flush=True)
    return proc.stdout if status == 0 else proc.stderr


#: what a copy of the source tree leaves out: version control, environments and build products
#: (none of them goes into the sdist, whose MANIFEST.in excludes compiled files)
NOT_SOURCE = (".git", ".venv", ".ci-data", "build", "dist", "site", "*.egg-info", "__pycache__",
              ".pytest_cache", "*.so", "*.c", "*.cpp")


def build_wheel(work):
    """sdist, then the wheel from the sdist, in a throwaway environment; the wheel's path.  The
    sdist is made from a copy of the source tree: its build writes mlbench.egg-info where it
    runs, and CI installs and tests the checkout at the same time (.ci/run)."""
    venv = work / "build-venv"
    source = work / "source"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns(*NOT_SOURCE), symlinks=True)
    step([sys.executable, "-m", "venv", venv], work)
    step([venv / "bin" / "python", "-m", "pip", "install", "-q", "build>=1"], work)
    step([venv / "bin" / "python", "-m", "build", "--outdir", work / "dist", source], work,
         what="python -m build (sdist, then the wheel from it)")
    sdist = next((work / "dist").glob("mlbench-*.tar.gz"))
    listing = step(["tar", "-tzf", sdist], work, what="sdist contents")
    for needed in ("setup.py", "pyproject.toml", "mlbench/_ext/_arff.pyx", "mlbench/_ext/_sort.pxd",
                   "mlbench/datasets.yaml", "mlbench/protocols/quick.yaml",
                   "mlbench/embedded/emotions.xml.gz", "mlbench/methods/index.json"):
        if not any(name.endswith("/" + needed) for name in listing.split()):
            sys.exit(f"wheel smoke: the sdist lacks {needed}")
    return next((work / "dist").glob("mlbench-*.whl"))


def smoke(wheel, work):
    venv = work / "venv"
    step([sys.executable, "-m", "venv", venv], work)
    py, mlbench = venv / "bin" / "python", venv / "bin" / "mlbench"
    step([py, "-m", "pip", "install", "-q", wheel], work, what=f"pip install {wheel.name}")
    run_dir = work / "elsewhere"
    run_dir.mkdir()
    env = dict(ENV, MLBENCH_DATA=str(work / "data"), MPLBACKEND="Agg")
    where = step([py, "-c", "import mlbench, mlbench._ext._arff as a; print(mlbench.__file__, a.__file__)"],
                 run_dir, env, what="import mlbench and a compiled kernel")
    if not all(p.startswith(str(venv)) for p in where.split()):
        sys.exit(f"wheel smoke: mlbench imported from outside the fresh environment: {where}")
    step([mlbench, "--help"], run_dir, env)
    step([py, "-m", "mlbench", "--version"], run_dir, env, what="python -m mlbench --version")
    names = step([py, "-c", "import click; from mlbench.cli import cli; "
                  "print(*cli.list_commands(click.Context(cli)))"], run_dir, env,
                 what="list the subcommands").split()
    if "run" not in names or "report" not in names:
        sys.exit(f"wheel smoke: the CLI lists {names}")
    for name in names:
        step([mlbench, name, "--help"], run_dir, env)
    listing = step([mlbench, "methods"], run_dir, env)
    if "br-lr" not in listing or "mlknn" not in listing:
        sys.exit("wheel smoke: mlbench methods does not list br-lr and mlknn")
    # the paper results are not in the package: the commands that would read them say so
    said = step([mlbench, "costs"], run_dir, env, status=2).splitlines()
    if len(said) != 1 or "come with a source checkout of mlbench" not in said[0]:
        sys.exit(f"wheel smoke: mlbench costs without files said {said}")
    if "measured cost: not shown" not in step([mlbench, "methods", "mlknn"], run_dir, env):
        sys.exit("wheel smoke: mlbench methods mlknn does not say the paper results are absent")
    out = run_dir / "smoke.csv"
    step([mlbench, *RUN, "--out", out], run_dir, env)
    table = step([mlbench, "report", out, "--metric", "macro_f1"], run_dir, env)
    if "br-lr" not in table or "mlknn" not in table:
        sys.exit(f"wheel smoke: the report lacks a method:\n{table}")
    step([mlbench, "check", out, "--against", out], run_dir, env)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, help="test this wheel instead of building one")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mlbench-wheel-"))
    start = time.perf_counter()
    try:
        wheel = args.wheel.resolve() if args.wheel else build_wheel(work)
        smoke(wheel, work)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"wheel smoke: passed in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
