"""Instance-based multi-label methods built on k nearest neighbours: ``mlknn`` and ``iblr``.

Both find neighbours with scikit-learn's brute-force :class:`~sklearn.neighbors.NearestNeighbors`
(Euclidean by default; works on dense and CSR input) and turn the neighbour index matrix into label
statistics with one sparse product, so no Python loop runs over instances.
"""
