"""Build the Cython extensions of mlbench/_ext.

Every ``mlbench/_ext/*.pyx`` is one extension: dropping a new kernel into the folder is all it takes
to build it.  Compiler directives are set once here, not per file, so every kernel is built the same
way (bounds checks off, C division, language level 3).
"""
import os
import subprocess
from pathlib import Path

import numpy as np
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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

# GCC takes the likely side of a __builtin_expect with probability 0.9 (its default).  Cython puts
# one on every check after a Python call, and a kernel's set-up (np.zeros for each work array)
# passes a hundred or more of them, so GCC's estimated count of the kernel's loops compounds to 0:
# it compiles them for size, with no unrolling or vectorisation (`-fopt-info-loop-all` reports
# "Not unswitching cold loops" for every loop of _lars.lasso_rows).  At 0.99 the error paths stay
# cold and the loops are hot again.  Code generation only: the same arithmetic, the same results.
GCC_FLAGS = ["--param=builtin-expect-probability=99"]


def _is_gcc(compiler):
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "Free Software Foundation" in out and "clang" not in out.lower()


class BuildExt(build_ext):
    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:         # the kernels compile independently: one per core
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        # Cythonize here, not when setup.py is imported: `python -m build` runs setup.py for the
        # sdist's requirements and file list too, and those steps need no C sources.
        from Cython.Build import cythonize

        jobs = int(self.parallel)     # an int after finalize_options
        generated = cythonize(self.extensions, compiler_directives=DIRECTIVES, quiet=True,
                              nthreads=jobs if jobs > 1 else 0)
        c_sources = {ext.name: ext.sources for ext in generated}
        for ext in self.extensions:   # keep setuptools' own Extension objects (and their state)
            ext.sources = c_sources[ext.name]
        if self.compiler.compiler_type == "unix" and _is_gcc(self.compiler.compiler_so[0]):
            for ext in self.extensions:
                ext.extra_compile_args = list(ext.extra_compile_args) + GCC_FLAGS
        super().build_extensions()


setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
