"""Each built-in method's outputs on a tiny fixed dataset are pinned with its algorithm version.

A method whose predictions or scores change must bump its ``algorithm_version`` (so the rows it
computed before become stale: ``mlbench run`` reruns them, reports refuse them), and the stored
outputs are regenerated; a refactor that changes no output changes neither, and the committed
grids stay current.  Scores are compared to 2e-6 (they are stored rounded to 6 decimals, which
absorbs BLAS summation-order differences); predictions exactly.
"""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
import regenerate  # noqa: E402

GOLDEN = json.loads(regenerate.GOLDEN.read_text())
#: methods whose registered default sizes take over 10 s even on 40 rows (measured): slow tests
SLOW = {"mc", "mldf", "mldf-ap", "mldf-auc", "mldf-c45", "mldf-cov", "mldf-hl", "mldf-oe",
        "mldf-rl", "cmtl", "epcc"}


def _where(name):
    import inspect

    from mlbench.methods import registry

    cls = registry.get(name).cls
    path = Path(inspect.getsourcefile(cls)).resolve()
    root = Path(regenerate.__file__).resolve().parents[3]
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    return f"{rel}:{cls.__name__}.algorithm_version"


def test_every_builtin_method_is_pinned():
    assert sorted(GOLDEN) == sorted(regenerate.builtin_methods()), \
        "regenerate with `python tests/methods/golden/regenerate.py`"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in sorted(GOLDEN)])
def test_golden_outputs(name):
    want = GOLDEN[name]
    got = regenerate.outputs(name)
    fix = (f"bump its algorithm version ({_where(name)}) and regenerate with "
           f"`python tests/methods/golden/regenerate.py {name}`")
    if got["algorithm"] != want["algorithm"]:
        pytest.fail(f"method {name}'s algorithm is now {got['algorithm']}, the stored outputs are "
                    f"of {want['algorithm']}: regenerate with "
                    f"`python tests/methods/golden/regenerate.py {name}`")
    same = (got.get("error") == want.get("error")
            and got.get("predictions") == want.get("predictions")
            and (got.get("scores") is None) == (want.get("scores") is None)
            and (want.get("scores") is None
                 or np.allclose(got["scores"], want["scores"], rtol=0, atol=2e-6)))
    if not same:
        pytest.fail(f"method {name}'s outputs changed: {fix}")
