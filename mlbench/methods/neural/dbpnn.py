"""DBPNN: deep back-propagation neural network (Hinton & Salakhutdinov, Science 313, 2006; MEKA's
``meka.classifiers.multilabel.DBPNN``, Read et al., JMLR 17, 2016), the DNN baseline of the MLDF
paper (Section 4.2: logistic outputs, the other settings as MEKA recommends).

The network maps the d features through ``n_layers`` sigmoid hidden layers of ``n_hidden`` units
to L sigmoid outputs, one per label.

1. **Greedy pre-training.**  Each hidden layer is a restricted Boltzmann machine trained on the
   layer below by one-step contrastive divergence (CD-1) with mean-field reconstructions:
   ``Z0 = s(X W)``, ``X1 = s(Z0 W^T)``, ``Z1 = s(X1 W)``, gradient ``(X^T Z0 - X1^T Z1) / b`` on a
   batch of b rows, minus the weight cost ``cost * W``; updates ``dW = lr * grad / n_batches +
   momentum * dW_prev`` (MEKA's RBM scales each batch's step by the number of batches).  Biases are a
   constant unit appended to each layer.  Weights start from N(0, 0.2^2), biases at 0.
2. **Fine-tuning.**  The pre-trained weights plus a freshly initialised output layer (N(0, 0.2^2))
   are trained by back-propagation of the squared error of the logistic outputs, one example at a
   time (online), with learning rate ``lr`` and momentum ``momentum``.

MEKA's defaults, used here: 2 RBMs (``-N 2``) of 10 hidden units (``-H 10``), 1000 pre-training
epochs (``-E 1000``) in batches of H = 10 rows (MEKA's DBPNN passes H as the RBM batch size),
learning rate 0.1 (``-r``), momentum 0.1 (``-m``), weight cost 0.0002 * lr; fine-tuning by MEKA's
BPNN with its default 100 epochs.  Scores are the output units; ``predict`` thresholds them at 0.5.

One deliberate difference: the inputs are min-max scaled to [0, 1] on the training part (test values
clipped), because the RBM's visible units are Bernoulli probabilities; MEKA feeds the raw attribute
values.  Training rows are visited in a random order per fine-tuning epoch (drawn from
``random_state``); MEKA visits them in file order.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register

try:  # C loops for the sequential updates (see mlbench/_ext/_dbpnn.pyx); NumPy below is the reference
    from mlbench._ext._dbpnn import backprop_online as _backprop_kernel
    from mlbench._ext._dbpnn import rbm_cd1 as _rbm_kernel
except ImportError:  # extension not built: same arithmetic in NumPy, slower
    _backprop_kernel = _rbm_kernel = None


def _with_bias(A):
    return np.hstack([A, np.ones((A.shape[0], 1))])


def train_rbm(V, n_hidden, *, epochs, batch_size, lr, momentum, cost, rng, use_kernel=True):
    """CD-1 RBM on visible probabilities ``V`` (n, v); returns W ((v+1) x n_hidden, last row = bias).

    Mean-field CD-1 (see module doc).  The visible bias is kept as an extra hidden column, so the
    reconstruction ``s(Z W^T)`` has a bias too; it is dropped from the returned matrix, which is all
    fine-tuning needs.
    """
    n, v = V.shape
    W = rng.normal(0.0, 0.2, size=(v + 1, n_hidden + 1))
    W[-1, :] = 0.0   # hidden biases
    W[:, -1] = 0.0   # visible biases
    Vb = _with_bias(V)
    n_batches = -(-n // batch_size)
    scale = lr / n_batches
    if use_kernel and _rbm_kernel is not None:
        _rbm_kernel(np.ascontiguousarray(Vb), W, epochs, batch_size, scale, momentum, cost)
        return W[:, :-1].copy()
    dW_prev = np.zeros_like(W)
    batches = [Vb[s:s + batch_size] for s in range(0, n, batch_size)]
    for _ in range(epochs):
        for X0 in batches:
            Z0 = expit(X0 @ W)
            Z0[:, -1] = 1.0
            X1 = expit(Z0 @ W.T)
            X1[:, -1] = 1.0
            Z1 = expit(X1 @ W)
            Z1[:, -1] = 1.0
            grad = (X0.T @ Z0 - X1.T @ Z1) / X0.shape[0]
            dW = scale * (grad - cost * W) + momentum * dW_prev
            W += dW
            dW_prev = dW
    return W[:, :-1]


def forward(weights, X):
    """Activations of every layer (inputs with bias first, then each layer; biases on hidden ones)."""
    acts = [_with_bias(X)]
    for k, W in enumerate(weights):
        a = expit(acts[-1] @ W)
        acts.append(a if k == len(weights) - 1 else _with_bias(a))
    return acts


def backprop_epoch(weights, velocity, X, Y, order, lr, momentum, use_kernel=True):
    """One online epoch of back-propagation of the squared error (MEKA's BPNN update), in place."""
    if use_kernel and _backprop_kernel is not None:
        _backprop_kernel(weights, velocity, X, Y, np.asarray(order, dtype=np.intp), lr, momentum)
        return
    for i in order:
        acts = forward(weights, X[i:i + 1])
        out = acts[-1]
        delta = out * (1.0 - out) * (Y[i:i + 1] - out)
        for k in range(len(weights) - 1, -1, -1):
            below = acts[k]
            prev_delta = None
            if k > 0:
                back = delta @ weights[k].T
                prev_delta = (below * (1.0 - below) * back)[:, :-1]  # no error on the bias unit
            step = lr * (below.T @ delta) + momentum * velocity[k]
            weights[k] += step
            velocity[k] = step
            delta = prev_delta


class ScaledNetwork(MultiLabelClassifier):
    """A network on inputs min-max scaled to [0, 1] on the training part (test values clipped);
    its scores are the output units of :func:`forward` with the fitted ``weights_``."""

    _accept_sparse = ("csr", "csc")

    def _fit_scale(self, X):
        """Fit the scaling on the training rows ``X``; returns them scaled (dense, C order)."""
        Xd = X.toarray() if sp.issparse(X) else X
        self.min_ = Xd.min(axis=0)
        span = Xd.max(axis=0) - self.min_
        self.range_ = np.where(span > 0, span, 1.0)
        return self._scale(Xd)

    def _scale(self, X):
        # one new array, worked on in place (the expression would hold two temporaries of X's size)
        if sp.issparse(X):
            Z = X.toarray().astype(np.float64, copy=False)
            Z -= self.min_
        else:
            Z = np.subtract(X, self.min_, dtype=np.float64)
        Z /= self.range_
        np.clip(Z, 0.0, 1.0, out=Z)
        return np.ascontiguousarray(Z)

    def predict_proba(self, X):
        X = self._validate_predict(X)
        check_is_fitted(self, "weights_")
        return forward(self.weights_, self._scale(X))[-1]


class DBPNN(ScaledNetwork):
    """Deep back-propagation network with RBM pre-training and logistic outputs (module doc).

    Parameters
    ----------
    n_hidden : units per hidden layer (MEKA ``-H``, 10).  n_layers : RBMs (``-N``, 2).
    pretrain_epochs : RBM epochs (``-E``, 1000).  finetune_epochs : BPNN epochs (100).
    learning_rate : ``-r`` (0.1).  momentum : ``-m`` (0.1).  weight_cost : RBM weight decay factor
    relative to the learning rate (0.0002).  batch_size : RBM batch (None: n_hidden, as MEKA).
    """

    _estimator_checks = {"params": {"pretrain_epochs": 3, "finetune_epochs": 3}}

    def __init__(self, *, n_hidden=10, n_layers=2, pretrain_epochs=1000, finetune_epochs=100,
                 learning_rate=0.1, momentum=0.1, weight_cost=0.0002, batch_size=None,
                 random_state=None):
        self.n_hidden = n_hidden
        self.n_layers = n_layers
        self.pretrain_epochs = pretrain_epochs
        self.finetune_epochs = finetune_epochs
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.weight_cost = weight_cost
        self.batch_size = batch_size
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        for name in ("n_hidden", "n_layers", "pretrain_epochs", "finetune_epochs"):
            if int(getattr(self, name)) < (1 if name in ("n_hidden", "n_layers") else 0):
                raise ConfigError(f"DBPNN: {name} must be positive, got {getattr(self, name)}")
        rng = check_random_state(self.random_state)
        V = self._fit_scale(X)
        Yf = Y.astype(np.float64)
        batch = int(self.batch_size or self.n_hidden)
        lr, mom = float(self.learning_rate), float(self.momentum)

        weights = []
        below = V
        for _ in range(int(self.n_layers)):
            W = train_rbm(below, int(self.n_hidden), epochs=int(self.pretrain_epochs),
                          batch_size=batch, lr=lr, momentum=mom, cost=self.weight_cost * lr,
                          rng=rng)
            weights.append(np.ascontiguousarray(W))
            below = expit(_with_bias(below) @ W)
        weights.append(rng.normal(0.0, 0.2, size=(below.shape[1] + 1, Y.shape[1])))
        weights[-1][-1, :] = 0.0

        velocity = [np.zeros_like(W) for W in weights]
        for _ in range(int(self.finetune_epochs)):
            backprop_epoch(weights, velocity, V, Yf, rng.permutation(V.shape[0]), lr, mom)
        self.weights_ = weights
        return self


register("dbpnn", DBPNN, family="neural", paper="mldf",
         description="deep belief network: 2 CD-1 RBMs of 10 units pre-trained, then back-propagation "
                     "with logistic outputs (MEKA DBPNN defaults)")
