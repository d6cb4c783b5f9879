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
    # a reader that trusts a declared size would hit this 2 GB address-space limit
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, hard))
    try:
        outcome, detail = TARGETS[target][0]((CORPUS / case).read_bytes(), tmp_path)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert outcome == want["outcome"], detail
    assert want["match"] in detail
