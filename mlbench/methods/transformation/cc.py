"""Classifier chains (CC).

Source: Read, Pfahringer, Holmes & Frank, "Classifier chains for multi-label classification",
Machine Learning 85(3), 2011 (ECML PKDD 2009): the training and prediction phases of CC.

For a label order (o_1, ..., o_L), classifier j learns y_{o_j} from the augmented input
(x, y_{o_1}, ..., y_{o_{j-1}}): in training the previous labels are the true ones; in prediction
they are the chain's own 0/1 predictions, made in order.  The score of label o_j is the base
learner's P(y_{o_j} = 1 | x, yhat_{o_1}, ..., yhat_{o_{j-1}}) (or its margin for a base without
probabilities).  The MC paper orders the chain Y_1 < ... < Y_d (``order="label"``).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if

from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.components.gram import ChainGram
from mlbench.methods.registry import register
from mlbench.methods.components.binary import (C_GRID, binary_scores, cv_chosen_C, draw_seeds,
                                               fit_binary, label_log_likelihood, scores_kind,
                                               seeded_base, uses, with_C_gamma)


def chain_order(order, n_labels, random_state):
    """The label order of a chain: ``"label"`` (0..L-1), ``"random"`` or an explicit permutation."""
    if order is None or (isinstance(order, str) and order == "label"):
        return np.arange(n_labels)
    if isinstance(order, str) and order == "random":
        return check_random_state(random_state).permutation(n_labels)
    if isinstance(order, str):
        raise ValueError("order must be 'label', 'random' or a permutation of the labels, "
                         f"got {order!r}")
    perm = np.asarray(order, dtype=int)
    if perm.shape != (n_labels,) or not np.array_equal(np.sort(perm), np.arange(n_labels)):
        raise ValueError(f"order must be a permutation of 0..{n_labels - 1}, got {list(order)!r}")
    return perm


def _known_prefixes(X, Yo):
    """The inputs of chain positions 0..L-1 when every chained label is known (training, the joint
    likelihood): x plus the first j columns of ``Yo``, as a generator.

    The augmented design is built once and each position takes a leading-column slice: a view of
    one dense array, or of one CSC matrix (O(nnz) per slice; rebuilding the label block per
    position cost O(n L^2) and was most of a sparse chain's fit).
    """
    m = X.shape[1]
    full = (sp.hstack([X, sp.csr_matrix(Yo)], format="csc") if sp.issparse(X)
            else np.hstack([X, Yo]))
    return (full[:, :m + j] for j in range(Yo.shape[1]))


def _presorted_prefixes(base, X, L):
    """For a chain of :class:`~mlbench.methods.components.fast_tree.EntropyTree` s on dense X
    whose columns are not all two-valued (those trees grow from bit sets, unsorted): x's columns
    presorted once for the whole chain (the profile of ECC on rcv1subset1: sorting them again for
    every tree was 15% of the fit).  None otherwise."""
    from mlbench.methods.components.fast_tree import (EntropyTree, PresortedPrefixes,
                                                          as_float32, two_valued_columns)

    if not isinstance(base, EntropyTree) or sp.issparse(X) or X.shape[0] == 0:
        return None
    X32 = as_float32(X)
    if two_valued_columns(X32):
        return None
    return PresortedPrefixes(X32, L)


class ClassifierChain(MultiLabelClassifier):
    """Classifier chain: label j's classifier sees x and the labels before it in the chain.

    Parameters
    ----------
    base : str or estimator, default "lr"
        Binary base learner (name for :func:`make_base_learner`, or an estimator).
    base_params : dict or None
        Parameters for a named base learner.
    C, gamma : float or None
        The base learner's C and gamma on top of ``base_params`` (None: not given); the study
        protocol (bogatinovski2022, base ``svc``) searches them.
    order : "label", "random" or sequence of int, default "label"
        Chain order: label order, a permutation drawn from ``random_state``, or given explicitly.
    random_state : int, RandomState or None
        Draws the random order and seeds the base learners.

    ``fit_info_["C"]`` lists each label's C (label order) when the base chose one by
    cross-validation (``lr-cv``).
    """

    #: parameters added for the bogatinovski2022 study, at the values earlier rows were computed with
    _unrecorded_defaults = {"C": None, "gamma": None}

    def __init__(self, *, base="lr", base_params=None, C=None, gamma=None, order="label",
                 random_state=None):
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.order = order
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        rng = check_random_state(self.random_state)
        L = Y.shape[1]
        self.order_ = chain_order(self.order, L, rng)
        self.scores_kind_ = scores_kind(self.base, self.base_params)
        self.threshold_ = 0.5 if self.scores_kind_ == "proba" else 0.0
        base_params = with_C_gamma(self.base_params, self.C, self.gamma)
        seeds = draw_seeds(rng, L)
        Yo = Y[:, self.order_].astype(np.float64)
        inputs = _known_prefixes(X, Yo)
        prefixes = _presorted_prefixes(self.base, X, L)
        # the svc base: the kernel matrices of the chain's inputs, updated label by label
        chain = ChainGram.for_base(self.base, base_params, X) if prefixes is None else None
        self.estimators_ = []
        for j, Xj in enumerate(inputs):
            y = Y[:, self.order_[j]]
            if prefixes is None or np.all(y == y[0]):
                gram = chain.gram(Xj) if chain is not None and not np.all(y == y[0]) else None
                est = fit_binary(self.base, base_params, Xj, y, seeds[j], gram)
                if chain is not None:
                    chain.append(Yo[:, j])
            else:
                est = seeded_base(self.base, base_params, seeds[j]).fit_prefixes(prefixes, y)
            self.estimators_.append(est)
            if prefixes is not None:
                prefixes.append(Yo[:, j])
        chosen = cv_chosen_C(self.estimators_)
        self.fit_info_ = {}
        if chosen:  # in label order, like the predictions
            self.fit_info_["C"] = [chosen[j] for j in np.argsort(self.order_)]
        return self

    def _run_chain(self, X):
        """Walk the chain once: (0/1 predictions, scores), both (n, L) in the label order of Y."""
        X = self._validate_predict(X)
        L, m = len(self.estimators_), X.shape[1]
        sparse = sp.issparse(X)
        # sparse: a CSC matrix that grows by one predicted column per position (O(nnz) each)
        cur = X.tocsc() if sparse else np.hstack([X, np.zeros((X.shape[0], L))])
        pred = np.zeros((X.shape[0], L), dtype=int)
        scores = np.zeros((X.shape[0], L))
        for j, est in enumerate(self.estimators_):
            Xj = cur if sparse else cur[:, :m + j]
            yj = est.predict(Xj)
            scores[:, self.order_[j]] = binary_scores(est, Xj, self.scores_kind_)
            pred[:, self.order_[j]] = yj
            if sparse:
                cur = sp.hstack([cur, sp.csc_matrix(np.asarray(yj, dtype=np.float64)[:, None])],
                                format="csc")
            else:
                cur[:, m + j] = yj
        return pred, scores

    @available_if(uses("proba"))
    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) = sum_j log P(y_{o_j} | x, y_{o_1}, ..., y_{o_{j-1}}) (the chain rule).

        The chained inputs are the given labels y, as in training, so this is the probability
        the chain assigns to the whole vector y (what the MC paper's CLL loss scores).
        """
        X = self._validate_predict(X)
        Y = check_multilabel_Y(Y, X.shape[0])
        inputs = _known_prefixes(X, Y[:, self.order_].astype(np.float64))
        out = np.zeros(X.shape[0])
        for j, (est, Xj) in enumerate(zip(self.estimators_, inputs)):
            out += label_log_likelihood(est, Xj, Y[:, self.order_[j]])
        return out

    def predict(self, X):
        """0/1 predictions (n, L), each label predicted from x and the earlier predictions."""
        return self._run_chain(X)[0]

    @available_if(uses("proba"))
    def predict_proba(self, X):
        """P(y_l = 1 | x, earlier predicted labels) per label, shape (n, L)."""
        return self._run_chain(X)[1]

    @available_if(uses("decision"))
    def decision_function(self, X):
        """Base-learner margin of each label given x and the earlier predicted labels, (n, L)."""
        return self._run_chain(X)[1]


register("cc", ClassifierChain, family="transformation", paper="platform",
         params={"base": "lr", "order": "label"}, grid={"base_params": C_GRID},
         description="classifier chain (Read et al. 2011), L2 logistic regression, label order")
