"""``mlbench plot``: every kind is drawn for every metric, as PNG, SVG and/or PDF (PNG and PDF by
default), and the Pareto front is the set of methods no other method beats on both score and time
(issue 20, part 4; issue 44, item 3)."""
import numpy as np
import pandas as pd
import pytest

from mlbench.report.plots import pareto_front


def results(tmp_path):
    rows = [dict(dataset=f"d{d}", method=m, protocol="x", split=f"r{s}", status="ok",
                 macro_f1=v + 0.02 * d + 0.01 * s, hamming_loss=0.3 - v / 3, fit_seconds=t)
            for d in range(3) for s in range(3)
            for m, v, t in (("fast", 0.5, 0.1), ("slow-good", 0.7, 10.0), ("slow-bad", 0.4, 20.0),
                            ("mid", 0.6, 1.0))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_pareto_front_by_hand():
    assert pareto_front([0.5, 0.7, 0.4, 0.6], [0.1, 10, 20, 1.0]) == [0, 1, 3]
    assert pareto_front([0.3, 0.2], [1.0, 1.0], greater=False) == [1]     # a loss: lower wins


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_every_kind_for_every_metric(tmp_path, cli, fmt, magic):
    out = tmp_path / "plots"
    code, text, err = cli(["plot", str(results(tmp_path)), "-o", str(out), "--format", fmt])
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{k}-{m}.{fmt}" for k in ("box", "heatmap", "pareto", "cd", "bayes")
                           for m in ("hamming_loss", "macro_f1"))
    for p in out.iterdir():
        assert p.read_bytes().startswith(magic) and p.stat().st_size > 1000


def test_png_and_pdf_by_default(tmp_path, cli):
    """Every picture comes as a PNG to look at and a PDF for a paper unless --format says."""
    out = tmp_path / "plots"
    code, text, err = cli(["plot", str(results(tmp_path)), "-o", str(out), "--kind", "cd,pareto",
                           "--metric", "macro_f1"])
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["cd-macro_f1.pdf", "cd-macro_f1.png",
                                                     "pareto-macro_f1.pdf", "pareto-macro_f1.png"]
    pdf = (out / "cd-macro_f1.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"FontFile2" in pdf and b"/Type3" not in pdf  # TrueType
    code, text, err = cli(["plot", str(results(tmp_path)), "-o", str(out), "--kind", "box",
                           "--format", "svg,pdf,svg"])
    assert code == 0, err
    assert {"box-macro_f1.svg", "box-macro_f1.pdf"} <= {p.name for p in out.iterdir()}
    assert "box-macro_f1.png" not in {p.name for p in out.iterdir()}


def test_bad_format_is_one_line(tmp_path, cli):
    code, _, err = cli(["plot", str(results(tmp_path)), "--format", "png,gif", "-o", str(tmp_path / "p")])
    assert code == 2 and "unknown picture format 'gif'" in err and err.count("\n") == 1
    assert not (tmp_path / "p").exists()


def test_bad_kind_is_one_line(tmp_path, cli):
    code, _, err = cli(["plot", str(results(tmp_path)), "--kind", "pie", "-o", str(tmp_path / "p")])
    assert code == 2 and "unknown plot kind 'pie'" in err and err.count("\n") == 1


def test_the_bayes_plot_draws_the_posterior_the_test_reports(tmp_path):
    """The points' regions give the probabilities bayesian_signed_rank reports (same samples)."""
    from mlbench.stats.bayesian import bayesian_signed_rank, posterior_samples

    a, b = np.array([0.8, 0.7, 0.9, 0.6]), np.array([0.7, 0.69, 0.85, 0.62])
    theta = posterior_samples(a, b, n_samples=4000, random_state=1)
    assert theta.shape == (4000, 3) and np.allclose(theta.sum(axis=1), 1.0)
    r = bayesian_signed_rank(a, b, n_samples=4000, random_state=1)
    share = np.bincount(theta.argmax(axis=1), minlength=3) / 4000
    assert tuple(share) == (r.p_control_better, r.p_rope, r.p_control_worse)
