"""Every ```python block of the user guide (docs/*.md) runs, page by page in one namespace, in a
fresh directory: the guide cannot drift from the code."""
import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
PAGES = sorted(DOCS.glob("*.md"))


def test_the_guide_exists_and_mkdocs_lists_every_page():
    nav = (DOCS.parent / "mkdocs.yml").read_text()
    assert PAGES and all(p.name in nav for p in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data-cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    blocks = BLOCK.findall(page.read_text())
    namespace = {"__name__": f"docs_{page.stem}"}
    before = set(sys.modules)
    try:
        for i, code in enumerate(blocks, 1):
            try:
                exec(compile(code, f"{page.name} block {i}", "exec"), namespace)
            except Exception as exc:  # name the page and block
                pytest.fail(f"{page.name} block {i}: {type(exc).__name__}: {exc}")
    finally:   # modules the page wrote and imported (my_methods) must not leak into other tests
        for name in set(sys.modules) - before:
            if str(tmp_path) in str(getattr(sys.modules[name], "__file__", "") or ""):
                del sys.modules[name]
