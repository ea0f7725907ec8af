"""``greedy``: the candidate with the fewest valid pages (FEMU's default, ``select_victim_line``).

Ties go to the line that reached that valid count first: the front of the lowest non-empty valid-count
bucket, found from the lower bound ``sc.bmin`` (O(1) amortised: the bound only drops when a line's
count drops). Fully valid lines are no candidates, so with only those it returns -1. It reads the
buckets at every GC pass, so it registers ``reads_buckets=True`` and the mechanism keeps the lists
current on every host write.
"""


from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    L = s.prm[0].lines
    P = s.prm[0].pages
    b = s.sc[0].bmin
    while b < P and jk.list_front(s.buckets, L + b) == L + b:
        b += 1
    s.sc[0].bmin = b
    if b >= P:
        return -1
    return jk.list_front(s.buckets, L + b)


register("greedy", pick, "fewest valid pages; ties to the line that reached that count first", reads_buckets=True,
         stable_skip=True)
