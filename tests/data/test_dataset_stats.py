"""Each dataset statistic on a toy dataset whose values are worked out by hand."""
import json
import math

import numpy as np
import scipy.sparse as sp

from mlbench.data.dataset import Dataset
from mlbench.data.hierarchy import Hierarchy
from mlbench.data.stats import (distinct_labelsets, imbalance_ratios, render, sparsity,
                                statistics)

# 4 instances, 3 labels: label 0 has 1 positive (IR 3/1), label 1 has 2 (IR 1), label 2 none (inf)
Y = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=np.int8)
X = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0], [np.nan, 3.0]])


def toy(**kw):
    return Dataset(name="toy", X=X, Y=Y, feature_names=["a", "b"], label_names=["x", "y", "z"],
                   domain="test", **kw)


def test_imbalance_ratio_per_label_with_inf_for_no_positive():
    assert imbalance_ratios(Y).tolist() == [3.0, 1.0, math.inf]


def test_statistics_by_hand():
    s = statistics(toy())
    assert s["instances"] == 4 and s["features"] == 2 and s["labels"] == 3
    assert s["cardinality"] == 3 / 4 and s["density"] == 3 / 4 / 3
    assert s["distinct"] == 3 and s["pdl"] == 3 / 4   # {x,y}, {y}, {}
    assert s["ir_min"] == 1.0 and s["ir_max"] == math.inf and s["ir_mean"] == math.inf
    assert s["sparsity"] == 4 / 8                       # NaN is not a zero
    assert s["feature_type"] == "numeric" and "depth" not in s


def test_feature_type_and_hierarchy_columns():
    h = Hierarchy([("x", "y"), ("x", "z")])
    s = statistics(toy(nominal={0: ["0", "1"]}, hierarchy=h))
    assert s["feature_type"] == "mixed"
    assert (s["depth"], s["nodes"], s["leaves"]) == (1, 3, 2)
    assert statistics(toy(nominal={0: ["0", "1"], 1: ["0", "1"]}))["feature_type"] == "nominal"


def test_sparse_matrix_statistics_agree_with_dense():
    assert sparsity(sp.csr_matrix(np.nan_to_num(X, nan=5.0))) == sparsity(np.nan_to_num(X, nan=5.0))
    assert distinct_labelsets(np.zeros((0, 3))) == 0


def test_render_formats():
    rows = [statistics(toy())]
    assert json.loads(render(rows, "json"))[0]["ir_max"] == "inf"
    csv_text = render(rows, "csv").splitlines()
    assert csv_text[0].startswith("name,domain,instances") and csv_text[1].startswith("toy,test,4")
    assert render(rows, "markdown").splitlines()[2].startswith("| toy | test | 4 |")
    assert "\\begin{tabular}" in render(rows, "latex")
    assert "toy" in render(rows, "terminal")
