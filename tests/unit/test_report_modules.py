"""Issue 44 item 6: the report package without its import circle, and paper styles as one file."""
import ast
import inspect
from pathlib import Path

import mlbench.report as report_pkg
from mlbench.report import styles

REPORT = Path(report_pkg.__file__).parent


def _imports(path):
    """The mlbench.report modules a file imports anywhere (module level or inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mlbench.report"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names
                       if (REPORT / f"{a.name}.py").exists() and node.module == "mlbench.report")
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("mlbench.report"))
    return out


def _graph():
    mods = {f"mlbench.report.{p.stem}": p for p in REPORT.glob("*.py") if p.stem != "__init__"}
    return {m: {i for i in _imports(p) if i in mods and i != m} for m, p in mods.items()}


def test_report_modules_form_no_cycle():
    graph = _graph()
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph[m]:
            assert state.get(n) != "open", " -> ".join(path + [n])
            if n not in state:
                visit(n, path + [n])
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m, [m])
    # the pictures take analysed data: neither the dashboard nor the plots call the report builder
    assert "mlbench.report.build" not in graph["mlbench.report.plots"] | graph["mlbench.report.dashboard"]
    assert "mlbench.report.build" not in graph["mlbench.report.cd_diagram"]


def test_the_pipeline_has_no_per_paper_branch():
    """What differs per paper lives in its style module (DEFAULT_STATS, extra_metrics, attach, ...)."""
    from mlbench.report import build, prepare

    for module in (build, prepare):
        src = inspect.getsource(module)
        for name in styles.STYLES:
            if name == "plain":         # the fallback style, not a paper's
                continue
            assert f'"{name}"' not in src and f"'{name}'" not in src, (module.__name__, name)
    assert styles.style_module("soshf").DEFAULT_STATS == ("friedman", "wilcoxon")
    assert styles.style_module("plain").PER_METRIC_CONTROL is True
    assert hasattr(styles.style_module("hiercost"), "attach")
