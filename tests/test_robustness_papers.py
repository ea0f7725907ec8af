"""Every paper's robustness module (issue 23) keeps the contract the maps rely on (static checks only: the
paper's own tests run its points). A paper whose module does not exist yet is skipped."""

import inspect

import pytest

from flashrepro import robustness as R


@pytest.mark.parametrize("number", sorted(R.PAPERS))
def test_paper_module_keeps_the_contract(number):
    mod = R.load(number)
    if mod is None:
        pytest.skip(f"{R.module_name(number)} does not exist yet")
    assert isinstance(mod.SPACE, R.Space) and mod.SPACE.paper == number
    assert 4 <= len(mod.SPACE.axes) <= 8, "4-8 axes per paper"
    assert all(a.why.strip() for a in mod.SPACE.axes)
    assert isinstance(mod.HEADLINE, tuple) and mod.HEADLINE and all(isinstance(c, str) for c in mod.HEADLINE)
    assert len(set(mod.HEADLINE)) == len(mod.HEADLINE)
    assert set(mod.MAP_SCALE) >= set(R.MAPS)
    for name in ("point", "stand_ins"):  # shipped to workers by name: module-level functions
        fn = getattr(mod, name)
        assert inspect.isfunction(fn) and "<locals>" not in fn.__qualname__
        assert "scale" in inspect.signature(fn).parameters
    params = inspect.signature(mod.point).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert takes_any or set(mod.SPACE.names) <= set(params), "point() takes every axis as a keyword"
    assert R.headline_claims(number) == frozenset(mod.HEADLINE)
