import sys

from .command import _cli

sys.exit(_cli())
