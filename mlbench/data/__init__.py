"""Datasets: the registry (datasets.yaml), fetching and verifying files, parsers, the cache.

``load_dataset(name)`` is the entry point; see :mod:`mlbench.data.load`.
"""
from mlbench.data.dataset import Dataset
from mlbench.data.load import load_dataset
from mlbench.data.registry import list_datasets

__all__ = ["Dataset", "load_dataset", "list_datasets"]
