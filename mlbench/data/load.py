"""``load_dataset``: registry entry -> verified files -> parsed :class:`Dataset` -> ``.npz`` cache.

Parts (train, valid, test) are concatenated in that order and ``Dataset.parts`` records each
part's row indices.  ``X`` is stored CSR when at most :data:`SPARSE_DENSITY` of its entries are
nonzero, dense (C order) otherwise.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlbench.data import cache, clus_hmc, meka, mulan_xml
from mlbench.data.arff import read_arff
from mlbench.data.dataset import Dataset
from mlbench.data import fetch
from mlbench.data.hierarchy import Hierarchy
from mlbench.data.registry import DatasetEntry, get_entry
from mlbench.errors import DataError, WriteError

SPARSE_DENSITY = 0.1


def _stack(blocks):
    if any(sp.issparse(b) for b in blocks):
        return sp.vstack([sp.csr_matrix(b) for b in blocks], format="csr")
    return np.vstack(blocks)


def _same_header(datas, what):
    first = datas[0]
    for d in datas[1:]:
        if d.names != first.names:
            raise DataError(f"{d.path}: attributes differ from {first.path} ({what})")


def _parse_arff_parts(entry: DatasetEntry, paths: dict):
    files = entry.data_files
    datas = [read_arff(paths[files[0].role])]
    for f in files[1:]:
        datas.append(read_arff(paths[f.role], sparse=datas[0].sparse_rows))
    _same_header(datas, entry.name)
    return files, datas


def _parse(entry: DatasetEntry, paths: dict):
    """(X, Y, feature names, label names, nominal, parts, hierarchy) of one entry's files."""
    hierarchy = None
    if entry.format == "mldr-rda":
        from mlbench.data.rda import read_mldr

        X, Y, fnames, lnames, nominal = read_mldr(paths[entry.data_files[0].role])
        return X, Y, fnames, lnames, nominal, [len(Y)], [entry.data_files[0].role], None
    files, datas = _parse_arff_parts(entry, paths)
    if entry.format == "mulan":
        xml = entry.file("labels-xml")
        if xml is None:
            raise DataError(f"datasets.yaml: {entry.name}: a MULAN dataset needs a labels-xml file")
        lnames, edges = mulan_xml.read_labels(paths["labels-xml"])
        cols = mulan_xml.label_columns(datas[0], lnames, str(paths["labels-xml"]))
        if edges:
            hierarchy = Hierarchy(edges, lnames)
    elif entry.format == "meka":
        cols = meka.label_columns(datas[0])
        lnames = [datas[0].attributes[j].name for j in cols]
    elif entry.format == "clus-hmc":
        specs = {d.attributes[clus_hmc.class_attribute(d)].spec for d in datas}
        if len(specs) != 1:
            raise DataError(f"{entry.name}: the parts declare different class hierarchies")
        dag = {"dag": True, "tree": False}.get(entry.hierarchy)
        ys = []
        for d in datas:
            Y, hierarchy, col = clus_hmc.labels(d, dag)
            ys.append(Y)
        X, fnames, nominal = mulan_xml.features(datas[0], [col])
        blocks = [X] + [mulan_xml.features(d, [col])[0] for d in datas[1:]]
        return (_stack(blocks), np.vstack(ys), fnames, list(hierarchy.nodes), nominal,
                [len(y) for y in ys], [f.role for f in files], hierarchy)
    else:
        raise DataError(f"{entry.name}: no reader for format {entry.format!r}")
    Xs, Ys = [], []
    for d in datas:
        X, Y, fnames, nominal = mulan_xml.split_features_labels(d, cols)
        Xs.append(X)
        Ys.append(Y)
    return (_stack(Xs), np.vstack(Ys), fnames, lnames, nominal, [len(y) for y in Ys],
            [f.role for f in files], hierarchy)


def _representation(X):
    """CSR when sparse enough (see SPARSE_DENSITY), dense C-ordered float64 otherwise."""
    n = X.shape[0] * X.shape[1]
    nnz = X.nnz if sp.issparse(X) else int(np.count_nonzero(X))
    if n and nnz / n <= SPARSE_DENSITY:
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        return X
    X = X.toarray() if sp.issparse(X) else X
    return np.ascontiguousarray(X, dtype=np.float64)


def build_dataset(entry: DatasetEntry, paths: dict) -> Dataset:
    """Parse the verified files of ``entry`` into a Dataset."""
    X, Y, fnames, lnames, nominal, sizes, roles, hierarchy = _parse(entry, paths)
    parts = {}
    if len(sizes) > 1 or roles[0] != "full":
        bounds = np.cumsum([0] + sizes)
        parts = {r: np.arange(bounds[k], bounds[k + 1]) for k, r in enumerate(roles)}
    return Dataset(name=entry.name, X=_representation(X), Y=np.ascontiguousarray(Y, np.int8),
                   feature_names=list(fnames), label_names=list(lnames), nominal=nominal,
                   parts=parts, hierarchy=hierarchy, sha256=fetch.combined_sha256(entry, paths),
                   domain=entry.domain)


def cached_dataset(name: str, data_dir=None) -> Dataset | None:
    """The registered dataset ``name`` if its current version is in the cache, else None: nothing
    is fetched or parsed (for what only informs, such as a run's time estimate)."""
    entry = get_entry(name)
    if not entry.pinned:
        return None
    ds = cache.load(fetch.data_dir(data_dir), entry.name, fetch.combined_sha256(entry))
    return None if ds is None else ds.without_features(entry.drop_features)


def load_dataset(name: str, data_dir=None, mirror=None, *, refresh: bool = False) -> Dataset:
    """The dataset ``name`` (case-insensitive), from the cache or fetched, verified and parsed.

    ``data_dir`` defaults to ``$MLBENCH_DATA`` or the user cache directory, ``mirror`` to
    ``$MLBENCH_MIRROR``.  ``refresh`` re-parses even when a cache exists.  The cache holds the files
    as parsed; the entry's ``drop_features`` are removed on every load, so a change of that list
    needs no cache rebuild.  A path (``FILE.arff``, ``FILE.arff@N``, ``FILE.csv@N``, a directory of
    a train/test pair) is a user's dataset, read by :func:`mlbench.data.user.load_user_dataset`.
    """
    from mlbench.data.user import is_user_dataset, load_user_dataset

    if is_user_dataset(name):
        return load_user_dataset(name, data_dir)
    root = fetch.data_dir(data_dir)
    entry = get_entry(name)
    expected = fetch.combined_sha256(entry) if entry.pinned else None
    ds = None if refresh else cache.load(root, entry.name, expected)
    if ds is None:
        paths = fetch.fetch_files(entry, root, fetch.mirror_location(mirror))
        ds = build_dataset(entry, paths)
        try:
            cache.save(root, ds)
        except WriteError as exc:  # a full disk or read-only data dir: the dataset is still good
            import sys

            print(f"mlbench: note: {entry.name} parsed but not cached ({exc})", file=sys.stderr)
    return ds.without_features(entry.drop_features)
