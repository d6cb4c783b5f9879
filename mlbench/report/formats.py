"""Render :class:`~mlbench.report.table.Table` objects: terminal, markdown, latex, csv, html, json.

Best values are highlighted: bold green in the terminal (rich), ``**bold**`` in Markdown,
``\\textbf`` in LaTeX and ``<b>`` in HTML.  ``csv`` is long-form (one line per cell with its value,
std, marker and best flag) so it stays machine-readable for any style; ``json`` carries the tables and
the whole analysis (see :func:`mlbench.report.export.analysis_to_dict`).

Names come from results files, which anyone may have written, so no export can be turned against
its reader: every text format drops terminal control sequences and characters (:func:`plain`);
CSV cells that a spreadsheet would evaluate (starting with ``= + - @``, tab or CR, and not a
number) get a leading ``'`` as OWASP recommends (:func:`csv_cell`); Markdown escapes HTML and
``|``; LaTeX escapes its special characters; HTML escapes everything; JSON escapes the control
characters it would otherwise write raw (DEL and C1).
"""
from __future__ import annotations

import csv
import html
import io
import json
import math
import re

FORMATS = ("terminal", "markdown", "latex", "csv", "html", "json")

#: Unicode markers -> LaTeX (amssymb for the filled triangles and the circled asterisk)
LATEX_SYMBOLS = {
    "●": r"$\bullet$", "○": r"$\circ$", "▲": r"$\blacktriangle$", "△": r"$\vartriangle$",
    "▼": r"$\blacktriangledown$", "✕": r"$\times$", "•": r"$\bullet$", "◦": r"$\circ$",
    "∗": r"$\ast$", "⊛": r"$\circledast$", "†": r"$\dagger$", "‡": r"$\ddagger$", "±": r"$\pm$",
    "—": "--", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "χ": r"$\chi$", "²": r"$^2$", "≥": r"$\geq$",
    "<": r"$<$", ">": r"$>$", "α": r"$\alpha$", "≤": r"$\leq$", "×": r"$\times$",
}
LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


#: escape sequences a terminal acts on: CSI (7- and 8-bit), the string commands OSC, DCS, SOS, PM
#: and APC up to their terminator (BEL or ST) or, unterminated, to the end of the text, and the
#: other two- and three-byte ESC sequences
_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
                       r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|\Z)"
                       r"|\x1b[ -/]*[0-~]?", re.S)
#: the remaining C0 and C1 controls, DEL, and the Unicode bidirectional overrides and isolates
#: (which reorder what a reader sees)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPACE = re.compile("[\t\n\r\v\f]+")


def plain(text):
    """``text`` without terminal control sequences or control characters (blanks become a space)."""
    text = _SEQUENCE.sub("", str(text))
    return _CONTROL.sub("", _SPACE.sub(" ", text))


def csv_cell(value):
    """A CSV cell safe to open in a spreadsheet: text starting with ``= + - @`` (after blanks), tab
    or CR that is not a number gets a leading ``'`` (OWASP, CSV injection); numbers stay numbers."""
    if not isinstance(value, str):
        return value
    text = plain(value)
    head = value[:1] in ("\t", "\r") or text.lstrip()[:1] in ("=", "+", "-", "@")
    if head and not _is_number(text):
        return "'" + text
    return text


def _is_number(text):
    try:
        float(text.replace("∞", "inf"))
    except ValueError:
        return False
    return True


def render(tables, fmt, *, colour=False, payload=None, width=None):
    """All ``tables`` in format ``fmt`` as one string; ``payload`` is the JSON document for ``json``."""
    if fmt == "terminal":
        return _terminal(tables, colour, width)
    if fmt == "markdown":
        return "\n\n".join(_markdown(t) for t in tables) + "\n"
    if fmt == "latex":
        return "\n\n".join(_latex(t) for t in tables) + "\n"
    if fmt == "html":
        body = "\n".join(_html(t) for t in tables)
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mlbench report</title>"
                "<style>table{border-collapse:collapse;margin:1em 0}td,th{padding:2px 8px;"
                "border-bottom:1px solid #ccc;text-align:right}td:first-child,th:first-child"
                "{text-align:left}.group td{font-style:italic;text-align:left}</style></head><body>\n"
                f"{body}\n</body></html>\n")
    if fmt == "csv":
        return _csv(tables)
    if fmt == "json":
        doc = dict(payload or {})
        doc["tables"] = [t.to_dict() for t in tables]
        text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        # json.dumps escapes C0 controls but writes DEL and C1 (e.g. the 8-bit CSI) as they are
        return re.sub("[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text)
    raise ValueError(fmt)


def _cell_text(cell):
    return f"{cell.text}{cell.marker}"


def _groups(table):
    """Rows with a ``None`` sentinel row for each group header: yields (group or None, row or None)."""
    current = object()
    for row in table.rows:
        if row.group is not None and row.group != current:
            yield row.group, None
        current = row.group
        yield None, row


#: the longest row label or column header a terminal table shows in full (longer ones are
#: abbreviated, with a legend under the table)
MAX_NAME = 24


def _text_width(text):
    from rich.cells import cell_len

    return cell_len(str(text))


def _transpose(t):
    """``t`` with rows and columns swapped (only for tables without row groups)."""
    from mlbench.report.table import Cell, Row, Table

    rows = [Row(col, [r.cells[j] if j < len(r.cells) else Cell("") for r in t.rows])
            for j, col in enumerate(t.columns[1:])]
    return Table(t.key, t.title, ["Method" if t.columns[0] == "Dataset" else ""]
                 + [r.label for r in t.rows], rows, list(t.notes))


def _abbreviate(t):
    """Labels and headers longer than ``MAX_NAME`` shortened to a unique prefix + '…', with a
    legend note; returns a new table."""
    from dataclasses import replace

    legend = {}

    def short(name):
        name = str(name)
        if _text_width(name) <= MAX_NAME:
            return name
        cut = name[:MAX_NAME - 1] + "…"
        k = 2
        while cut in legend and legend[cut] != name:
            cut = f"{name[:MAX_NAME - 3]}…{k}"
            k += 1
        legend[cut] = name
        return cut

    columns = [t.columns[0]] + [short(c) for c in t.columns[1:]]
    rows = [replace(r, label=short(r.label)) for r in t.rows]
    notes = list(t.notes)
    if legend:
        notes.append("abbreviated: " + "; ".join(f"{a} = {n}" for a, n in legend.items()))
    return replace(t, columns=columns, rows=rows, notes=notes)


def fit_width(t, width):
    """Terminal tables no wider than ``width``: a table with more data columns than rows and no
    row groups is transposed (methods become rows), long names are abbreviated with a legend, and
    what is still too wide is split into pages of columns, each repeating the first column."""
    from dataclasses import replace

    if len(t.columns) - 1 > len(t.rows) and not any(r.group for r in t.rows) and len(t.rows) > 0:
        t = _transpose(t)
    t = _abbreviate(t)
    widths = [_text_width(c) for c in t.columns]
    for r in t.rows:
        for j, text in enumerate([r.label] + [_cell_text(c) for c in r.cells]):
            if j < len(widths):
                widths[j] = max(widths[j], _text_width(text))
        if r.group:
            widths[0] = max(widths[0], _text_width(r.group))
    cost = [w + 3 for w in widths]             # rich: one space of padding each side + a rule
    if sum(cost) + 1 <= width or len(t.columns) <= 2:
        return [t]
    pages, current, used = [], [], cost[0] + 1
    for j in range(1, len(t.columns)):
        if current and used + cost[j] > width:
            pages.append(current)
            current, used = [], cost[0] + 1
        current.append(j)
        used += cost[j]
    pages.append(current)
    out = []
    for k, cols in enumerate(pages, 1):
        rows = [replace(r, cells=[r.cells[j - 1] for j in cols if j - 1 < len(r.cells)]) for r in t.rows]
        title = f"{t.title} (columns {cols[0]}-{cols[-1]} of {len(t.columns) - 1})"
        out.append(replace(t, title=title, columns=[t.columns[0]] + [t.columns[j] for j in cols],
                           rows=rows, notes=list(t.notes) if k == len(pages) else []))
    return out


def _terminal(tables, colour, width):
    import shutil

    from rich.console import Console
    from rich.table import Table as RichTable

    buf = io.StringIO()
    # --width, else $COLUMNS or the terminal's width, else (a pipe) 200 columns
    width = int(width or shutil.get_terminal_size((200, 24)).columns)
    console = Console(file=buf, force_terminal=colour, no_color=not colour, width=width,
                      highlight=False, emoji=False)
    tables = [piece for t in tables for piece in fit_width(t, width)]
    for t in tables:
        # the title is a line of its own, wrapped at the terminal's width: as the table's title
        # Rich wraps it at the table's, which broke a one-column table's title into four lines
        console.print(_escape_rich(t.title), style="italic" if colour else None)
        rt = RichTable(show_lines=False)
        for i, col in enumerate(t.columns):
            rt.add_column(_escape_rich(col), justify="left" if i == 0 else "right", no_wrap=True)
        for group, row in _groups(t):
            if row is None:
                rt.add_row(f"[italic]{_escape_rich(group)}[/italic]", *[""] * (len(t.columns) - 1))
                continue
            cells = []
            for c in row.cells:
                text = _escape_rich(_cell_text(c))
                cells.append(f"[bold green]{text}[/bold green]" if c.best and colour else
                             (f"{text}" if not c.best else f"[bold]{text}[/bold]"))
            rt.add_row(_escape_rich(row.label), *cells)
        console.print(rt)
        for note in t.notes:
            console.print(_escape_rich(note))          # wrapped at the width
        console.print()
    return buf.getvalue()


def _escape_rich(text):
    from rich.markup import escape

    return escape(plain(text))


def _md_escape(text):
    """Markdown table text: HTML escaped (a renderer passes raw HTML through) and ``|`` escaped."""
    return html.escape(plain(text), quote=False).replace("|", r"\|")


def _markdown(t):
    lines = [f"### {_md_escape(t.title)}", "", "| " + " | ".join(_md_escape(c) for c in t.columns) + " |",
             "|" + "|".join([":---"] + ["---:"] * (len(t.columns) - 1)) + "|"]
    for group, row in _groups(t):
        if row is None:
            lines.append(f"| *{_md_escape(group)}* |" + " |" * (len(t.columns) - 1))
            continue
        cells = [(f"**{_md_escape(c.text)}**{_md_escape(c.marker)}" if c.best else _md_escape(_cell_text(c)))
                 for c in row.cells]
        lines.append("| " + " | ".join([_md_escape(row.label)] + cells) + " |")
    if t.notes:
        lines.append("")
        lines.extend(f"- {_md_escape(n)}" for n in t.notes)
    return "\n".join(lines)


def latex_escape(text):
    out = []
    for ch in plain(text):
        if ch in LATEX_SYMBOLS:
            out.append(LATEX_SYMBOLS[ch])
        elif ch in LATEX_SPECIAL:
            out.append(LATEX_SPECIAL[ch])
        else:
            out.append(ch)
    return "".join(out)


def _latex(t):
    ncol = len(t.columns)
    lines = ["% requires \\usepackage{booktabs,amssymb}", "\\begin{table}[ht]", "\\centering",
             f"\\caption{{{latex_escape(t.title)}}}", f"\\begin{{tabular}}{{l{'r' * (ncol - 1)}}}",
             "\\toprule", " & ".join(latex_escape(c) for c in t.columns) + " \\\\", "\\midrule"]
    for group, row in _groups(t):
        if row is None:
            lines.append(f"\\multicolumn{{{ncol}}}{{l}}{{\\textit{{{latex_escape(group)}}}}} \\\\")
            continue
        cells = [(f"\\textbf{{{latex_escape(c.text)}}}{latex_escape(c.marker)}" if c.best
                  else latex_escape(_cell_text(c))) for c in row.cells]
        lines.append(" & ".join([latex_escape(row.label)] + cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if t.notes:
        lines.append("\\par\\smallskip\\footnotesize " + " \\\\\n".join(latex_escape(n) for n in t.notes))
    lines.append("\\end{table}")
    return "\n".join(lines)


def _html_escape(text):
    return html.escape(plain(text))


def _html(t, sortable=False):
    """One table as HTML; ``sortable`` (the dashboard) also gives each cell with a finite number its
    value (``data-v``, which the dashboard's sort reads instead of the text), the table the class
    ``sortable`` and a box of its own that scrolls sideways."""
    e = _html_escape

    def value(c):
        ok = sortable and c.value is not None and math.isfinite(c.value)
        return f' data-v="{float(c.value)!r}"' if ok else ""

    head = "".join(f"<th>{e(c)}</th>" for c in t.columns)
    body = []
    for group, row in _groups(t):
        if row is None:
            body.append(f'<tr class="group"><td colspan="{len(t.columns)}">{e(group)}</td></tr>')
            continue
        cells = "".join(f"<td{value(c)}><b>{e(c.text)}</b>{e(c.marker)}</td>" if c.best else
                        f"<td{value(c)}>{e(_cell_text(c))}</td>" for c in row.cells)
        body.append(f"<tr><td>{e(row.label)}</td>{cells}</tr>")
    notes = "".join(f"<li>{e(n)}</li>" for n in t.notes)
    table = (('<div class="scroll"><table class="sortable">' if sortable else "<table>")
             + f"<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table>"
             + ("</div>" if sortable else ""))
    return f"<h3>{e(t.title)}</h3>\n{table}" + (f"\n<ul>{notes}</ul>" if notes else "")


def _csv(tables):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["table", "group", "row", "column", "text", "value", "std", "marker", "best"])
    for t in tables:
        for row in t.rows:
            for col, c in zip(t.columns[1:], row.cells):
                w.writerow([csv_cell(x) for x in (
                    t.key, row.group or "", row.label, col, c.text,
                    "" if c.value is None else repr(float(c.value)),
                    "" if c.std is None else repr(float(c.std)), c.marker, int(c.best))])
    return buf.getvalue()
