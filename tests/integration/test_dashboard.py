"""The HTML dashboard (issue 20, part 5): one self-contained file; in a real headless Chromium
(slow test) it loads without errors, every tab and figure renders and a click sorts a table."""
import json
import re
import shutil
import subprocess

import pandas as pd
import pytest


def results(tmp_path):
    rows = [dict(dataset=f"d{d}", method=m, protocol="x", split=f"r{s}", status="ok", seed=0,
                 n_train=50, n_test=50, macro_f1=v + 0.02 * d + 0.01 * s, hamming_loss=0.3 - v / 3,
                 fit_seconds=t, predict_seconds=t / 10, peak_memory_mb=20.0)
            for d in range(3) for s in range(3)
            for m, v, t in (("fast", 0.5, 0.1), ("slow-good", 0.7, 10.0), ("slow-bad", 0.4, 20.0))]
    rows.append(dict(dataset="d0", method="fast", protocol="x", split="r9", status="error", seed=0))
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_one_file_without_network_references(tmp_path, cli):
    out = tmp_path / "r.html"
    code, _, err = cli(["report", str(results(tmp_path)), "--format", "html", "-o", str(out)])
    assert code == 0, err
    page = out.read_text()
    assert "http" not in page and "<script src" not in page and "<link" not in page
    for section in ("overview", "m-macro_f1", "m-hamming_loss", "costs", "provenance"):
        assert f'<section id="{section}"' in page
    assert page.count("<svg") >= 7        # 2 metrics x (CD, box, heat map) + Pareto
    assert "1 failed" in page and "scikit-learn" in page and "sha256" in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROBE = """<script>
window.addEventListener('load', () => setTimeout(() => {
  const out = {errors: window.__errors, tabs: [], sorted: null};
  document.querySelectorAll('nav button').forEach(b => {
    b.click();
    const s = document.getElementById(b.dataset.tab);
    const figs = [...s.querySelectorAll('svg')].map(g => g.getBoundingClientRect());
    out.tabs.push({tab: b.dataset.tab, visible: s.offsetHeight > 0,
                   figures: figs.length, drawn: figs.filter(r => r.width > 50 && r.height > 50).length});
  });
  document.querySelector('nav button[data-tab=costs]').click();
  const th = document.querySelector('#costs table.sortable th:nth-child(2)');
  th.click();
  const col = [...document.querySelectorAll('#costs table.sortable tbody tr')]
    .map(r => parseFloat(r.cells[1].textContent));
  out.sorted = col;
  const box = document.querySelector('#costs input.filter');
  box.value = 'slow';
  box.dispatchEvent(new Event('input'));
  out.filtered = [...document.querySelectorAll('#costs table.sortable tbody tr')]
    .filter(r => r.style.display !== 'none').map(r => r.cells[0].textContent);
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 200));
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (Debian package chromium) on this machine")
def test_the_page_in_headless_chromium(tmp_path, cli):
    out = tmp_path / "r.html"
    assert cli(["report", str(results(tmp_path)), "--format", "html", "-o", str(out)])[0] == 0
    page = out.read_text().replace(
        "<head>", "<head><script>window.__errors=[];window.addEventListener('error',"
                  "e=>window.__errors.push(String(e.message)));</script>", 1)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
           probe.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    result = json.loads(found.group(1).replace("&quot;", '"'))
    assert result["errors"] == []
    tabs = {t["tab"]: t for t in result["tabs"]}
    assert all(t["visible"] for t in tabs.values())
    for tab in ("m-macro_f1", "m-hamming_loss"):
        assert tabs[tab]["figures"] == tabs[tab]["drawn"] == 3       # CD, box, heat map
    assert tabs["costs"]["drawn"] == 1
    assert result["sorted"] == sorted(result["sorted"])                # fit seconds ascending
    assert sorted(result["filtered"]) == ["slow-bad", "slow-good"]      # the row filter
