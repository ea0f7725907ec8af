"""Run a function right after a module's first import has executed it, before the importer gets the module.

The package sets Numba up so (:mod:`flashrepro`): its cache locator must be in place before the first kernel
is defined, which is after ``import numba`` returns to the module defining it, and importing the package
should not import Numba only to set it up.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable


class _Then(importlib.abc.MetaPathFinder):
    """A finder for module ``name`` alone: it finds the module as the other finders do and wraps its loader's
    ``exec_module`` so that ``then()`` runs after the module's code. It leaves ``sys.meta_path`` at its first
    use, so it acts on the first import only."""

    def __init__(self, name: str, then: Callable[[], None]):
        self.name, self.then = name, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # (this finder is gone: the others answer)
        if spec is None:
            return None  # not installed: the import fails as it would without this finder
        if not hasattr(spec.loader, "exec_module"):
            raise ImportError(f"cannot set {fullname} up after its import: its loader is {spec.loader!r}")
        run, then = spec.loader.exec_module, self.then

        def exec_module(module):
            run(module)
            then()

        spec.loader.exec_module = exec_module  # on this spec's loader object only
        return spec


def after_import(name: str, then: Callable[[], None]) -> None:
    """Call ``then()`` once the top-level module ``name`` has been executed by its first import, or now if it is
    already imported."""
    if name in sys.modules:
        then()
    else:
        sys.meta_path.insert(0, _Then(name, then))
