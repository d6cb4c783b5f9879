"""Every fetchable dataset of datasets.yaml, from the mirror, against its published counts."""
import os

import numpy as np
import pytest

from mlbench.data import load_dataset
from mlbench.data.registry import registry

DONE_WHEN = ["emotions", "yeast", "scene", "medical", "enron", "corel5k", "cal500", "birds",
             "genbase", "rcv1subset1"]


def mirror():
    root = os.environ.get("MLBENCH_MIRROR")
    if not root or not os.path.isdir(root):
        pytest.skip("MLBENCH_MIRROR is not set to the dataset mirror directory")
    return root


def check(name, data_dir):
    entry = registry()[name]
    ds = load_dataset(name, data_dir, mirror())
    p = entry.published
    # drop_features (genbase's protein id) are identifiers the source counts as features
    assert (ds.n_instances, ds.n_features + len(entry.drop_features), ds.n_labels) == \
        (p["instances"], p["features"], p["labels"]), name
    assert ds.Y.dtype == np.int8 and set(np.unique(ds.Y)) <= {0, 1}
    if entry.parts:
        assert sum(len(v) for v in ds.parts.values()) == ds.n_instances
    if entry.format == "clus-hmc":
        assert ds.hierarchy is not None and len(ds.hierarchy) == ds.n_labels
        # hierarchy constraint: a positive node's parents are positive
        idx = ds.hierarchy.index
        for child in ds.hierarchy.nodes[:50]:
            for parent in ds.hierarchy.parents(child):
                assert (ds.Y[:, idx[parent]] >= ds.Y[:, idx[child]]).all()
    again = load_dataset(name, data_dir, mirror())  # the cache gives the same data
    assert again.sha256 == ds.sha256 and again.X.shape == ds.X.shape


@pytest.mark.mirror
@pytest.mark.slow
@pytest.mark.parametrize("name", DONE_WHEN)
def test_done_when_datasets(name, tmp_path_factory):
    check(name, tmp_path_factory.getbasetemp() / "mirror-data")


@pytest.mark.mirror
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, e in registry().items()
                                  if e.fetchable and not e.network_only and n not in DONE_WHEN])
def test_other_mirror_datasets(name, tmp_path_factory):
    check(name, tmp_path_factory.getbasetemp() / "mirror-data")



@pytest.mark.mirror
@pytest.mark.slow
def test_the_study_tmc2007_500_is_the_mldr_datasets_copy(tmp_path_factory):
    """Bogatinovski et al. 2022 list Tmc2007 500 with label cardinality 2.2253 (17190 training rows)
    and 2.2107 (11462 test rows): that is the mldr.datasets file, not the MULAN files (2.158)."""
    root = tmp_path_factory.getbasetemp() / "mirror-data"
    study = (17190 * 2.2253 + 11462 * 2.2107) / (17190 + 11462)
    mldr = load_dataset("tmc2007-500-mldr", root, mirror())
    mulan = load_dataset("tmc2007-500", root, mirror())
    assert mldr.feature_names == mulan.feature_names and mldr.label_names == mulan.label_names
    assert abs(mldr.Y.sum(1).mean() - study) < 0.005
    assert abs(mulan.Y.sum(1).mean() - study) > 0.05

@pytest.mark.mirror
def test_manifest_datasets_and_hashes_are_in_the_registry():
    import csv

    path = os.path.join(mirror(), "MANIFEST.tsv")
    if not os.path.isfile(path):
        pytest.skip(f"no MANIFEST.tsv in {mirror()}")
    with open(path) as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    lower = {n.lower(): e for n, e in registry().items()}
    pinned = {f.url: f.sha256 for e in registry().values() for f in e.files}
    for row in rows:
        name = row["dataset"].split(" (")[0].lower()
        if "meka music variant" in row["dataset"].lower():
            name = "emotions-meka"
        assert name in lower, row["dataset"]
        if row["url"] in pinned:
            assert pinned[row["url"]] == row["sha256"], row["url"]
    assert sum(u in pinned for u in (r["url"] for r in rows)) >= 100
