"""The package's import structure has no back-arrows (issue 19, part 6): the data layer never
imports the experiment layer, and the process supervisor never imports the executors above it."""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "mlbench"


def imports(path):
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m.startswith("mlbench")}


def test_data_never_imports_experiment():
    bad = {f.name: sorted(m for m in imports(f) if m.startswith("mlbench.experiment"))
           for f in (PKG / "data").glob("*.py")}
    assert not {k: v for k, v in bad.items() if v}


def test_supervise_does_not_import_executors():
    assert not {m for m in imports(PKG / "experiment" / "supervise.py")
                if m.endswith(("executors", "dask_executor", "runner"))}
