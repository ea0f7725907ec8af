"""Every compiled cache kernel function longer than a helper, and every step of the FTL kernel, says what it does
and what it changes: a newcomer reads a kernel from its docstring, not from its loop."""

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib" / "flashrepro"
CACHE = LIB / "cache"
FTL_KERNEL = LIB / "ftl" / "_kernel.py"
HELPER_LINES = 10  # shorter compiled cache functions are one-line helpers, named for what they do


def compiled_functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list):
            yield node


def undocumented(path: Path, over_lines: int) -> list[str]:
    """The compiled functions of ``path`` longer than ``over_lines`` lines that have no docstring."""
    return [f"{n.name} (line {n.lineno})" for n in compiled_functions(path)
            if n.end_lineno - n.lineno + 1 > over_lines and not ast.get_docstring(n)]


@pytest.mark.parametrize("path", sorted(CACHE.glob("*.py")), ids=lambda p: p.name)
def test_every_compiled_kernel_has_a_docstring(path):
    missing = undocumented(path, HELPER_LINES)
    assert not missing, f"{path.name}: compiled functions without a docstring: {missing}"


def test_every_ftl_step_has_a_docstring():
    """The FTL kernel's functions change a device's state in place, each a different part of it: all of them
    say which (the two-line bit helpers apart)."""
    missing = undocumented(FTL_KERNEL, 3)
    assert not missing, f"_kernel.py: compiled functions without a docstring: {missing}"


def test_the_check_finds_a_kernel_without_one(tmp_path):
    f = tmp_path / "k.py"
    f.write_text("@njit(cache=True)\ndef _step(a):\n" + "    a += 1\n" * 12 + "    return a\n")
    assert undocumented(f, HELPER_LINES) == ["_step (line 2)"]
