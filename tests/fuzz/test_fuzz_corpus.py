"""The regression corpus: every input that ever crashed or misparsed a reader, with its outcome.

``corpus/expected.json`` maps ``target/file`` to the expected outcome (``error`` with a phrase of
the one-line message, or ``accepted``, which for ARFF also means "the same values as liac-arff").
Add a finding of ``fuzz_run.py`` here once it is fixed.
"""
import json
import resource
from pathlib import Path

import pytest

from fuzz_targets import TARGETS

CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())


def test_every_corpus_file_has_an_expectation():
    files = {f"{p.parent.name}/{p.name}" for p in CORPUS.glob("*/*")}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_corpus_case(case, tmp_path):
    target, _ = case.split("/")
    want = EXPECTED[case]
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # a reader that trusts a declared size (the .rda cases declare 16-32 GB) would hit this
    # limit: 2 GB more address space than the test process already maps
    mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    limit = mapped + (2 << 30)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        outcome, detail = TARGETS[target][0]((CORPUS / case).read_bytes(), tmp_path)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert outcome == want["outcome"], detail
    assert want["match"] in detail
