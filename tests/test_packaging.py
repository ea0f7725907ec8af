"""environment.yml mirrors pyproject.toml's dependency list (names and version bounds)."""

import re
import tomllib

from flashrepro import paths


def _name(req: str) -> str:
    return re.split(r"[<>=!~ \[]", req.strip(), maxsplit=1)[0].lower()


def test_environment_yml_mirrors_pyproject():
    proj = tomllib.loads((paths.root / "pyproject.toml").read_text())["project"]
    wanted = {_name(r): r.replace(" ", "") for r in proj["dependencies"] + proj["optional-dependencies"]["dev"]}
    text = (paths.root / "environment.yml").read_text()
    listed = {}
    for line in text.splitlines():
        m = re.match(r"^\s*-\s+([A-Za-z0-9_.\-]+[<>=!~][^\s#]*)", line)
        if m:
            listed[_name(m.group(1))] = m.group(1).replace(" ", "")
    listed.pop("python", None)
    assert set(listed) == set(wanted), (f"only in pyproject: {sorted(set(wanted) - set(listed))}; "
                                        f"only in environment.yml: {sorted(set(listed) - set(wanted))}")
    for name, spec in wanted.items():
        assert listed[name] == spec, f"{name}: pyproject says {spec}, environment.yml says {listed[name]}"
    assert "-e .[dev]" in text


def test_lock_pins_every_dependency_within_its_range():
    """requirements.lock (``make lock``) pins an exact version of each dependency, inside pyproject's range."""
    from packaging.requirements import Requirement

    proj = tomllib.loads((paths.root / "pyproject.toml").read_text())["project"]
    pins = {}
    for line in (paths.root / "requirements.lock").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep, f"requirements.lock: {line!r} is not an exact pin"
            pins[_name(name)] = version.strip()
    for req in proj["dependencies"] + proj["optional-dependencies"]["dev"]:
        r = Requirement(req)
        name = _name(r.name)
        assert name in pins, f"{name} is not pinned in requirements.lock (run make lock)"
        assert r.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {r.specifier}"
