"""flashrepro: buffer-cache and flash-FTL kernels, trace readers and the five papers' experiments.

Importing the package first points Numba's on-disk cache of its kernels at one folder per version of the
source (:mod:`flashrepro.jitcache`), so every checkout of the same code compiles each kernel once, answers
Numba's start-up probe for a BLAS without importing scipy.linalg (:func:`~flashrepro.jitcache.defer_blas_probe`)
and makes its cffi parser only if it is used (:func:`~flashrepro.jitcache.defer_cffi_parser`).
"""

from . import jitcache as _jitcache

_jitcache.install()
_jitcache.defer_blas_probe()
_jitcache.defer_cffi_parser()
