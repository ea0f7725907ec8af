"""No call between compiled FTL functions passes a constant argument, which would compile the callee twice.

Numba types a constant argument of a call from compiled code as a literal first and compiles the callee again
for it, so a helper called with ``0`` in one place and a variable in another compiles twice (seven such
pairs made a quarter of the FTL's compile time; see the note in :mod:`flashrepro.ftl._kernel`). The
check reads the source: a compiled helper (one Numba compiles on its own, not ``inline="always"``) called with a
number, ``True``/``False`` or a module constant by its bare name fails it; ``np.int64(0)`` and the like pass, and
so does a call on a line that says why it wants its own copy (``# literal: ...``; cost-benefit's thresholds)."""

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest
from numba.core.registry import CPUDispatcher

from flashrepro import jitkit
from flashrepro.ftl import _kernel as K
from flashrepro.ftl import victims

MODULES = [K, *(importlib.import_module(f"{victims.__name__}.{m.name}")
              for m in pkgutil.iter_modules(victims.__path__))]


def compiled_alone(mod) -> set[str]:
    """The names under which ``mod`` reaches a function Numba compiles on its own: its own and those of the
    kernel and jitkit by attribute (``K.x``, ``jk.x``)."""
    def own(m):
        return {n for n, f in vars(m).items()
                if isinstance(f, CPUDispatcher) and f.targetoptions.get("inline", "never") != "always"}

    out = own(mod)
    for alias, m in vars(mod).items():
        if m is K or m is jitkit:
            out |= {f"{alias}.{n}" for n in own(m)}
    return out


def constants(mod) -> set[str]:
    """Module-level names bound to a number or a bool (Numba freezes a global read by its bare name)."""
    return {n for n, v in vars(mod).items() if isinstance(v, (bool, int, float)) and not n.startswith("__")}


def literal_arguments(source: str, helpers: set[str], consts: set[str]) -> list[str]:
    """``"line: call"`` for each call of one of ``helpers`` in ``source`` with a constant argument, except on a
    line that says why it wants the copy compiled for it (``# literal: <why>``)."""
    lines = source.splitlines()
    def name(f):
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return f"{f.value.id}.{f.attr}"
        return None

    def constant(a):
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub):
            a = a.operand
        return isinstance(a, ast.Constant) or (isinstance(a, ast.Name) and a.id in consts)

    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and name(node.func) in helpers and "# literal:" not in lines[node.end_lineno - 1]:
            if any(constant(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_the_check_finds_a_constant_argument():
    src = ("def f(s, k):\n    g(s, k)\n    g(s, 0)\n    K.h(s, -1, True)\n    g(s, LIMIT)\n    g(s, np.int64(0))\n"
           "    g(s, 1)  # literal: measured faster\n")
    assert literal_arguments(src, {"g", "K.h"}, {"LIMIT"}) == ["3: g(s, 0)", "4: K.h(s, -1, True)", "5: g(s, LIMIT)"]


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_no_compiled_ftl_helper_gets_a_constant_argument(mod):
    """In the module's compiled functions (a call from Python is typed by its value, never as a literal)."""
    helpers, consts = compiled_alone(mod), constants(mod)
    found = [f"{name} line {hit}" for name, f in vars(mod).items()
             if isinstance(f, CPUDispatcher) and f.py_func.__module__ == mod.__name__
             for hit in literal_arguments(textwrap.dedent(inspect.getsource(f.py_func)), helpers, consts)]
    assert not found, f"{mod.__name__}: pass np.int64(...) / np.bool_(...) instead of a constant: {found}"
