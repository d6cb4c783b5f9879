"""Every ```python block of the user guide (docs/*.md) runs, page by page in one namespace, in a
fresh directory: the guide cannot drift from the code.  The checks of mkdocs_hooks.py (balanced code
fences, the generated command reference) run here without mkdocs; `make docs` builds the site with
them and `--strict`."""
import importlib.util
import pydoc
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
PAGES = sorted(DOCS.rglob("*.md"))
_spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "mkdocs_hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)


def test_the_guide_exists_and_mkdocs_lists_every_page():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in PAGES] + [hooks.CLI_PAGE]
    assert PAGES and [p for p in pages if f": {p}" not in nav] == []


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_code_fences_are_balanced(page):
    assert hooks.fence_errors(page.read_text()) == []


def test_a_broken_fence_is_reported_with_its_line():
    glued = "text\n\n```console\n$ mlbench run\n```  and prose glued to the fence\n\nmore\n"
    assert hooks.fence_errors(glued) == [
        "line 5: a closing fence must stand alone, but has text after it "
        "('```  and prose glued to the fence'; block opened on line 3)"]
    assert hooks.fence_errors("```python\nx = 1\n") == ["line 1: code block is never closed"]
    nested = "~~~~\n```python\nx = 1\n```\n~~~~\n````text\n```\n````\n"
    assert hooks.fence_errors(nested) == []


def test_the_command_reference_is_every_commands_help():
    from click.testing import CliRunner

    from mlbench.cli import cli

    page = hooks.cli_reference()
    commands = [[]] + [[name] for name in cli.list_commands(None)] + [["protocol", "new"]]
    for words in commands:
        result = CliRunner().invoke(cli, [*words, "--help"], prog_name="mlbench",
                                    terminal_width=hooks.HELP_WIDTH)
        assert result.exit_code == 0, words
        title = " ".join(["mlbench", *words])
        assert f"\n## {title}\n\n```text\n" in page, title
        section = page.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
        assert section.strip().removeprefix("```text").removesuffix("```").strip() \
            == result.output.strip(), title
        if words:
            assert f"[`{title}`](#{hooks._anchor(title)})" in page


def test_every_environment_variable_is_documented():
    used = {m for f in (ROOT / "mlbench").rglob("*.py")
            for m in re.findall(r"MLBENCH_[A-Z_]+[A-Z]", f.read_text())}
    page = (DOCS / "reference" / "environment.md").read_text()
    assert used and sorted(v for v in used if f"`{v}`" not in page) == []


def test_help_mlbench_shows_the_api_with_signatures():
    import mlbench

    text = pydoc.render_doc(mlbench, renderer=pydoc.plaintext)
    for name in mlbench.__all__:
        assert re.search(rf"^    {name}\(", text, re.M), name
    assert "run(protocol: 'str' = 'quick', *, datasets" in text


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
