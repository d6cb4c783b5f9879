"""BPNN: MEKA's back-propagation neural network (``meka.classifiers.multilabel.BPNN``; Read et al.,
"MEKA: A Multi-label/Multi-target Extension to WEKA", JMLR 17, 2016), the ``BPNN`` of the
comprehensive study (Bogatinovski et al., Expert Systems with Applications 2022), which ran it as
``BPNN -m 0.2 -H h -E 200 -r r`` with h in {0.15, 0.2, 0.25} x the number of features and
r in {0.01, 0.1}, thresholded by PCut1 (the protocol's search applies that to the scores).

The network is a multi-layer perceptron with one hidden layer of ``hidden`` sigmoid units and one
sigmoid output unit per label (a constant bias unit is appended to the inputs and to the hidden
layer).  All weights start uniform in [-0.05, 0.05) (MEKA: ``(U[0,1) - 0.5) * 0.1``).  Training is
online back-propagation of the squared error ``1/2 sum_l (y_l - o_l)^2``, the rows visited in their
given order each epoch (as MEKA does), for ``epochs`` epochs: with output deltas
``d_o = o (1 - o) (y - o)`` and hidden deltas ``d_h = h (1 - h) (d_o W_2^T)`` (bias unit dropped),
each weight matrix moves by ``lr * a^T d + momentum * (its previous move)``, ``a`` being the layer's
input activations.  The scores are the output units; ``predict`` thresholds them at 0.5.

This is the fine-tuning stage of mlbench's ``dbpnn`` (MEKA's DBPNN is BPNN after RBM pre-training),
run from MEKA's random start instead of pre-trained weights, so the two share the forward pass and
the back-propagation epoch (the C kernel ``mlbench._ext._dbpnn.backprop_online``).

One deliberate difference, as in ``dbpnn``: the inputs are min-max scaled to [0, 1] on the training
part (test values clipped), which MEKA does not do.  The study's protocol min-max scales the
features before any method sees them, so under it the scaling changes nothing.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from mlbench.errors import ConfigError
from mlbench.methods.neural.dbpnn import ScaledNetwork, backprop_epoch
from mlbench.methods.registry import register


class BPNN(ScaledNetwork):
    """One-hidden-layer back-propagation network, MEKA's BPNN (module doc).

    Parameters
    ----------
    hidden : int, default 10
        Hidden units (MEKA ``-H``).
    epochs : int, default 100
        Passes over the training rows (MEKA ``-E``; BPNN's default is 100).
    learning_rate : float, default 0.1
        MEKA ``-r``.
    momentum : float, default 0.1
        MEKA ``-m``.
    random_state : int, RandomState or None
        Seeds the initial weights.
    """

    _estimator_checks = {"params": {"epochs": 5}}

    def __init__(self, *, hidden=10, epochs=100, learning_rate=0.1, momentum=0.1,
                 random_state=None):
        self.hidden = hidden
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if int(self.hidden) < 1 or int(self.epochs) < 0:
            raise ConfigError(f"BPNN: hidden must be >= 1 and epochs >= 0, got hidden="
                              f"{self.hidden!r}, epochs={self.epochs!r}")
        rng = check_random_state(self.random_state)
        V = self._fit_scale(X)
        d, h, L = V.shape[1], int(self.hidden), Y.shape[1]
        weights = [np.ascontiguousarray(rng.uniform(-0.05, 0.05, size=shape))
                   for shape in ((d + 1, h), (h + 1, L))]
        velocity = [np.zeros_like(W) for W in weights]
        order = np.arange(V.shape[0])
        Yf = Y.astype(np.float64)
        for _ in range(int(self.epochs)):
            backprop_epoch(weights, velocity, V, Yf, order, float(self.learning_rate),
                           float(self.momentum))
        self.weights_ = weights
        return self


register("bpnn", BPNN, family="neural", paper="bogatinovski2022",
         params={"momentum": 0.2, "epochs": 200},
         grid={"learning_rate": [0.01, 0.1]},
         description="MEKA's BPNN: one sigmoid hidden layer, online back-propagation of the squared "
                     "error (the comprehensive study's 200 epochs, momentum 0.2)")
