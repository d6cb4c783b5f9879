"""Compiled kernels (Cython).  Each module has a pure NumPy reference elsewhere that the tests compare."""
