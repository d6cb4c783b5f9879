"""mkdocs hooks (``hooks:`` in mkdocs.yml) of the user guide.

* ``reference/cli.md`` is generated at build time from the click command tree (``mlbench.cli``):
  every command's and subcommand's ``--help`` text, so the command reference cannot drift from the
  command line.
* The gallery (``docs/gallery/``) is executed when the site is built: a line
  ``<!-- gallery: SCRIPT.py -->`` of a page becomes the script's code and what it printed, run
  in a fresh directory (:func:`run_gallery`), so the page cannot show output the code no longer
  gives.  A script that fails stops the build.  ``make test`` runs the same scripts
  (tests/integration/test_gallery.py).
* Every page's code fences must be balanced: a fence left open, or a closing fence with text after
  it (which Markdown takes as code, swallowing the prose below it), stops the build with the page
  and line.  ``mkdocs build --strict`` adds broken links, anchors and pages missing from the nav.

tests/integration/test_docs.py runs the same checks without mkdocs.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CLI_PAGE = "reference/cli.md"
GALLERY = Path(__file__).resolve().parent / "docs" / "gallery"
#: a page's line that includes a gallery script with its output
GALLERY_LINE = re.compile(r"^<!-- gallery: (?P<script>[\w-]+\.py) -->$", re.M)
#: the longest a gallery script may take (seconds)
GALLERY_TIMEOUT = 1200
HELP_WIDTH = 100
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<rest>.*)$")


def fence_errors(text: str) -> list[str]:
    """Problems with the code fences of the Markdown ``text``, as ``line N: ...`` strings.

    A fence opened by N backticks (or tildes) is closed by a line of at least N of the same
    character and nothing else.  Inside a block, a line starting with such a run followed by
    text is an error rather than content: it is almost always a closing fence with prose glued
    to it.  (Nest fences by opening the outer block with a longer run or with tildes.)
    """
    errors, opened = [], None                      # opened: (line number, fence string)
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if not m:
            continue
        fence, rest = m["fence"], m["rest"]
        if opened is None:
            if fence[0] == "`" and "`" in rest:
                errors.append(f"line {number}: text after a code fence ({line.strip()[:40]!r})")
            else:
                opened = (number, fence)
            continue
        start, open_fence = opened
        if fence[0] != open_fence[0] or len(fence) < len(open_fence):
            continue                               # content (a shorter or other fence)
        if rest.strip():
            errors.append(f"line {number}: a closing fence must stand alone, but has text after it "
                          f"({line.strip()[:40]!r}; block opened on line {start})")
        opened = None
    if opened is not None:
        errors.append(f"line {opened[0]}: code block is never closed")
    return errors


def _commands(group, ctx):
    """(full name, command, context) of ``group`` and every command below it, in menu order."""
    import click

    yield ctx.command_path, group, ctx
    if isinstance(group, click.Group):
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            yield from _commands(sub, click.Context(sub, info_name=name, parent=ctx,
                                                    terminal_width=HELP_WIDTH,
                                                    max_content_width=HELP_WIDTH))


def cli_reference() -> str:
    """The command reference page: each command's summary and its complete ``--help`` text."""
    import click

    from mlbench.cli import cli

    root = click.Context(cli, info_name="mlbench", terminal_width=HELP_WIDTH,
                         max_content_width=HELP_WIDTH, **cli.context_settings)
    entries = list(_commands(cli, root))
    out = ["# Command reference", "",
           "Generated from the command line itself when the site is built: each section is what "
           "`mlbench COMMAND --help` prints.  Errors a user can cause are one line on stderr and "
           "exit status 2.  Environment variables: [Environment](environment.md).", "",
           "| Command | What it does |", "| --- | --- |"]
    for path, command, _ in entries[1:]:
        summary = command.get_short_help_str(limit=120).replace("|", "\\|")
        out.append(f"| [`{path}`](#{_anchor(path)}) | {summary} |")
    for path, command, ctx in entries:
        out += ["", f"## {path}", "", "```text", command.get_help(ctx).rstrip(), "```"]
    return "\n".join(out) + "\n"


def _anchor(title):
    """The id mkdocs' toc extension gives a heading ``title`` (``mlbench protocol new`` ...)."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


#: a Sphinx role left in a docstring, as the API reference renders it (``:func:`~a.b` ``)
ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):<code>~?([\w.]+?)</code>")


def _strip_roles(html):
    """``:class:`~a.b.C` `` in a docstring shows as ``C``; ``:func:`a.f` `` as ``a.f``."""
    return ROLE.sub(lambda m: f"<code>{m[1].rsplit('.', 1)[-1] if m[0].count('~') else m[1]}</code>",
                    html)


def run_gallery(script, cwd, env=None) -> str:
    """Run the gallery script ``script`` with this Python in the directory ``cwd``; its standard
    output.  A failure raises RuntimeError with the script's last lines of standard error."""
    proc = subprocess.run([sys.executable, os.fspath(script)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=GALLERY_TIMEOUT)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"{Path(script).name} failed (exit status {proc.returncode}): {tail}")
    return proc.stdout


_gallery_cache = {}


def gallery_section(name) -> str:
    """The code of ``docs/gallery/NAME`` and, below it, what it printed when run (cached per
    content while ``mkdocs serve`` runs)."""
    code = (GALLERY / name).read_text()
    if code not in _gallery_cache:
        with tempfile.TemporaryDirectory() as tmp:
            _gallery_cache[code] = run_gallery(GALLERY / name, tmp)
    fence = "~~~~"                      # the output holds Markdown tables, never tildes
    return (f"```python\n{code.rstrip()}\n```\n\nWhat it printed when this page was built:\n\n"
            f"{fence}text\n{_gallery_cache[code].rstrip()}\n{fence}\n")


# -- mkdocs events ----------------------------------------------------------------------------------

def on_files(files, config):
    from mkdocs.structure.files import File

    files.append(File.generated(config, CLI_PAGE, content=cli_reference()))
    return files


def on_page_markdown(markdown, page, config, files):
    from mkdocs.exceptions import PluginError

    errors = fence_errors(markdown)
    if errors:
        raise PluginError(f"docs/{page.file.src_uri}: " + "; ".join(errors))
    try:
        return GALLERY_LINE.sub(lambda m: gallery_section(m["script"]), markdown)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"docs/{page.file.src_uri}: gallery: {exc}") from None


def on_page_content(html, page, config, files):
    return _strip_roles(html)
