"""Support-vector methods that adapt the SVM itself to multi-label data (``mltsvm``)."""
