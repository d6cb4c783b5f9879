"""A self-contained HTML dashboard of a report: one file, no network.

``mlbench report RESULTS --format html -o report.html`` writes it.  Tabs, sortable tables (a click on
a header) and a row filter above each table, in a few lines of vanilla JavaScript; the page works
offline and from ``file://``:

* **Overview**: methods × datasets, each cell's ok / failed / missing splits;
* **one tab per metric**: the report's tables for it (sortable by a click on a column header), its
  notes, the CD diagram when two or more datasets allow one, the per-dataset box plots of the split
  scores and the rank heat map;
* **Costs**: mean fit and predict seconds and peak memory per method, and the score-vs-time Pareto
  plot;
* **Statistics**: the tests over datasets;
* **Provenance**: mlbench's version and git commit, the command, the protocol and seed, the results
  files with their sha256, the machine, and the versions of the packages that computed the numbers.

Figures are matplotlib SVG inlined in the page, stripped of their XML prolog, namespace URIs and
metadata, so the file holds no ``http`` reference at all.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile

import numpy as np

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
nav button{border:1px solid #aaa;background:#f4f4f4;padding:.35em .8em;margin:0 .2em .4em 0;cursor:pointer}
nav button.on{background:#2a6;color:#fff;border-color:#2a6}
section{display:none}section.on{display:block}
table{border-collapse:collapse;margin:.6em 0}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
th{cursor:pointer;background:#fafafa}th:after{content:" \\2195";color:#bbb}
tr.group td{font-style:italic;text-align:left;background:#f7f7f7}
.ok{color:#176}.bad{color:#b22;font-weight:bold}.missing{color:#999}
figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top}
figure svg{max-width:100%;height:auto}
ul.notes{color:#555;font-size:.9em}
input.filter{display:block;margin:.4em 0;padding:2px 6px;width:16em}
"""

JS = """
function show(id){document.querySelectorAll('section').forEach(s=>s.classList.toggle('on',s.id===id));
 document.querySelectorAll('nav button').forEach(b=>b.classList.toggle('on',b.dataset.tab===id));}
document.querySelectorAll('nav button').forEach(b=>b.addEventListener('click',()=>show(b.dataset.tab)));
function key(td){const t=td.textContent.trim();const m=t.match(/^[-+]?\\d*\\.?\\d+(e[-+]?\\d+)?/i);
 return m?parseFloat(m[0]):t.toLowerCase();}
document.querySelectorAll('table.sortable th').forEach(th=>th.addEventListener('click',()=>{
 const i=th.cellIndex;const table=th.closest('table');const body=table.tBodies[0];
 const rows=[...body.rows].filter(r=>!r.classList.contains('group'));
 const dir=th.dataset.dir==='asc'?-1:1;th.dataset.dir=dir===1?'asc':'desc';
 rows.sort((a,b)=>{const x=key(a.cells[i]),y=key(b.cells[i]);
  return (typeof x===typeof y?(x<y?-1:x>y?1:0):(typeof x==='number'?-1:1))*dir;});
 rows.forEach(r=>body.appendChild(r));}));
document.querySelectorAll('table.sortable').forEach(table=>{
 const box=document.createElement('input');box.type='search';box.className='filter';
 box.placeholder='filter rows';table.parentNode.insertBefore(box,table);
 box.addEventListener('input',()=>{const q=box.value.toLowerCase();
  [...table.tBodies[0].rows].forEach(r=>{r.style.display=
   (!q||r.classList.contains('group')||r.textContent.toLowerCase().includes(q))?'':'none';});});});
show(document.querySelector('nav button').dataset.tab);
"""


def _escape(text):
    """HTML text: escaped, without control characters (:func:`mlbench.report.formats.plain`)."""
    from mlbench.report.formats import _html_escape

    return _html_escape(text)


def _svg(draw):
    """The SVG ``draw(path)`` writes, made inline-safe (no prolog, namespaces or metadata).  The
    file lives in a temporary folder of the system's (``TMPDIR``); that folder full or read-only is
    one line naming it."""
    from mlbench.errors import WriteError
    from mlbench.fileio import write_error

    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.svg")
            draw(path)
            if not os.path.exists(path):
                return ""
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, WriteError) as exc:
        raise write_error(tempfile.gettempdir(), getattr(exc, "os_error", exc),
                          "set TMPDIR to a writable folder") from None
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    # matplotlib repeats each text (method names) in a comment beside its glyphs: not needed; and
    # names from a results file may hold control characters (formats.plain)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", "", text)


def _figure(svg, caption):
    return f"<figure>{svg}<figcaption>{_escape(caption)}</figcaption></figure>" if svg else ""


def _table_html(t):
    from mlbench.report.formats import _html

    return _html(t).replace("<table>", '<table class="sortable">', 1)


def _overview(results):
    """Methods as rows and datasets as columns (a report has more methods than datasets)."""
    e = _escape
    frame, failures = results.frame, results.failures
    ok = frame.groupby(["dataset", "method"]).size()
    bad = failures.groupby(["dataset", "method"]).size() if len(failures) else {}
    head = "".join(f"<th>{e(d)}</th>" for d in results.datasets)
    rows = []
    for m in results.methods:
        cells = []
        for d in results.datasets:
            n_ok, n_bad = int(ok.get((d, m), 0)), int(bad.get((d, m), 0)) if len(failures) else 0
            if n_bad:
                cells.append(f'<td class="bad">{n_ok} ok, {n_bad} failed</td>')
            elif n_ok:
                cells.append(f'<td class="ok">{n_ok}</td>')
            else:
                cells.append('<td class="missing">missing</td>')
        rows.append(f"<tr><td>{e(m)}</td>{''.join(cells)}</tr>")
    return ("<h3>Cells: splits ok per method and dataset</h3>"
            f'<table class="sortable"><thead><tr><th>method</th>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _costs(results):
    e = _escape
    frame = results.frame
    cols = [c for c in ("fit_seconds", "predict_seconds", "cpu_seconds", "peak_memory_mb")
            if c in frame.columns]
    if not cols:
        return "<p>No timing columns in the results.</p>"
    g = frame.groupby("method")[cols].mean().reindex(results.methods)
    head = "".join(f"<th>{e(c)}</th>" for c in cols)
    rows = "".join(f"<tr><td>{e(m)}</td>" + "".join(
        f"<td>{'—' if not np.isfinite(v) else f'{v:.3g}'}</td>" for v in g.loc[m].to_numpy(float))
        + "</tr>" for m in g.index)
    return (f'<h3>Mean per cell</h3><table class="sortable"><thead><tr><th>method</th>{head}</tr>'
            f"</thead><tbody>{rows}</tbody></table>")


def _provenance(results, paths, protocol):
    import platform
    import subprocess
    from importlib.metadata import PackageNotFoundError, version

    import mlbench
    from mlbench.data.fetch import sha256_of

    e = _escape
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(mlbench.__file__)),
                                timeout=5).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    seeds = sorted({str(s) for s in results.frame.get("seed", [])})
    items = [("mlbench", f"{mlbench.__version__} (commit {commit})"),
             ("command", " ".join(["mlbench"] + sys.argv[1:]) if sys.argv else ""),
             ("protocol", results.protocol or "—"), ("seeds", ", ".join(seeds) or "—"),
             ("machine", f"{platform.node()} — {platform.platform()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}")]
    for p in paths:
        items.append(("results file", f"{p} (sha256 {sha256_of(p)[:16]}…)"))
    for pkg in ("numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "rich"):
        try:
            items.append((pkg, version(pkg)))
        except PackageNotFoundError:
            pass
    return "<table>" + "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in items) + "</table>"


def dashboard(analysis, tables, paths, protocol=None):
    """The dashboard page (see the module docstring) as one HTML string."""
    from mlbench.report import plots
    from mlbench.report.cd_diagram import write_cd_diagrams

    e = _escape
    results = analysis.results
    tabs = [("overview", "Overview", _overview(results))]
    used = set()
    for ma in analysis.metrics:
        own = [t for t in tables if ma.metric in t.key.split(":")[-1].split(",") or t.key.endswith(ma.metric)]
        used.update(id(t) for t in own)
        parts = [_table_html(t) for t in own]

        def cd(path, ma=ma):
            import copy

            one = copy.copy(analysis)
            one.metrics = [ma]
            one.notes = []
            write_cd_diagrams(one, path)

        parts.append(_figure(_svg(cd), f"critical-difference diagram, {ma.display}"))
        parts.append(_figure(_svg(lambda p, m=ma.metric: plots.box(results, m, p)),
                             f"{ma.display} on each split"))
        parts.append(_figure(_svg(lambda p, m=ma.metric: plots.heatmap(results, m, p)),
                             f"ranks on {ma.display}"))
        if ma.notes:
            parts.append('<ul class="notes">' + "".join(f"<li>{e(n)}</li>" for n in ma.notes) + "</ul>")
        tabs.append((f"m-{ma.metric}", ma.display, "\n".join(p for p in parts if p)))
    rest = [t for t in tables if id(t) not in used]
    if rest:
        tabs.append(("stats", "Statistics", "\n".join(_table_html(t) for t in rest)))
    first = analysis.metrics[0].metric
    pareto = ""
    if "fit_seconds" in results.frame.columns:
        pareto = _figure(_svg(lambda p: plots.pareto(results, first, p)),
                         f"mean {first} against mean fit time; the Pareto front in red")
    tabs.append(("costs", "Costs", _costs(results) + pareto))
    tabs.append(("provenance", "Provenance", _provenance(results, paths, protocol)))
    nav = "".join(f'<button data-tab="{tid}">{e(label)}</button>' for tid, label, _ in tabs)
    body = "\n".join(f'<section id="{tid}">{content}</section>' for tid, _, content in tabs)
    notes = "".join(f"<li>{e(n)}</li>" for n in analysis.notes)
    title = f"mlbench report: {results.protocol or ', '.join(os.path.basename(p) for p in paths)}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>\n<h1>{e(title)}</h1>\n"
            f"<p>control: {e(analysis.control)} ({e(analysis.control_source)}); "
            f"α = {analysis.alpha:g}</p>" + (f'<ul class="notes">{notes}</ul>' if notes else "")
            + f"\n<nav>{nav}</nav>\n{body}\n<script>{JS}</script>\n</body></html>\n")
