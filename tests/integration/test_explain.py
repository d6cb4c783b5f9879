"""``mlbench explain imtsl``: the signed label graph beside the heat map of its Laplacian, and the
list of stable edges."""
import numpy as np
import pytest
import yaml

from mlbench.methods.mtl import explain


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Emotions is embedded in the package: no mirror and no user cache needed."""
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MLBENCH_MIRROR", raising=False)


@pytest.fixture
def small_protocol(tmp_path):
    """The imtsl protocol's shape with a one-point grid and few subsamples (fast)."""
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump({
        "name": "small", "split": {"scheme": "holdout", "repeats": 1}, "metrics": ["accuracy"],
        "preprocess": ["standardize"],
        "methods": [{"name": "imtsl", "params": {"lambdas": 4.0, "gammas": 0.0, "n_subsamples": 6,
                                                 "max_iter": 100}}]}))
    return str(path)


def test_explain_writes_png_and_lists_signed_edges(small_protocol, tmp_path, cli):
    out = tmp_path / "g.png"
    code, stdout, err = cli(["explain", "imtsl", "--dataset", "emotions", "--protocol",
                             small_protocol, "--out", str(out)])
    assert code == 0, err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = stdout.strip().splitlines()
    assert lines[0].startswith("emotions: 6 labels,") and "lambda = 4" in lines[0]
    edges = lines[1:-1]
    assert edges and all(line.split()[2] in "+-" and 0.8 <= float(line.split()[3]) <= 1 for line in edges)
    assert lines[-1] == f"signed graph and heat map: {out}, {out.with_suffix('.pdf')}"
    assert out.with_suffix(".pdf").read_bytes()[:4] == b"%PDF"
    assert "pi_thr" not in stdout and "selected in at least 0.8 of" in lines[0]


def test_explain_graph_matches_the_laplacian(small_protocol):
    g = explain.explain_imtsl("emotions", protocol=small_protocol, seed=1)
    L = g.laplacian
    E = np.diag(np.diag(L)) - L  # Lbar = Dbar - Ebar
    for i, j, sign, freq in g.edges:
        assert E[i, j] == sign and E[j, i] == sign and freq >= 0.8
    assert np.count_nonzero(E) == 2 * len(g.edges)
    np.testing.assert_array_equal(np.diag(L), np.abs(E).sum(axis=1))


@pytest.mark.parametrize("argv, message", [
    (["explain", "br", "--dataset", "emotions"], "explain supports imtsl"),
    (["explain", "imtsl", "--dataset", "no-such-data"], "no-such-data"),
    (["explain", "imtsl", "--dataset", "emotions", "--out", "g.txt"],      # before the fit
     "--out must end in .png, .svg or .pdf (got g.txt)"),
])
def test_explain_bad_input_exits_2(argv, message, cli):
    code, _, err = cli(argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_the_signed_graph_draws_positive_and_negative_edges_apart(small_protocol):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = explain.explain_imtsl("emotions", protocol=small_protocol, seed=1)
    g.edges = [(0, 1, 1, 0.9), (2, 3, -1, 0.85)]          # one edge of each sign
    fig, ax = plt.subplots()
    explain.draw_graph(g, ax)
    colours = {tuple(round(x, 3) for x in c.get_edgecolor()[0][:3]) for c in ax.collections[1:]}
    plt.close(fig)
    assert "1 positive (solid), 1 negative (dashed)" in ax.get_title()
    assert len(colours) == 2                                # blue and red

