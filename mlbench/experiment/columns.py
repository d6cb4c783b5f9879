"""The fixed columns of a results CSV, in order (metric columns follow).

A module of its own, with no imports, so that readers of results files (``mlbench report``,
REPRODUCTION.md) know the schema without importing the runner's cell machinery (preprocessing,
methods): that import added about 250 ms to ``mlbench report``'s start-up.
"""

COLUMNS = ("dataset", "method", "protocol", "split", "repeat", "fold", "seed", "status", "error",
           "fit_seconds", "predict_seconds", "cpu_seconds", "peak_memory_mb", "n_train", "n_test",
           "n_features", "n_labels", "params", "extra", "mlbench_version", "dataset_sha256",
           # provenance (mlbench/experiment/provenance.py); params and dataset_sha256 are above
           "data_content", "protocol_spec", "algorithm", "conventions")
