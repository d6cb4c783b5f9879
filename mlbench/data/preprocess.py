"""Preprocessing steps of a protocol, each fitted on the training part only.

A protocol lists steps by name, optionally with parameters::

    preprocess:
      - standardize
      - {step: drop_rare_binary_features, min_fraction: 0.01}

Every step has ``fit(train: Dataset)`` and ``transform(ds: Dataset) -> Dataset``; :class:`Pipeline`
chains them, so a test part is transformed with statistics learnt on the training part alone, and
labels dropped on the training part are dropped from the test part too.  ``Pipeline.info()`` records
which original labels and features were kept.  :func:`apply_steps` fits on every row (what
``mlbench info --protocol`` describes).

Any step takes ``only: [dataset names]`` to apply to those datasets alone (the SOSHF paper applies
its frequent-feature rule to RCV1 only); on other datasets it is skipped.

Steps (names as in protocols):

``standardize``
    z-score of every numeric (non-nominal) column: subtract the training mean, divide by the training
    standard deviation (population form; a constant column is only centred).  On CSR data the
    centring is skipped (it would make the matrix dense) and columns are only scaled.
    ``{step: standardize, nominal: true}`` z-scores nominal columns too, as numbers (their value
    indices), and they stop being nominal: for protocols whose paper z-scores every covariate of
    a numeric data matrix (I-MTSL: genbase, enron and medical declare every feature nominal).
``min_max``
    scale every numeric (non-nominal) column to [0, 1] on the training rows: subtract the training
    minimum, divide by the training range (scikit-learn's ``MinMaxScaler``; a constant column is
    only shifted).  On CSR data only the division is done (the shift would make the matrix dense;
    it is exact when the column's minimum is 0, as for counts and tf-idf).  ``{step: min_max,
    nominal: true}`` scales nominal columns too, as numbers (their value indices), and they stop
    being nominal: the Bogatinovski et al. (2022) study scales every column.
``drop_rare_binary_features`` (``min_fraction``, default 0.01)
    drop 0/1 features (nominal attributes with two values, or numeric columns whose training values
    are all 0 or 1) present in fewer than ``min_fraction`` of the training rows (SOSHF, Experiments).
``min_feature_frequency`` (``min_fraction``, default 0.01)
    keep only features nonzero in at least ``min_fraction`` of the training rows (the SOSHF paper's
    RCV1 rule); works on CSR without densifying.
``drop_imbalanced_labels`` (``max_ratio``, default 50; ``rows``)
    drop labels whose imbalance ratio |majority| / |minority| on the training rows exceeds
    ``max_ratio`` (a label with no positive or no negative row has an infinite ratio).
``top_k_labels`` (``k``; ``rows``)
    keep the ``k`` labels with the most positive training rows (ties: earlier label first), in their
    original order (the MC paper keeps the ten most common RCV1 labels).

The two label selections take ``rows: training`` (the default) or ``rows: all``: with ``all`` the
selection is computed on every row of the dataset, training and test, from the label matrix alone
(no feature is looked at), so that every split keeps the same labels: the label set a paper's
dataset table describes (SOSHF's Table 1 for CAL500).  ``Pipeline.fit(train, full=dataset)`` gives
it the rows; without ``full`` the training part stands in.
``ltc``
    Cornell ltc term weighting (HierCost, Sec. 5.1): ``(1 + ln tf)`` for nonzero term frequencies,
    times ``ln(N / df)`` with N and df counted on the training rows, then each row scaled to unit
    Euclidean norm.  Terms absent from the training rows get weight 0.
``impute`` (``numeric``: ``mean`` | ``median``, default mean; ``nominal``: ``most_frequent``)
    fill missing values (NaN, ARFF's ``?``) with statistics of the training rows alone, learnt by
    scikit-learn's ``SimpleImputer``: the column mean (or median) for numeric columns, the most
    frequent declared value for nominal ones.  A column with no observed training value is filled
    with 0 (the first declared value for a nominal).  On CSR data the implicit zeros count as
    observed values and only stored NaNs are filled.  Needed by the Clus HMC FunCat datasets.
``one_hot``
    replace each nominal column by 0/1 indicator columns of its declared values, in place: one
    column ``name=value`` per value, or a single ``name=second value`` column for a two-valued
    attribute.  The declared values fix the columns, so nothing is learnt from the data and every
    part gets the same columns; a missing value (NaN) gives all zeros.
``terminal_labels``
    (hierarchical data) keep each example's own classes only, its most specific labels, and only
    the classes that are some training example's own class (HierCost's terminal classes T, Sec. 2);
    the dataset's hierarchy then maps the kept columns (``Hierarchy.with_labels``).  Without a
    hierarchy the step changes nothing.
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp

from mlbench.data.dataset import Dataset
from mlbench.errors import ConfigError


def take_rows(ds: Dataset, rows) -> Dataset:
    """The dataset restricted to ``rows`` (in that order); given parts are dropped."""
    rows = np.asarray(rows, dtype=np.int64)
    return Dataset(name=ds.name, X=ds.X[rows], Y=ds.Y[rows], feature_names=list(ds.feature_names),
                   label_names=list(ds.label_names), nominal=dict(ds.nominal), parts={},
                   hierarchy=ds.hierarchy, sha256=ds.sha256, domain=ds.domain)


def _with(ds: Dataset, **changes) -> Dataset:
    fields = dict(name=ds.name, X=ds.X, Y=ds.Y, feature_names=ds.feature_names,
                  label_names=ds.label_names, nominal=ds.nominal, parts=ds.parts,
                  hierarchy=ds.hierarchy, sha256=ds.sha256, domain=ds.domain)
    fields.update(changes)
    return Dataset(**fields)


def _nonzero_counts(X):
    """Rows in which each column is nonzero (explicit zeros in CSR are not counted)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
    return np.count_nonzero(X, axis=0)


class Step(metaclass=ABCMeta):
    """Base: subclasses set ``name``, ``defaults`` and implement ``fit`` / ``transform``.

    ``unrecorded_defaults``: parameters added after results were recorded, with the value that
    reproduces those results; the data fingerprint (``grid.data_spec``) leaves them out while they
    keep that value, so adding one does not make recorded cells look changed."""

    name = ""
    defaults: dict = {}
    unrecorded_defaults: dict = {}

    def __init__(self, only=None, **params):
        if only is not None and (not isinstance(only, list) or not all(isinstance(o, str) for o in only)):
            raise ConfigError(f"preprocessing step {self.name!r}: 'only' must be a list of dataset names")
        self.only = None if only is None else set(only)
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise ConfigError(f"preprocessing step {self.name!r}: unknown parameter(s) "
                              f"{', '.join(sorted(unknown))}")
        self.params = {**self.defaults, **params}

    def fit(self, train: Dataset):
        return self

    @abstractmethod
    def transform(self, ds: Dataset) -> Dataset:
        """Implemented by each subclass."""


class _FeatureSelector(Step):
    """A step that keeps the columns ``keep_`` (indices into its input)."""

    def transform(self, ds):
        keep = self.keep_
        X = ds.X[:, keep]
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        new_index = {int(old): new for new, old in enumerate(keep)}
        nominal = {new_index[c]: v for c, v in ds.nominal.items() if c in new_index}
        return _with(ds, X=X, feature_names=[ds.feature_names[i] for i in keep], nominal=nominal)


class _LabelSelector(Step):
    """A step that keeps the labels ``keep_labels_`` (indices into its input).

    A subclass with a ``rows`` parameter (``training`` or ``all``) is fitted by :class:`Pipeline`
    on the whole dataset's labels when ``rows`` is ``all``; its ``fit`` reads only ``Y``."""

    def __init__(self, only=None, **params):
        super().__init__(only=only, **params)
        if self.params.get("rows", "training") not in ("training", "all"):
            raise ConfigError(f"preprocessing step {self.name!r}: rows must be training or all, "
                              f"got {self.params['rows']!r}")

    @property
    def on_all_rows(self):
        return self.params.get("rows") == "all"

    def transform(self, ds):
        keep = self.keep_labels_
        return _with(ds, Y=np.ascontiguousarray(ds.Y[:, keep]),
                     label_names=[ds.label_names[i] for i in keep])


class _ColumnScaler(Step):
    """Maps every numeric column c to ``(x - shift_[c]) / scale_[c]`` (on CSR only the division);
    ``{nominal: true}`` includes the nominal columns, which then stop being nominal."""

    defaults = {"nominal": False}

    def _numeric(self, train):
        if not isinstance(self.params["nominal"], bool):
            raise ConfigError(f"preprocessing step {self.name!r}: nominal must be true or false, "
                              f"got {self.params['nominal']!r}")
        skip = () if self.params["nominal"] else train.nominal
        self.numeric_ = np.array([c for c in range(train.X.shape[1]) if c not in skip],
                                 dtype=np.int64)
        return self.numeric_

    def transform(self, ds):
        if self.numeric_.size == 0:
            return ds
        if sp.issparse(ds.X):
            factor = np.ones(ds.X.shape[1])
            factor[self.numeric_] = 1.0 / self.scale_
            X = sp.csr_matrix(ds.X @ sp.diags(factor), dtype=np.float64)
        else:
            X = np.array(ds.X, dtype=np.float64, order="C", copy=True)
            X[:, self.numeric_] = (X[:, self.numeric_] - self.shift_) / self.scale_
        if self.params["nominal"]:  # scaled codes are no longer value indices
            return _with(ds, X=X, nominal={})
        return _with(ds, X=X)


class Standardize(_ColumnScaler):
    name = "standardize"

    def fit(self, train):
        numeric = self._numeric(train)
        if sp.issparse(train.X):
            from sklearn.utils.sparsefuncs import mean_variance_axis

            _, var = mean_variance_axis(sp.csr_matrix(train.X), axis=0)
            self.shift_ = None
            std = np.sqrt(var[numeric])
        else:
            sub = np.asarray(train.X)[:, numeric]
            self.shift_ = sub.mean(axis=0)
            std = sub.std(axis=0)
        self.scale_ = np.where(std > 0, std, 1.0)
        return self


class MinMax(_ColumnScaler):
    name = "min_max"

    def fit(self, train):
        numeric = self._numeric(train)
        if sp.issparse(train.X):
            from sklearn.utils.sparsefuncs import min_max_axis

            low, high = min_max_axis(sp.csr_matrix(train.X), axis=0)
        else:
            X = np.asarray(train.X, dtype=np.float64)
            low, high = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
        low, high = low[numeric], high[numeric]
        span = high - low
        self.shift_ = low
        self.scale_ = np.where(span > 0, span, 1.0)
        return self


class DropRareBinaryFeatures(_FeatureSelector):
    name = "drop_rare_binary_features"
    defaults = {"min_fraction": 0.01}

    def fit(self, train):
        X = train.X
        n, d = X.shape
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            cols, data = X.indices, X.data
            binary = np.bincount(cols[~np.isin(data, (0.0, 1.0))], minlength=d) == 0
            on = np.bincount(cols[data != 0], minlength=d)
        else:
            X = np.asarray(X)
            binary = np.all((X == 0) | (X == 1), axis=0)
            on = np.count_nonzero(X, axis=0)
        for c, values in train.nominal.items():
            # a two-valued nominal is 'on' where it takes the value "1" (else: any non-first value)
            binary[c] = len(values) == 2
            if binary[c] and "1" in values:
                col = X[:, [c]].toarray().ravel() if sp.issparse(X) else X[:, c]
                on[c] = np.count_nonzero(col == values.index("1"))
        drop = binary & (on < self.params["min_fraction"] * n)
        self.keep_ = np.flatnonzero(~drop)
        return self


class MinFeatureFrequency(_FeatureSelector):
    name = "min_feature_frequency"
    defaults = {"min_fraction": 0.01}

    def fit(self, train):
        counts = _nonzero_counts(train.X)
        self.keep_ = np.flatnonzero(counts >= self.params["min_fraction"] * train.n_instances)
        return self


class DropImbalancedLabels(_LabelSelector):
    name = "drop_imbalanced_labels"
    defaults = {"max_ratio": 50.0, "rows": "training"}
    unrecorded_defaults = {"rows": "training"}

    def fit(self, train):
        pos = train.Y.sum(axis=0).astype(float)
        neg = train.n_instances - pos
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.maximum(pos, neg) / np.minimum(pos, neg)
        self.keep_labels_ = np.flatnonzero(np.isfinite(ratio) & (ratio <= self.params["max_ratio"]))
        return self


class TopKLabels(_LabelSelector):
    name = "top_k_labels"
    defaults = {"k": 10, "rows": "training"}
    unrecorded_defaults = {"rows": "training"}

    def fit(self, train):
        k = int(self.params["k"])
        if k < 1:
            raise ConfigError("preprocessing step 'top_k_labels': k must be at least 1")
        pos = train.Y.sum(axis=0)
        order = np.argsort(-pos, kind="stable")
        self.keep_labels_ = np.sort(order[:k])
        return self


class LTC(Step):
    name = "ltc"

    def fit(self, train):
        df = _nonzero_counts(train.X).astype(float)
        with np.errstate(divide="ignore"):
            self.idf_ = np.where(df > 0, np.log(train.n_instances / np.maximum(df, 1)), 0.0)
        return self

    def transform(self, ds):
        if sp.issparse(ds.X):
            X = sp.csr_matrix(ds.X, dtype=np.float64, copy=True)
            X.eliminate_zeros()
            X.data = (1.0 + np.log(X.data)) * self.idf_[X.indices]
            norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
            X = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)
        else:
            X = np.asarray(ds.X, dtype=np.float64)
            with np.errstate(divide="ignore"):
                X = np.where(X > 0, 1.0 + np.log(np.where(X > 0, X, 1.0)), 0.0) * self.idf_
            norms = np.linalg.norm(X, axis=1, keepdims=True)
            X = np.ascontiguousarray(X / np.where(norms > 0, norms, 1.0))
        return _with(ds, X=X)


class Impute(Step):
    name = "impute"
    defaults = {"numeric": "mean", "nominal": "most_frequent"}
    _strategies = {"numeric": ("mean", "median"), "nominal": ("most_frequent",)}

    def __init__(self, only=None, **params):
        super().__init__(only=only, **params)
        for kind, allowed in self._strategies.items():
            if self.params[kind] not in allowed:
                raise ConfigError(f"preprocessing step 'impute': {kind} must be one of "
                                  f"{', '.join(allowed)}, got {self.params[kind]!r}")

    def fit(self, train):
        from sklearn.impute import SimpleImputer

        d = train.n_features
        nominal = np.array(sorted(c for c in train.nominal if c < d), dtype=np.int64)
        numeric = np.setdiff1d(np.arange(d), nominal)
        X = sp.csr_matrix(train.X) if sp.issparse(train.X) else np.asarray(train.X, dtype=np.float64)
        self.fill_ = np.zeros(d)
        for cols, strategy in ((numeric, self.params["numeric"]), (nominal, self.params["nominal"])):
            if cols.size:
                # keep_empty_features: a column never observed in training keeps its place (fill 0)
                imp = SimpleImputer(strategy=strategy, keep_empty_features=True).fit(X[:, cols])
                self.fill_[cols] = imp.statistics_
        return self

    def transform(self, ds):
        if sp.issparse(ds.X):
            X = sp.csr_matrix(ds.X, dtype=np.float64)
            missing = np.isnan(X.data)
            if not missing.any():
                return ds
            X = X.copy()
            X.data[missing] = self.fill_[X.indices[missing]]
        else:
            X = np.asarray(ds.X, dtype=np.float64)
            rows, cols = np.nonzero(np.isnan(X))
            if rows.size == 0:
                return ds
            X = np.array(X, order="C", copy=True)
            X[rows, cols] = self.fill_[cols]
        return _with(ds, X=X)


class OneHot(Step):
    name = "one_hot"

    def transform(self, ds):
        if not ds.nominal:
            return ds
        dense = not sp.issparse(ds.X)
        X = np.asarray(ds.X) if dense else sp.csc_matrix(ds.X)
        blocks, names, start = [], [], 0
        for c in sorted(ds.nominal):
            values = ds.nominal[c]
            if c > start:
                blocks.append(X[:, start:c])
                names.extend(ds.feature_names[start:c])
            codes = X[:, c] if dense else X[:, [c]].toarray().ravel()
            kept = range(1, 2) if len(values) == 2 else range(len(values))
            # NaN equals no code, so a missing value gets all zeros
            blocks.append(np.column_stack([codes == j for j in kept]).astype(np.float64))
            names.extend(f"{ds.feature_names[c]}={values[j]}" for j in kept)
            start = c + 1
        if start < X.shape[1]:
            blocks.append(X[:, start:])
            names.extend(ds.feature_names[start:])
        out = (np.ascontiguousarray(np.hstack(blocks)) if dense else
               sp.csr_matrix(sp.hstack([sp.csr_matrix(b) for b in blocks]), dtype=np.float64))
        return _with(ds, X=out, feature_names=names, nominal={})


class TerminalLabels(_LabelSelector):
    name = "terminal_labels"

    def fit(self, train):
        h = train.hierarchy
        self.keep_labels_ = (np.arange(train.n_labels) if h is None else
                             np.flatnonzero(h.most_specific(train.Y).any(axis=0)))
        return self

    def transform(self, ds):
        h = ds.hierarchy
        if h is None:
            return ds
        keep = self.keep_labels_
        Y = np.ascontiguousarray(h.most_specific(ds.Y)[:, keep])
        return _with(ds, Y=Y, label_names=[ds.label_names[i] for i in keep],
                     hierarchy=h.with_labels([h.labels[i] for i in keep]))


STEPS = {cls.name: cls for cls in (Standardize, MinMax, DropRareBinaryFeatures, MinFeatureFrequency,
                                   DropImbalancedLabels, TopKLabels, LTC, Impute, OneHot,
                                   TerminalLabels)}


def parse_step(spec):
    """``(name, params)`` from a protocol entry: a name, or ``{step: name, **params}``."""
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, dict) and isinstance(spec.get("step"), str):
        if not all(isinstance(k, str) for k in spec):
            raise ConfigError(f"preprocessing step {spec['step']!r}: parameter names must be names")
        params = {k: v for k, v in spec.items() if k != "step"}
        name = spec["step"]
    else:
        raise ConfigError(f"preprocessing step must be a name or {{step: name, ...}}, got {spec!r}")
    if name not in STEPS:
        import difflib

        close = difflib.get_close_matches(name, STEPS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown preprocessing step {name!r}{hint}")
    try:
        STEPS[name](**params)  # validates the parameter names and values
    except TypeError as exc:
        raise ConfigError(f"preprocessing step {name!r}: {exc}") from None
    return name, params


class Pipeline:
    """Steps applied in order; ``fit`` learns each on the (transformed) training part."""

    def __init__(self, specs=()):
        self.specs = [STEPS[name](**params) for name, params in map(parse_step, specs)]

    def fit(self, train: Dataset, full: Dataset | None = None):
        """Fit every step on ``train``; a label selection with ``rows: all`` on the labels of
        ``full`` (the whole dataset the training part was taken from; default ``train``)."""
        self.n_features_in_ = train.n_features
        self.n_labels_in_ = train.n_labels
        features = np.arange(train.n_features)
        labels = np.arange(train.n_labels)
        self.steps = [s for s in self.specs if s.only is None or train.name in s.only]
        # the whole dataset's labels, passed through the label selections so far (its features
        # are not transformed: a selection on all rows reads Y only)
        everything = train if full is None else full
        for step in self.steps:
            if isinstance(step, _LabelSelector) and step.on_all_rows:
                step.fit(everything)
            else:
                step.fit(train)
            train = step.transform(train)
            if isinstance(step, _LabelSelector):
                everything = step.transform(everything)
            if isinstance(step, _FeatureSelector):
                features = features[step.keep_]
            if isinstance(step, _LabelSelector):
                labels = labels[step.keep_labels_]
        self.features_kept_, self.labels_kept_ = features, labels
        self.train_ = train
        return self

    def transform(self, ds: Dataset) -> Dataset:
        for step in self.steps:
            ds = step.transform(ds)
        return ds

    def fit_transform(self, train: Dataset) -> Dataset:
        return self.fit(train).train_

    def info(self):
        """JSON-able record of what was kept (original indices), for the results' ``extra``."""
        out = {"n_features": int(self.features_kept_.size), "n_labels": int(self.labels_kept_.size)}
        if self.labels_kept_.size != self.n_labels_in_:
            out["labels_kept"] = [int(i) for i in self.labels_kept_]
        if self.features_kept_.size != self.n_features_in_:
            out["features_dropped"] = int(self.n_features_in_ - self.features_kept_.size)
        if self.train_.n_features != self.features_kept_.size:   # one_hot widens the matrix
            out["n_features_encoded"] = int(self.train_.n_features)
        return out


def apply_steps(dataset: Dataset, steps) -> Dataset:
    """``dataset`` after ``steps`` fitted on all of its rows (given parts are kept)."""
    out = Pipeline(steps).fit_transform(dataset)
    return _with(out, parts=dataset.parts)
