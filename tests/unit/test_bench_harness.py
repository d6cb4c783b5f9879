"""benchmarks/_harness.py: both sides run equally often, interleaved, after their warm-up, and the
ratios are the medians of the per-round ratios (a fake clock makes the times exact)."""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def harness(monkeypatch):
    spec = importlib.util.spec_from_file_location("_harness", BENCH / "_harness.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "_harness", module)
    with monkeypatch.context() as m:     # the module pins the thread variables: undo it here
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
            m.setenv(var, os.environ.get(var, "4"))
        spec.loader.exec_module(module)
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    return module


def test_sides_are_interleaved_repeated_equally_after_warmup(harness, monkeypatch):
    clock, calls = [0.0], []
    monkeypatch.setattr(harness, "cpu_seconds", lambda: clock[0])
    monkeypatch.setattr(harness.time, "perf_counter", lambda: 2 * clock[0])

    def side(label, cost):
        def run():
            calls.append(label)
            clock[0] += cost
            return label
        return run

    out = harness.compare("x", side("A", 1.0), side("B", 3.0), labels=("A", "B"), repeats=4,
                          warmup=1, quiet=True)
    assert calls == ["A", "B"] + ["A", "B", "B", "A", "A", "B", "B", "A"]
    assert out.results == {"A": "A", "B": "B"}
    a, b = out.sides
    assert a.cpu == [1.0] * 4 and b.cpu == [3.0] * 4 and b.wall == [6.0] * 4
    assert out.ratio("B") == 3.0 and out.ratio("B", "wall") == 3.0 and out.spread("B") == (3.0, 3.0)
    text = out.summary()
    assert "4 interleaved rounds after 1 warm-up call each" in text
    assert "ratio B / A: CPU 3.00x (IQR 3.00-3.00), wall 3.00x" in text


def test_three_sides_rotate_and_ratios_are_medians_of_rounds(harness, monkeypatch):
    clock, calls, costs = [0.0], [], {"A": iter([1, 1, 2]), "B": iter([2, 2, 2]), "C": iter([1] * 3)}
    monkeypatch.setattr(harness, "cpu_seconds", lambda: clock[0])

    def side(label):
        def run():
            calls.append(label)
            clock[0] += next(costs[label])
        return run

    out = harness.compare_many("y", {k: side(k) for k in "ABC"}, repeats=3, warmup=0, quiet=True)
    assert calls == list("ABC" "BCA" "CAB")
    assert list(out.ratios("B")) == [2.0, 2.0, 1.0] and out.ratio("B") == 2.0
    with pytest.raises(ValueError):
        harness.compare_many("z", {"A": side("A")}, repeats=0)


def test_quick_means_one_round_without_warmup(harness):
    args = harness.parser(__doc__, repeats=7).parse_args(["--quick"])
    assert harness.timing(args) == {"repeats": 1, "warmup": 0}
    args = harness.parser(__doc__, repeats=7).parse_args(["--warmup", "2"])
    assert harness.timing(args) == {"repeats": 7, "warmup": 2}
