"""flashrepro: buffer-cache and flash-FTL kernels, trace readers and the five papers' experiments.

Right after Numba is first imported (by the first module that defines a kernel; at once if it already is), the
package imports :mod:`flashrepro.jitcache`, which sets Numba up (:func:`~flashrepro.jitcache.set_up`): it points
Numba's on-disk cache of the package's kernels at one folder per version of the source, so every checkout of the
same code compiles each kernel once, answers Numba's start-up probe for a BLAS without importing scipy.linalg and
makes its cffi parser only if it is used. Importing the package does not import Numba (0.6-0.9 s of CPU time):
a command that needs no kernel, such as ``python -m flashrepro.papers notebook 1``, which the Makefile runs for
every paper target, starts in a tenth of a second.
"""

from ._after_import import after_import


def _set_up_numba() -> None:
    from . import jitcache  # noqa: F401  (its import sets Numba up; if it is what imports Numba, it does at its end)


after_import("numba", _set_up_numba)
