"""``python -m mlbench.methods --write-index``: rewrite ``mlbench/methods/index.json`` (the method
listing read without importing the families) from the live registrations; run it after adding,
renaming or re-describing a method (``tests/unit/test_registry.py`` fails while it is stale)."""
import sys

from mlbench.methods import registry

if sys.argv[1:] != ["--write-index"]:
    sys.exit("usage: python -m mlbench.methods --write-index")
print(f"{registry.write_index()} methods written to {registry.INDEX_PATH}")
