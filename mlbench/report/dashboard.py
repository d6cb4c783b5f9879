"""A self-contained HTML dashboard of a report: one file, no network.

``mlbench report RESULTS --format html -o report.html`` writes it.  Tabs, sortable tables (a click on
a header) and a row filter above each table, in a few lines of vanilla JavaScript; the page works
offline and from ``file://``:

* **Overview** (the tab the page opens on): the headline.  The paper's claims with whether each
  holds here, when a ``claims.yaml`` beside the results file names it
  (:func:`mlbench.report.reproduction.claims_beside`); one line on missing and failed cells; the
  report's main table (the style's first); the CD diagram of the first metric;
* **one tab per metric**: the report's tables for it, its notes, the CD diagram when two or more
  datasets allow one, the per-dataset box plots of the split scores and the rank heat map (a cell
  without a result hatched grey, outside the colour scale);
* **Statistics**: the tests over datasets (and a style's table that is not one metric's);
* **Cells**: methods × datasets, each cell's ok / failed / missing splits;
* **Costs**: mean fit and predict seconds and peak memory per method, and the score-vs-time Pareto
  plot;
* **Provenance**: mlbench's version and git commit, the command, the protocol and seed, the results
  files with their sha256, the machine, and the versions of the packages that computed the numbers.

Each tab has an address: ``report.html#TAB`` (``#m-macro_f1``, ``#costs``, ...) opens on it and a
click on a tab sets it.  A click on a column header sorts by the cells' numbers (each cell carries
its value; a missing value sorts last either way), within each group of rows.  Tables scroll sideways
inside their own box and figures shrink to the window, so the page itself never does (checked in
headless Chromium at 800 and 1,400 px, ``tests/integration/test_dashboard.py``).

Figures are matplotlib SVG inlined in the page, stripped of their XML prolog, namespace URIs and
metadata, so the file holds no ``http`` reference at all; each figure's ids get a prefix of its own,
so that no figure uses another's glyphs or clip paths (a hidden tab's).
"""
from __future__ import annotations

import copy
import itertools
import os
import re
import sys
import tempfile

import numpy as np

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.6em}h1,p,li,figcaption{overflow-wrap:anywhere}
nav{position:sticky;top:0;z-index:1;background:#fff;padding:.3em 0;display:flex;flex-wrap:wrap;gap:.25em}
nav button{border:1px solid #aaa;background:#f4f4f4;padding:.35em .8em;cursor:pointer}
nav button.on{background:#2a6;color:#fff;border-color:#2a6}
section{display:none}section.on{display:block}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
.scroll th:first-child,.scroll tr:not(.group)>td:first-child{position:sticky;left:0;background:#fff}
th,.scroll th:first-child{cursor:pointer;background:#fafafa}th:after{content:" \\2195";color:#bbb}
th[data-dir=asc]:after{content:" \\25B2";color:#2a6}th[data-dir=desc]:after{content:" \\25BC";color:#2a6}
tr.group td{font-style:italic;text-align:left;background:#f7f7f7}
table.prov td{white-space:normal;overflow-wrap:anywhere;text-align:left;vertical-align:top}
.ok{color:#176}.bad{color:#b22;font-weight:bold}.missing{color:#999}
ul.claims li{margin:.3em 0}.holds{color:#176;font-weight:bold}.fails{color:#b22;font-weight:bold}
figure{display:inline-block;max-width:100%;margin:.5em 1em .5em 0;vertical-align:top}
figure svg{display:block;max-width:100%;height:auto}
ul.notes,.why{color:#555;font-size:.9em}
input.filter{display:block;margin:.4em 0 0;padding:2px 6px;width:16em;max-width:100%}
"""

JS = """
const tabs=[...document.querySelectorAll('nav button')].map(b=>b.dataset.tab);
function show(id){if(!tabs.includes(id))id=tabs[0];
 document.querySelectorAll('section').forEach(s=>s.classList.toggle('on',s.dataset.tab===id));
 document.querySelectorAll('nav button').forEach(b=>b.classList.toggle('on',b.dataset.tab===id));}
function fromHash(){let id=location.hash.slice(1);try{id=decodeURIComponent(id);}catch(e){}show(id);}
document.querySelectorAll('nav button').forEach(b=>b.addEventListener('click',()=>{
 show(b.dataset.tab);if(location.hash.slice(1)!==b.dataset.tab)location.hash=b.dataset.tab;}));
window.addEventListener('hashchange',fromHash);
function key(td){if(td.dataset.v!==undefined)return parseFloat(td.dataset.v);
 const t=td.textContent.trim();const m=t.match(/^\\(?([-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?)/i);
 if(m)return parseFloat(m[1]);return (t===''||t==='\u2014')?null:t.toLowerCase();}
function order(x,y,dir){if(x===null||y===null)return (x===null)-(y===null);
 return (typeof x===typeof y?(x<y?-1:x>y?1:0):(typeof x==='number'?-1:1))*dir;}
document.querySelectorAll('table.sortable th').forEach(th=>th.addEventListener('click',()=>{
 const i=th.cellIndex;const body=th.closest('table').tBodies[0];
 const dir=th.dataset.dir==='asc'?-1:1;
 th.closest('tr').querySelectorAll('th').forEach(h=>{delete h.dataset.dir;});
 th.dataset.dir=dir===1?'asc':'desc';
 const out=[];let run=[];
 const flush=()=>{run.sort((a,b)=>order(key(a.cells[i]),key(b.cells[i]),dir));out.push(...run);run=[];};
 [...body.rows].forEach(r=>{if(r.classList.contains('group')){flush();out.push(r);}else run.push(r);});
 flush();out.forEach(r=>body.appendChild(r));}));
document.querySelectorAll('table.sortable').forEach(table=>{
 const box=document.createElement('input');box.type='search';box.className='filter';
 box.placeholder='filter rows';const at=table.closest('.scroll')||table;at.parentNode.insertBefore(box,at);
 box.addEventListener('input',()=>{const q=box.value.toLowerCase();
  [...table.tBodies[0].rows].forEach(r=>{r.style.display=
   (!q||r.classList.contains('group')||r.textContent.toLowerCase().includes(q))?'':'none';});});});
fromHash();
"""


def _escape(text):
    """HTML text: escaped, without control characters (:func:`mlbench.report.formats.plain`)."""
    from mlbench.report.formats import _html_escape

    return _html_escape(text)


def _svg(draw, prefix):
    """The SVG ``draw(path)`` writes, made inline-safe (no prolog, namespaces or metadata) and
    self-contained (every id, and every reference to one, prefixed with ``prefix``).  The file
    lives in a temporary folder of the system's (``TMPDIR``); that folder full or read-only is one
    line naming it."""
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
    text = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", "", text)
    # matplotlib names glyphs by character (DejaVuSans-41) in every figure: with several figures
    # in one page each would draw the first figure's, which a hidden tab holds
    ids = set(re.findall(r'\sid="([^"]+)"', text))
    text = re.sub(r'(\sid=")([^"]+)"', lambda m: f'{m.group(1)}{prefix}{m.group(2)}"', text)
    text = re.sub(r'(href="#|url\(#)([^")]+)',
                  lambda m: m.group(1) + (prefix if m.group(2) in ids else "") + m.group(2), text)
    return text


def _figure(svg, caption):
    return f"<figure>{svg}<figcaption>{_escape(caption)}</figcaption></figure>" if svg else ""


def _table_html(t):
    from mlbench.report.formats import _html

    return _html(t, sortable=True)


def _claims(paths, results):
    """The claims of a ``claims.yaml`` beside each results file that names it, with whether each
    holds on these results (:func:`mlbench.report.reproduction.claims_beside`); a claims file that
    cannot be read or tested is a note, not a failed report."""
    from mlbench.errors import MlbenchError
    from mlbench.report.reproduction import claims_beside

    e = _escape
    protocols = set(results.frame["protocol"]) if "protocol" in results.frame.columns else set()
    out = []
    for path in paths:
        try:
            papers = claims_beside(path, protocols)
        except MlbenchError as exc:
            out.append(f'<p class="why">claims.yaml beside {e(path)} not shown: {e(exc)}</p>')
            continue
        for name, title, verdicts in papers:
            items = "".join(
                f'<li><span class="{"holds" if holds else "fails"}">'
                f'{"HOLDS" if holds else "DOES NOT HOLD"}</span>: {e(c["text"])}<br>'
                f'<span class="why">test {e(c["test"])}'
                + (f' on {e(", ".join(c["datasets"]))}' if c.get("datasets") else "")
                + f": {e(why)}</span></li>" for c, holds, why in verdicts)
            if items:
                out.append(f"<h3>The claims of {e(name)}: {e(title)}</h3>"
                           f'<ul class="claims">{items}</ul>')
    return "\n".join(out)


def _cell_counts(results):
    """``{(dataset, method): (splits ok, splits failed)}`` of every pair of the report."""
    frame, failures = results.frame, results.failures
    ok = frame.groupby(["dataset", "method"]).size()
    bad = failures.groupby(["dataset", "method"]).size() if len(failures) else None
    return {(d, m): (int(ok.get((d, m), 0)), int(bad.get((d, m), 0)) if bad is not None else 0)
            for m in results.methods for d in results.datasets}


def _cells_line(counts):
    """One sentence on the cells without a result and those with failed splits, for the overview."""
    missing = sum(1 for n_ok, _ in counts.values() if not n_ok)
    failed = sum(1 for _, n_bad in counts.values() if n_bad)
    if not missing and not failed:
        return f"<p>All {len(counts)} (dataset, method) cells have results.</p>"
    parts = [f"{missing} without a result" if missing else "",
             f"{failed} with failed splits" if failed else ""]
    return (f'<p class="bad">Of {len(counts)} (dataset, method) cells, '
            f"{' and '.join(p for p in parts if p)}: see the Cells tab.</p>")


def _cells(results, counts):
    """Methods as rows and datasets as columns (a report has more methods than datasets)."""
    e = _escape
    head = "".join(f"<th>{e(d)}</th>" for d in results.datasets)
    rows = []
    for m in results.methods:
        cells = []
        for d in results.datasets:
            n_ok, n_bad = counts[(d, m)]
            if n_bad:
                cells.append(f'<td class="bad">{n_ok} ok, {n_bad} failed</td>')
            elif n_ok:
                cells.append(f'<td class="ok">{n_ok}</td>')
            else:
                cells.append('<td class="missing">missing</td>')
        rows.append(f"<tr><td>{e(m)}</td>{''.join(cells)}</tr>")
    return ("<h3>Cells: splits ok per method and dataset</h3>"
            f'<div class="scroll"><table class="sortable"><thead><tr><th>method</th>{head}</tr>'
            "</thead><tbody>" + "".join(rows) + "</tbody></table></div>")


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
    return (f'<h3>Mean per cell</h3><div class="scroll"><table class="sortable"><thead><tr>'
            f"<th>method</th>{head}</tr></thead><tbody>{rows}</tbody></table></div>")


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
    return ('<table class="prov">' + "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in items)
            + "</table>")


def dashboard(analysis, tables, paths, protocol=None):
    """The dashboard page (see the module docstring) as one HTML string."""
    from mlbench.report import plots
    from mlbench.report.cd_diagram import write_cd_diagrams

    e = _escape
    results = analysis.results
    numbers = itertools.count(1)

    def svg(draw):
        return _svg(draw, f"f{next(numbers)}-")

    def cd_figure(ma):
        """The CD diagram of one metric, or the note saying why there is none."""
        one = copy.copy(analysis)
        one.metrics, one.notes = [ma], []
        figure = _figure(svg(lambda path: write_cd_diagrams(one, path)),
                         f"critical-difference diagram, {ma.display}")
        return figure or "".join(f'<p class="why">{e(n)}</p>' for n in one.notes)

    tabs = []
    used = set()
    for ma in analysis.metrics:
        own = [t for t in tables if ma.metric in t.key.split(":")[-1].split(",") or t.key.endswith(ma.metric)]
        used.update(id(t) for t in own)
        parts = [_table_html(t) for t in own]
        parts.append(cd_figure(ma))
        parts.append(_figure(svg(lambda p, m=ma.metric: plots.box(results, m, p)),
                             f"{ma.display} on each split"))
        gaps = results.cells(ma.metric)["mean"].unstack("method").reindex(
            index=results.datasets, columns=results.methods).isna().to_numpy().any()
        parts.append(_figure(svg(lambda p, m=ma.metric: plots.heatmap(results, m, p)),
                             f"ranks on {ma.display}" + ("; hatched grey: no result" if gaps else "")))
        notes = [n for n in ma.notes if not any(n in t.notes for t in own)]   # not twice
        if notes:
            parts.append('<ul class="notes">' + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
        tabs.append((f"m-{ma.metric}", ma.display, "\n".join(p for p in parts if p)))
    counts = _cell_counts(results)
    # the headline: claims, the style's first table, the first metric's CD diagram
    headline = [_claims(paths, results), _cells_line(counts)]
    if tables:
        headline.append(_table_html(tables[0]))
        used.add(id(tables[0]))
    headline.append(cd_figure(analysis.metrics[0]))
    tabs.insert(0, ("overview", "Overview", "\n".join(p for p in headline if p)))
    rest = [t for t in tables if id(t) not in used]
    if rest:
        tabs.append(("stats", "Statistics", "\n".join(_table_html(t) for t in rest)))
    tabs.append(("cells", "Cells", _cells(results, counts)))
    first = analysis.metrics[0].metric
    pareto = ""
    if "fit_seconds" in results.frame.columns:
        pareto = _figure(svg(lambda p: plots.pareto(results, first, p)),
                         f"mean {first} against mean fit time; the Pareto front in red")
    tabs.append(("costs", "Costs", _costs(results) + pareto))
    tabs.append(("provenance", "Provenance", _provenance(results, paths, protocol)))
    nav = "".join(f'<button data-tab="{e(tid)}">{e(label)}</button>' for tid, label, _ in tabs)
    body = "\n".join(f'<section id="tab-{e(tid)}" data-tab="{e(tid)}">{content}</section>'
                     for tid, _, content in tabs)
    notes = "".join(f"<li>{e(n)}</li>" for n in analysis.notes)
    title = f"mlbench report: {results.protocol or ', '.join(os.path.basename(p) for p in paths)}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>\n<h1>{e(title)}</h1>\n"
            f"<p>control: {e(analysis.control)} ({e(analysis.control_source)}); "
            f"α = {analysis.alpha:g}</p>" + (f'<ul class="notes">{notes}</ul>' if notes else "")
            + f"\n<nav>{nav}</nav>\n{body}\n<script>{JS}</script>\n</body></html>\n")
