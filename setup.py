"""Build the Cython extensions of mlbench/_ext.

Every ``mlbench/_ext/*.pyx`` is one extension: dropping a new kernel into the folder is all it takes
to build it.  Compiler directives are set once here, not per file, so every kernel is built the same
way (bounds checks off, C division, language level 3).
"""
import os
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "nonecheck": False,
}

extensions = [
    Extension(
        f"mlbench._ext.{pyx.stem}",
        [str(pyx)],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted(Path("mlbench/_ext").glob("*.pyx"))
    # MLBENCH_ONLY=_arff,_ranking builds just those (handy while one kernel is being written)
    if not os.environ.get("MLBENCH_ONLY") or pyx.stem in os.environ["MLBENCH_ONLY"].split(",")
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, quiet=True))
