"""Independent reference results for the baseline tests: scikit-learn and scikit-multilearn.

scikit-multilearn 0.2.0's ML-kNN builds ``NearestNeighbors(self.k)`` with a positional
``n_neighbors``, which scikit-learn >= 1.0 rejects.  :class:`PatchedMLkNN` supplies it by keyword
while its ``_compute_cond`` runs: the one-line fix, made here in the test helper and never in the
package.  ``ignore_first_neighbours=1`` during fit makes scikit-multilearn leave a training point
out of its own neighbours (as the ML-kNN paper does); it is set back to 0 before predicting test
points, which are not in the training set.  scikit-multilearn-ng (its maintained successor, the
``test`` extra's) builds them by keyword itself and normalises ``predict_proba`` to the posterior;
:data:`POSTERIOR` says which of the two is installed.

Run as a script, it prints the macro-F1 of mlbench's baselines and of scikit-multilearn's
versions of the same methods on emotions (see :func:`compare_on_emotions`).
"""
from __future__ import annotations

from unittest import mock

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain as SkClassifierChain
from sklearn.neighbors import NearestNeighbors
from skmultilearn.adapt import MLkNN as _SkmlMLkNN
from skmultilearn.adapt import mlknn as _skml_mlknn_module


def _is_ng():
    import importlib.metadata

    try:
        importlib.metadata.version("scikit-multilearn-ng")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


#: whether the installed scikit-multilearn's MLkNN.predict_proba is the posterior
#: P(H_1 | E) (scikit-multilearn-ng) rather than the joint P(H_1) P(E | H_1) (0.2.0)
POSTERIOR = _is_ng()


def _keyword_nearest_neighbors(n_neighbors=5, **kwargs):
    return NearestNeighbors(n_neighbors=n_neighbors, **kwargs)


class PatchedMLkNN(_SkmlMLkNN):
    """scikit-multilearn's MLkNN with its NearestNeighbors built by keyword (sklearn >= 1.0)."""

    def _compute_cond(self, X, y):
        with mock.patch.object(_skml_mlknn_module, "NearestNeighbors", _keyword_nearest_neighbors):
            return super()._compute_cond(X, y)


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def reference_mlknn(X_train, Y_train, X_test, k=10, s=1.0):
    """scikit-multilearn's ML-kNN fitted and applied without self-neighbours.

    Returns a dict: ``prior`` P(H_1^l) (L,), ``cond_true`` / ``cond_false`` P(E_j^l | H_b^l)
    (L, k + 1), ``predict`` 0/1 (n, L) and ``proba``, what scikit-multilearn's ``predict_proba``
    returns (n, L): the posterior P(H_1^l | E^l) when :data:`POSTERIOR`, else the joint
    P(H_1^l) P(E^l | H_1^l) (0.2.0 does not normalise).
    """
    clf = PatchedMLkNN(k=k, s=s, ignore_first_neighbours=1)
    clf.fit(X_train, sp.lil_matrix(np.asarray(Y_train)))
    clf.ignore_first_neighbours = 0
    return {
        "prior": np.asarray(clf._prior_prob_true, dtype=float).ravel(),
        "cond_true": _dense(clf._cond_prob_true),
        "cond_false": _dense(clf._cond_prob_false),
        "predict": _dense(clf.predict(X_test)).astype(int),
        "proba": _dense(clf.predict_proba(X_test)),
    }


def reference_br_lr(X_train, Y_train, X_test, **lr_params):
    """One scikit-learn LogisticRegression per label: (predictions, P(y = 1)) each (n, L)."""
    preds, probs = [], []
    for l in range(Y_train.shape[1]):
        lr = LogisticRegression(**{"C": 1.0, "max_iter": 1000, **lr_params})
        lr.fit(X_train, Y_train[:, l])
        preds.append(lr.predict(X_test))
        probs.append(lr.predict_proba(X_test)[:, 1])
    return np.column_stack(preds), np.column_stack(probs)


def reference_cc(X_train, Y_train, X_test, order, **lr_params):
    """scikit-learn's ClassifierChain with L2 logistic regression: (predictions, probabilities)."""
    cc = SkClassifierChain(LogisticRegression(**{"C": 1.0, "max_iter": 1000, **lr_params}),
                           order=list(order))
    cc.fit(X_train, Y_train)
    return cc.predict(X_test).astype(int), cc.predict_proba(X_test)


# -- comparison table ---------------------------------------------------------------------------
def _skml_methods(n_labels, seed):
    """scikit-multilearn's counterparts of mlbench baselines (same base learners)."""
    from skmultilearn.ensemble import RakelO
    from skmultilearn.problem_transform import BinaryRelevance, ClassifierChain
    from sklearn.svm import LinearSVC

    def lr():
        return LogisticRegression(C=1.0, max_iter=1000)

    return {
        "br-lr": lambda: BinaryRelevance(classifier=lr(), require_dense=[True, True]),
        "br-svm": lambda: BinaryRelevance(classifier=LinearSVC(random_state=seed),
                                          require_dense=[True, True]),
        "cc": lambda: ClassifierChain(classifier=lr(), require_dense=[True, True]),
        "mlknn": lambda: _SelfExcludedMLkNN(k=10, s=1.0),
        "rakel": lambda: RakelO(base_classifier=lr(), base_classifier_require_dense=[True, True],
                                labelset_size=3, model_count=2 * n_labels),
    }


class _SelfExcludedMLkNN(PatchedMLkNN):
    """PatchedMLkNN that leaves training points out of their own neighbours and not test points."""

    def fit(self, X, y):
        self.ignore_first_neighbours = 1
        super().fit(X, y)
        self.ignore_first_neighbours = 0
        return self


def compare_on_emotions(seeds=(0, 1, 2)):
    """Macro-F1 of every mlbench baseline and its scikit-multilearn counterpart on emotions.

    Splits: the quick protocol's scheme (50/50 random holdout) for each seed, features standardised
    on the training part.  Returns rows ``(method, mlbench mean, mlbench std, skml mean or None)``.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from mlbench.data import load_dataset
    from mlbench.methods import registry
    from mlbench.metrics import get_measure

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ds = load_dataset("emotions")
    macro_f1 = get_measure("macro_f1").func
    names = ["br-lr", "br-svm", "br-rf", "cc", "ecc", "rakel", "mlknn", "iblr"]
    ours = {n: [] for n in names}
    theirs = {}
    for seed in seeds:
        tr, te = train_test_split(np.arange(ds.n_instances), train_size=0.5, random_state=seed)
        scaler = StandardScaler().fit(ds.X[tr])
        Xtr, Xte = scaler.transform(ds.X[tr]), scaler.transform(ds.X[te])
        Ytr, Yte = ds.Y[tr], ds.Y[te]
        for n in names:
            est = registry.make(n, random_state=seed).fit(Xtr, Ytr)
            ours[n].append(macro_f1(Yte, est.predict(Xte)))
        for n, make in _skml_methods(ds.n_labels, seed).items():
            clf = make().fit(Xtr, Ytr)
            theirs.setdefault(n, []).append(macro_f1(Yte, _dense(clf.predict(Xte)).astype(int)))
    return [(n, float(np.mean(ours[n])), float(np.std(ours[n])),
             float(np.mean(theirs[n])) if n in theirs else None) for n in names]


if __name__ == "__main__":
    print("| method | mlbench macro-F1 (mean ± sd, 3 splits) | scikit-multilearn 0.2.0 |")
    print("|---|---|---|")
    for name, mean, sd, ref in compare_on_emotions():
        print(f"| {name} | {mean:.4f} ± {sd:.4f} | {'-' if ref is None else f'{ref:.4f}'} |")
