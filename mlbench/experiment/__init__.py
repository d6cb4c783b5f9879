"""The experiment runner: grid of cells, results store, seeds, executors (see ``runner.py``)."""
