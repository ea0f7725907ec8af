"""A page-mapped flash translation layer with line-based garbage collection (paper 4: greedy, 2R, 2R++).

``FTL`` owns one device's state; :func:`run` feeds a write stream to several policies at once.
"""

from .device import FTL, GEOMETRIES, POLICIES, Geometry, Policy, get_policy
from .run import ArrayStream, FTLRun, run, running_waf, summarize

__all__ = ["FTL", "GEOMETRIES", "POLICIES", "ArrayStream", "FTLRun", "Geometry", "Policy", "get_policy", "run",
           "running_waf", "summarize"]
