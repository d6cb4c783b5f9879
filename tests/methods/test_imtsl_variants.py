"""I-MTSL's graph ablation, the convergence report of the MTL family, and the imtsl-paper protocol."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.mtl.baselines import HoldoutLogistic
from mlbench.methods.mtl.imtsl import IMTSL, fit_laplacian_l1, random_signed_graph
from mlbench.methods.mtl.holdout import PAPER_GRID
from mlbench.methods.mtl.trace import TraceNormMTL
from mlbench.protocols import load_protocol

from tests.methods.test_imtsl import SMALL, toy_multilabel


def _graph(Q, pos, neg):
    E = np.zeros((Q, Q))
    for (r, s) in pos:
        E[r, s] = E[s, r] = 1
    for (r, s) in neg:
        E[r, s] = E[s, r] = -1
    return E


def test_random_graph_keeps_the_edge_counts_and_is_seeded():
    E = _graph(7, [(0, 1), (2, 5), (3, 6)], [(1, 4), (0, 6)])
    R = random_signed_graph(E, np.random.RandomState(0))
    iu = np.triu_indices(7, 1)
    assert (R[iu] > 0).sum() == 3 and (R[iu] < 0).sum() == 2
    np.testing.assert_array_equal(R, R.T)
    assert np.all(np.diag(R) == 0)
    np.testing.assert_array_equal(R, random_signed_graph(E, np.random.RandomState(0)))
    draws = {random_signed_graph(E, np.random.RandomState(s)).tobytes() for s in range(10)}
    assert len(draws) > 5      # the placement changes with the seed


@pytest.mark.parametrize("objective, scale", [("eq8", 1.0), ("eq5", None)])
def test_empty_graph_is_l1_logistic_per_label_as_in_sklearn(objective, scale):
    """With Lbar = 0, Eq. 5 splits into one l1 logistic regression per label: scikit-learn's saga
    (an independent solver; C = 1/gamma at the summed scale, 1/(gamma n) at the mean scale)."""
    X, Y = toy_multilabel(120)
    gamma = 0.8 if objective == "eq8" else 0.02
    m = IMTSL(graph="empty", gammas=gamma, objective=objective, max_iter=20000, tol=1e-10).fit(X, Y)
    C = 1.0 / (gamma * (scale or X.shape[0]))
    for q in range(Y.shape[1]):
        ref = LogisticRegression(C=C, l1_ratio=1.0, solver="saga", tol=1e-12, max_iter=100000).fit(X, Y[:, q])
        np.testing.assert_allclose(m.coef_[:, q], ref.coef_[0], atol=2e-4)
        assert m.intercept_[q] == pytest.approx(ref.intercept_[0], abs=2e-4)
    assert m.fit_info_["n_edges_pos"] == 0 and m.fit_info_["converged"]


def test_empty_graph_searches_gamma_only_and_runs_no_structure():
    X, Y = toy_multilabel()
    m = IMTSL(graph="empty", **SMALL, random_state=0).fit(X, Y)
    assert len(m.validation_scores_) == len(SMALL["gammas"])
    assert "lambda" not in m.fit_info_ and "structure_iter" not in m.fit_info_
    assert not np.any(m.signed_edges_)


def test_random_graph_has_the_learned_graphs_size_and_differs_from_it():
    X, Y = toy_multilabel()
    one = dict(lambdas=1.0, gammas=0.0, n_subsamples=6, max_iter=200, random_state=0)
    learned = IMTSL(**one).fit(X, Y)
    rand = IMTSL(graph="random", **one).fit(X, Y)
    iu = np.triu_indices(Y.shape[1], 1)
    assert (rand.signed_edges_[iu] > 0).sum() == (learned.signed_edges_[iu] > 0).sum()
    assert (rand.signed_edges_[iu] < 0).sum() == (learned.signed_edges_[iu] < 0).sum()
    assert rand.fit_info_["n_edges_learned"] == int(np.abs(learned.signed_edges_[iu]).sum())
    assert rand.fit_info_["n_edges_learned"] > 0
    # the same graph would give the same model: the ablation must have moved at least one edge
    assert not np.array_equal(rand.signed_edges_, learned.signed_edges_) or \
        np.array_equal(rand.coef_, learned.coef_)


def test_ablations_are_registered_and_checked():
    assert registry.get("imtsl-empty").params == {"graph": "empty"}
    assert registry.get("imtsl-random").params == {"graph": "random"}
    with pytest.raises(ConfigError):
        IMTSL(graph="full").fit(*toy_multilabel(40))


def test_fit_info_reports_the_convergence_of_the_final_fit_and_of_the_search():
    X, Y = toy_multilabel()
    capped = IMTSL(**{**SMALL, "max_iter": 2}, random_state=0).fit(X, Y)
    info = capped.fit_info_
    assert 2 <= info["search_fits"] <= 4 and info["search_unconverged"] == info["search_fits"]
    assert info["converged"] is False and info["n_iter"] == 2 and info["rel_change"] > 0
    done = IMTSL(**{**SMALL, "max_iter": 20000}, tol=1e-7, random_state=0).fit(X, Y)
    assert done.fit_info_["search_unconverged"] == 0 and done.fit_info_["converged"]
    assert done.fit_info_["rel_change"] <= 1e-7
    trace = TraceNormMTL(lambdas=[0.0, 0.1], max_iter=3).fit(X, Y)
    assert trace.fit_info_["search_unconverged"] == 2 and "rel_change" in trace.fit_info_


def test_search_counts_solver_runs_not_reused_points():
    """Two lambdas with the same stable graph share their solutions: counted once."""
    X, Y = toy_multilabel()
    m = IMTSL(lambdas=[1.0, 1.0 + 1e-9], gammas=[0.0, 0.05], n_subsamples=6, max_iter=2,
              random_state=0).fit(X, Y)
    assert len(m.validation_scores_) == 4
    assert m.fit_info_["search_fits"] == 2 and m.fit_info_["search_unconverged"] == 2
    assert "reused" not in m.fit_info_


def test_converged_fit_is_the_optimum_with_a_graph():
    """The stopping rule (relative step <= tol) stops at the optimum: the objective matches a run
    ten times tighter, and the result converges within the cap."""
    X, Y = toy_multilabel(150)
    lap = np.diag([1.0, 1.0, 0, 0]) - _graph(4, [(0, 1)], [])
    a = fit_laplacian_l1(X, Y, lap, 0.3, objective="eq5", max_iter=5000, tol=1e-5)
    b = fit_laplacian_l1(X, Y, lap, 0.3, objective="eq5", max_iter=100000, tol=1e-12)
    assert a.converged and a.objective == pytest.approx(b.objective, rel=1e-6)


def test_paper_protocol_uses_the_mean_loss_for_every_method():
    paper = {m.id or m.name: m for m in load_protocol("imtsl-paper").methods}
    summed = {m.id or m.name: m for m in load_protocol("imtsl").methods}
    assert set(paper) == set(summed) >= {"br", "cc", "imtsl", "imtsl-empty", "imtsl-random"}
    for name in ("imtsl", "imtsl-empty", "imtsl-random"):
        assert paper[name].params["objective"] == "eq5"
        assert summed[name].params.get("objective", "eq8") == "eq8"
    for name in ("imtsl", "imtsl-random"):     # Eqs. 2 and 5 at one scale in each protocol
        assert paper[name].params["structure_loss"] == "mean"
        assert summed[name].params.get("structure_loss", IMTSL().structure_loss) == "sum"
    for name in ("br", "cc"):
        assert paper[name].params["scale"] == "mean"
        assert summed[name].params.get("scale", HoldoutLogistic().scale) == "sum"
    # every penalty of imtsl-paper searches one grid: ten log-spaced values from 1e-4 to 10
    grids = [v for m in paper.values() for k, v in m.params.items() if k in ("lambdas", "gammas", "rho1s", "rho2s")]
    assert len(grids) == 11 and all(g == grids[0] for g in grids)
    np.testing.assert_allclose(grids[0], np.logspace(-4, 1, 10), rtol=3e-3)
    for m in summed.values():        # imtsl keeps the paper's ten values in [0, 5]
        assert not any(k in m.params for k in ("lambdas", "gammas", "rho1s", "rho2s"))
        assert not any(v != list(PAPER_GRID) for v in registry.get(m.name).grid.values())
    p = load_protocol("imtsl-paper")
    assert p.split.validation_fraction == 0.2 and p.split.repeats == 10 and len(p.datasets) == 8


def test_paper_grid_spans_the_mean_loss_scale():
    """imtsl-paper's grid acts at the mean scale (issue 40): its small values leave W and the label
    graph dense, its large ones empty them, and the l1 threshold of W (the largest |gradient| of the
    mean loss at W = 0) lies inside it.  On [0, 5] only 0 kept a weight or an edge."""
    from mlbench.methods.mtl.ising import stability_path

    grid = next(m for m in load_protocol("imtsl-paper").methods if m.name == "imtsl").params["gammas"]
    X, Y = toy_multilabel(300)
    Xc = X - X.mean(axis=0)
    threshold = np.abs(Xc.T @ (Y - Y.mean(axis=0))).max() / len(X)
    assert min(grid) < threshold < max(grid)
    nonzero = [np.count_nonzero(fit_laplacian_l1(X, Y, np.zeros((4, 4)), g, objective="eq5",
                                                 max_iter=3000).x[:-1]) for g in grid]
    assert nonzero[0] == X.shape[1] * Y.shape[1] and nonzero[-1] == 0
    assert 0 < nonzero[grid.index(max(g for g in grid if g < threshold))]
    path = stability_path(Y, grid, 4, np.random.RandomState(0), loss="mean")
    n_edges = [int(np.count_nonzero(np.triu(path.edges(k, 0.8)))) for k in range(len(grid))]
    assert n_edges[0] > 0 and n_edges[-1] == 0
    assert n_edges == sorted(n_edges, reverse=True)
