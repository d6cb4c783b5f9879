"""Parts that several method families build on, so that no family imports another's internals.

- :mod:`.binary`: seeded binary base learners, constant labels, per-label scores, the C grid;
- :mod:`.gram`: the RBF Gram matrix shared by a method's ``svc`` models (and a chain's updates);
- :mod:`.fast_tree`: presorted entropy trees and bagged forests (Cython kernels);
- :mod:`.logistic`: instance-weighted L2 logistic regression nodes and C selection;
- :mod:`.thresholds`: per-label F1-optimal thresholds (out-of-bag or validation scores), MEKA's PCut1;
- :mod:`.labelsets`: label-vector enumeration;
- :mod:`.validation`: parameter checks shared by the families.
"""
