"""``python -m flashrepro.papers``: the papers (number, notebook, ledger number, title); ``notebook N`` prints
paper N's notebook (the Makefile's ``paper%`` rule)."""

import sys

from . import main

sys.exit(main())
