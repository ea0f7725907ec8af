"""Keep one slow, unused optional import out of every process that reads notebooks.

nbformat validates notebooks with jsonschema, and jsonschema imports ``rfc3987_syntax`` whenever it is
installed (jupyter-events, which JupyterLab needs, installs it) to check strings of the JSON Schema format
"iri". That module builds a Lark grammar at import: 2-3 s of CPU time on the machine the package is built
on, paid by every papermill run (``make`` runs one a notebook) and every pytest process (nbval imports
nbformat). No notebook schema uses that format, so this module marks the import as absent
(``sys.modules[name] = None`` makes ``import name`` raise ImportError, which jsonschema reads as "not
installed") unless it already happened. Imported first by :mod:`flashrepro.notebooks`, and by pytest as an
early plugin (``-p flashrepro._import_guard`` in pyproject.toml's ``addopts``, loaded before nbval's).
"""

from __future__ import annotations

import sys

SKIPPED = ("rfc3987_syntax",)

for _name in SKIPPED:
    sys.modules.setdefault(_name, None)
