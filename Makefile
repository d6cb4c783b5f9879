# Two commands set everything up on a fresh machine:
#   make run    install (virtualenv + compiled extensions), then the default run and its table
#   make test   install, then the whole test suite (SLOW=1 adds the slow tests)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: install build run test bench fuzz docs dist wheel-smoke clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "setuptools>=64" wheel "cython>=3.0" "numpy>=1.25" "scipy>=1.10"
	$(PY) -m pip uninstall -q -y scikit-multilearn  # replaced by scikit-multilearn-ng (same package dir)
	$(PY) -m pip install -q --no-build-isolation -e '.[test,dask]'
	touch $(STAMP)

install: $(STAMP) build

# Re-cythonize and recompile only what changed (a no-op when the extensions are up to date).
build: $(STAMP)
	$(PY) setup.py -q build_ext --inplace -j 2

run: install
	$(VENV)/bin/mlbench run

test: install
	$(PY) -m pytest -q $(if $(SLOW),,-m "not slow") $(PYTEST_ARGS)

bench: install
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Longer fuzzing sessions of every reader (tests/fuzz/fuzz_run.py); findings in tests/fuzz/findings/.
FUZZ_CASES ?= 100000
FUZZ_SEED  ?= 1
fuzz: install
	$(PY) tests/fuzz/fuzz_run.py --cases $(FUZZ_CASES) --seed $(FUZZ_SEED)

# The user guide (docs/, mkdocs.yml) as a static site in site/, with the command reference generated
# from the CLI and the API reference from the docstrings; --strict fails on broken links, anchors and
# code fences.  The docs tools are pyproject's `docs` extra.  Its code blocks run in `make test`.
docs: install
	$(PY) -c "import sys; toml = __import__('tomllib' if sys.version_info >= (3, 11) else 'pip._vendor.tomli', \
	    fromlist=['load']); extra = toml.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']; \
	    print(*extra['docs'], sep=chr(10))" > $(VENV)/docs-requirements.txt
	$(PY) -m pip install -q -r $(VENV)/docs-requirements.txt
	$(VENV)/bin/mkdocs build --strict

# The sdist and the wheel built from it (dist/), as CI builds them: Cython, NumPy and SciPy for the
# build come from PyPI through build isolation.
dist: $(STAMP)
	$(PY) -m pip install -q "build>=1"
	$(PY) -m build --outdir dist .

# The wheel installed into a fresh venv in a temporary directory, its CLI run from there (CI's first step).
wheel-smoke:
	$(PYTHON) tests/wheel_smoke.py

clean:
	rm -rf build dist $(VENV) mlbench/_ext/*.c mlbench/_ext/*.so *.egg-info
