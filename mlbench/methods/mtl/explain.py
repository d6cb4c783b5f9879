"""What I-MTSL learned about a dataset's labels: its stable signed label graph.

:func:`explain_imtsl` fits I-MTSL as a protocol runs it (the protocol's preprocessing fitted on all
rows, the protocol's parameters for ``imtsl``, hold-out choice of lambda and gamma) on the whole
dataset, and returns the signed Laplacian Lbar and the stable edges with their signs and selection
frequencies (the I-MTSL paper's Figure 2 and the "posterior investigation" of Section 6).
:func:`plot_laplacian` draws Lbar as a heat map (matplotlib, Agg backend: no display needed).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LabelGraph:
    """Lbar, the label names, the stable edges (i, j, sign, frequency) and the chosen parameters."""

    dataset: str
    labels: list
    laplacian: np.ndarray
    edges: list
    params: dict
    n_subsamples: int
    pi_thr: float = 0.8


def imtsl_params(protocol):
    """The parameters the protocol gives ``imtsl`` (its registered defaults if it lists none)."""
    for entry in protocol.methods:
        if entry.name == "imtsl":
            return dict(entry.params)
    return {}


def explain_imtsl(dataset_name, protocol="imtsl", seed=0, data_dir=None, mirror=None):
    """Fit I-MTSL on all rows of ``dataset_name`` and describe its stable signed label graph."""
    from mlbench.data import load_dataset
    from mlbench.data.preprocess import apply_steps
    from mlbench.methods import registry
    from mlbench.protocols import load_protocol

    proto = load_protocol(protocol)
    ds = apply_steps(load_dataset(dataset_name, data_dir, mirror), proto.preprocess)
    params = imtsl_params(proto)
    model = registry.make("imtsl", random_state=seed, **params).fit(ds.X, ds.Y)
    E = model.signed_edges_
    edges = []
    for i, j in zip(*np.nonzero(np.triu(E))):
        freq = model.edge_freq_pos_[i, j] if E[i, j] > 0 else model.edge_freq_neg_[i, j]
        edges.append((int(i), int(j), int(E[i, j]), float(freq)))
    edges.sort(key=lambda e: (-e[3], e[0], e[1]))
    return LabelGraph(ds.name, list(ds.label_names), model.laplacian_, edges, dict(model.fit_info_),
                      int(model.n_subsamples), float(model.pi_thr))


def edge_lines(graph):
    """The stable edges as text lines: ``label_i  label_j  +/-  frequency``."""
    if not graph.edges:
        return ["no stable edge"]
    width = max(len(graph.labels[k]) for e in graph.edges for k in e[:2])
    return [f"{graph.labels[i]:<{width}}  {graph.labels[j]:<{width}}  {'+' if s > 0 else '-'}  {f:.2f}"
            for i, j, s, f in graph.edges]


def draw_graph(graph, ax):
    """The stable label graph as a signed graph (networkx): positive edges solid blue, negative
    edges dashed red, width by selection frequency; labels without a stable edge in grey."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(len(graph.labels)))
    for i, j, sign, freq in graph.edges:
        G.add_edge(i, j, sign=sign, freq=freq)
    pos = nx.circular_layout(G) if len(graph.labels) <= 60 else nx.spring_layout(G, seed=0)
    linked = {k for e in graph.edges for k in e[:2]}
    nx.draw_networkx_nodes(G, pos, ax=ax, node_size=220,
                           node_color=["#8ab" if k in linked else "#ddd" for k in G.nodes])
    for sign, style, colour in ((1, "solid", "#1f5fbf"), (-1, "dashed", "#c0392b")):
        es = [(i, j) for i, j, d in G.edges(data=True) if d["sign"] == sign]
        nx.draw_networkx_edges(G, pos, edgelist=es, ax=ax, style=style, edge_color=colour,
                               width=[0.5 + 2.5 * G[i][j]["freq"] for i, j in es])
    if len(graph.labels) <= 40:
        nx.draw_networkx_labels(G, pos, {k: graph.labels[k] for k in G.nodes}, ax=ax, font_size=7)
    n_pos = sum(1 for e in graph.edges if e[2] > 0)
    ax.set_title(f"stable label graph: {n_pos} positive (solid), {len(graph.edges) - n_pos} "
                 f"negative (dashed)", fontsize=9)
    ax.axis("off")


def plot_laplacian(graph, path):
    """The signed label graph (left) beside the heat map of Lbar (right; diverging colours
    centred at 0, positive diagonal, -sign on edges), written to ``path`` and as a PDF beside it;
    returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mlbench.report.figures import save_figure, with_pdf

    L = graph.laplacian
    Q = L.shape[0]
    size = min(12.0, max(5.5, 0.22 * Q + 2.5))
    fig, (gax, ax) = plt.subplots(1, 2, figsize=(2 * size + 1.2, size))
    draw_graph(graph, gax)
    vmax = max(1.0, float(np.abs(L).max()))
    im = ax.imshow(L, cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("Lbar = Dbar - Ebar (off-diagonal: minus the edge's sign)", fontsize=8)
    if Q <= 60:
        fs = 8 if Q <= 20 else 5
        ax.set_xticks(range(Q), graph.labels, rotation=90, fontsize=fs)
        ax.set_yticks(range(Q), graph.labels, fontsize=fs)
    n_pos = sum(1 for e in graph.edges if e[2] > 0)
    ax.set_title(f"I-MTSL signed Laplacian, {graph.dataset}\n{n_pos} positive, "
                 f"{len(graph.edges) - n_pos} negative stable edges", fontsize=9)
    fig.tight_layout()
    paths = with_pdf(path)
    save_figure(fig, paths, hint="choose another --out", dpi=120)
    return paths
