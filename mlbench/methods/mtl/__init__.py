"""Multi-task learning family (``mtl``): I-MTSL and the MTL methods its paper compares.

One solver engine serves every method (:mod:`.fista`: accelerated proximal gradient with
backtracking), one proximal operator per regulariser (:mod:`.prox`), the multi-task logistic loss in
matrix form (:mod:`.logistic`), the Ising label-structure learner with stability selection
(:mod:`.ising`) and the shared hold-out hyperparameter search (:mod:`.holdout`).  Estimators:
``imtsl`` (:mod:`.imtsl`), ``cmtl`` (:mod:`.cmtl`), ``trace`` (:mod:`.trace`), ``mtl-feat``
(:mod:`.mtl_feat`), and the tuned logistic baselines ``br-lr-holdout`` / ``cc-holdout``
(:mod:`.baselines`).
"""
