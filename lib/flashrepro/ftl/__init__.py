"""A page-mapped flash translation layer with line-based garbage collection.

Paper 4's policies (greedy, 2R, 2R++) and FEMU's victim policies (cost-benefit, fifo, random, d-choice),
under paper 4's GC trigger or FEMU's (:data:`TRIGGERS`). ``FTL`` owns one device's state; :func:`run`
feeds a write stream to several policies at once. The kernel (``_kernel``) is the mechanism only; each
victim rule is one file in :mod:`flashrepro.ftl.victims`.
"""

from .device import FTL, GEOMETRIES, POLICIES, TRIGGERS, GCTrigger, Geometry, Policy, get_policy, get_trigger
from .run import ArrayStream, FTLRun, run, running_waf, summarize
from .victims import VICTIM_RULES

__all__ = ["FTL", "GEOMETRIES", "POLICIES", "TRIGGERS", "VICTIM_RULES", "ArrayStream", "FTLRun",
           "GCTrigger", "Geometry", "Policy", "get_policy", "get_trigger", "run", "running_waf", "summarize"]
