"""The gallery (docs/gallery/, issue #43 item 5): each example runs other libraries' methods
beside built-ins on two datasets and reports through the notebook API.  The scripts run here as
the site build runs them (mkdocs_hooks.run_gallery); every cell must succeed.  An example whose
library is not installed is skipped with the reason."""
import importlib.metadata
import importlib.util
import os
import re
from pathlib import Path

import pytest

import mlbench

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "docs" / "gallery"
SCRIPTS = sorted(GALLERY.glob("*.py"))
_spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "mkdocs_hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)

#: script -> (distribution it needs, why)
NEEDS = {
    "skmultilearn_methods.py": (
        "scikit-multilearn-ng", "needs scikit-multilearn-ng (pip install scikit-multilearn-ng; "
        "scikit-multilearn 0.2.0's MLkNN and BRkNN fail with scikit-learn >= 1.0)"),
}


def test_every_script_is_on_a_page_and_every_page_line_names_a_script():
    shown = [m["script"] for page in (ROOT / "docs").rglob("*.md")
             for m in hooks.GALLERY_LINE.finditer(page.read_text())]
    assert sorted(shown) == sorted(s.name for s in SCRIPTS)
    assert set(NEEDS) <= set(shown)


def test_a_failing_script_is_reported_with_its_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("print('half')\nraise ValueError('no such method')\n")
    with pytest.raises(RuntimeError, match=r"(?s)bad.py failed \(exit status 1\).*no such method"):
        hooks.run_gallery(bad, tmp_path)


@pytest.mark.mirror
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_gallery_example_runs(script, tmp_path):
    if script.name in NEEDS:
        dist, why = NEEDS[script.name]
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(why)
    env = dict(os.environ, MLBENCH_DATA=os.environ.get("MLBENCH_DATA") or str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(Path(mlbench.__file__).parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    out = hooks.run_gallery(script, tmp_path, env=env)
    (csv,) = [p for p in tmp_path.rglob("*.csv")]
    df = mlbench.results.read(csv)
    failed = df[df.status != "ok"]
    assert failed.empty, failed[["dataset", "method", "error"]].to_string()
    assert sorted(df.dataset.unique()) == ["emotions", "scene"]
    cells = df.groupby(["method", "dataset"]).size()
    assert (cells == 2).all() and len(cells) >= 6, cells          # two splits of every cell
    for method in df.method.unique():       # every method is in the printed report
        assert re.search(rf"(^|\W){re.escape(method)}(\W|$)", out, re.M), method
    assert re.search("Friedman test over datasets|corrected resampled t-test", out)   # a summary
