"""Slow, obviously correct references of paper 3's hybrid DRAM + NVM buffers (CLOCK-HBM, CLOCK-DNV), written
from the paper's text (Algorithm 1, Fig. 3, Table 2) for reading, not speed.

Each returns ``(hits, ios, counters)`` like the references in tests/reference.py: one bool per page reference,
the I/O log rows ``(ref, op, cause, first_page, n_pages)`` in issue order (migrations included, cause 6),
and every counter the kernel reports; a list passed as ``tiers_out`` receives the log's tier column (0 DRAM,
1 NVM).
The buffers are arrays of slots with a hand each, as in the paper's two clocks: which slot a page takes
decides when a hand reaches it, so the slot rules are part of the specification (DRAM slots fill in order;
NVM slots fill in order, and a slot a page leaves without a replacement is reused last-freed first).
"""

from __future__ import annotations

from refbook import Book as _Book

READ, WRITE = 0, 1
DEMAND, EVICTION, END_FLUSH, MIGRATION = 0, 1, 2, 6
DRAM, NVM = 0, 1

# Table 2, read off the paper: level -> {writes in the last rotation: next level}
TABLE2 = {1: {0: 1, 1: 2, 2: 2, 3: 2},
          2: {0: 1, 1: 2, 2: 3, 3: 3},
          3: {0: 2, 1: 3, 2: 3, 3: 4},
          4: {0: 3, 1: 3, 2: 4, 3: 4}}
COMMON = ("hits_dram", "writes_dram", "resident_dram", "hits_nvm", "writes_nvm", "resident_nvm",
          "migrations_dram_nvm", "migrations_nvm_dram", "write_hits_nvm", "fills_dram", "fills_nvm",
          "writebacks_dram", "writebacks_nvm")


def split(capacity, dram_pages=None, nvm_pages=None, share=0.2):
    """The tiers as the contract resolves them: 20% (rounded) DRAM, the rest NVM, unless both are given."""
    if dram_pages is None:
        dram_pages = int(round(share * capacity))
        nvm_pages = capacity - dram_pages
    return dram_pages, nvm_pages


class Book(_Book):
    """The tally of tests/refbook.py with each I/O's tier and the hybrid buffers' own counters."""

    def __init__(self, extra, tiers_out=None):
        super().__init__((*COMMON, *extra))
        self.tiers = [] if tiers_out is None else tiers_out

    def row(self, i, op, cause, page, tier):
        self.ios.append((i, op, cause, page, 1))
        self.tiers.append(tier)

    def to_end(self, k):
        """Move row ``k`` after the rows logged since (the incoming page's read after the victim's rows)."""
        if k < len(self.ios):
            self.ios.append(self.ios.pop(k))
            self.tiers.append(self.tiers.pop(k))

    def read(self, i, page, tier):
        self.row(i, READ, DEMAND, page, tier)
        self.c["device_reads"] += 1
        self.c["device_read_requests"] += 1
        self.c["fills_dram" if tier == DRAM else "fills_nvm"] += 1

    def write_back(self, i, page, tier, cause=EVICTION):
        self.row(i, WRITE, cause, page, tier)
        self.c["device_writes_eviction" if cause == EVICTION else "device_writes_end_flush"] += 1
        self.c["device_writes"] += 1
        self.c["device_write_requests"] += 1
        self.c["writebacks_dram" if tier == DRAM else "writebacks_nvm"] += 1

    def evict(self, i, e, tier):
        """Entry ``e`` leaves the buffer: written to flash when dirty."""
        self.c["evictions"] += 1
        if e["dirty"]:
            self.write_back(i, e["page"], tier)

    def end(self, dram, dh, nvm, nh, n, flush_at_end):
        """NVM's pages and then DRAM's, each from its hand on."""
        order = []
        for tier, slots, hand in ((NVM, nvm, nh), (DRAM, dram, dh)):
            held = [slots[(hand + k) % len(slots)] for k in range(len(slots))] if slots else []
            held = [e for e in held if e is not None]
            self.c["resident_dram" if tier == DRAM else "resident_nvm"] = len(held)
            order += [(tier, e) for e in held]
        for tier, e in order:
            if e["dirty"]:
                if flush_at_end:
                    self.write_back(n - 1, e["page"], tier, END_FLUSH)
                else:
                    self.c["dirty_at_end"] += 1
        self.c["resident_at_end"] = len(order)
        return self.hits, self.ios, self.c


class NvmSlots:
    """NVM's slots and hand: ``take()`` gives a free slot (last freed first, or with ``lowest`` the lowest freed;
    then never used ones), or None."""

    def __init__(self, n, lowest=False):
        self.slots = [None] * n
        self.filled = 0
        self.freed = []
        self.hand = 0
        self.lowest = lowest

    def take(self):
        if self.freed:
            if self.lowest:
                s = min(self.freed)
                self.freed.remove(s)
                return s
            return self.freed.pop()
        if self.filled < len(self.slots):
            self.filled += 1
            return self.filled - 1
        return None

    def has_room(self):
        return bool(self.freed) or self.filled < len(self.slots)

    def advance(self):
        self.hand = (self.hand + 1) % len(self.slots)


# --------------------------------------------------------------------------------------------------------
def clock_hbm(pages, is_write, capacity, flush_at_end=False, dram_pages=None, nvm_pages=None, rotation="page",
              read_level=1, write_level=2, promote_level=2, nvm_classes="respectively", promote_test="before",
              dram_ref_bit=False, levels=True, nvm_to_dram=True, nvm_second_chance=True, write_miss_read=False,
              miss_write_counts=True, evaluate_first=True, migrated_referenced=False, migrated_read=False,
              insert_referenced=True, promote_write_tier="dram", incoming_first=False, tiers_out=None):
    D, N = split(capacity, dram_pages, nvm_pages)
    b = Book(("level_ups", "level_downs", "to_eviction_candidate", "to_migration_candidate", "promote_swaps"),
             tiers_out)
    if not levels:
        read_level = write_level = promote_level = 1
    # NVM class of a page leaving DRAM at level 1 / at level 2 (or above)
    first, second = ("migration", "eviction") if nvm_classes == "respectively" else ("eviction", "migration")

    def nvm_class(level):
        return first if level <= 1 else second

    dram = [None] * D  # entries: page, dirty, ref, writes (since the last evaluation, 0-3), level
    dram_used, dh = 0, 0
    nvm = NvmSlots(N)  # entries: page, dirty, ref, read (since the hand passed), cls
    where = {}  # page -> (tier, slot)

    def evaluate(e):
        new = TABLE2[e["level"]][min(e["writes"], 3)]
        e["writes"] = 0
        if new > e["level"]:
            b.c["level_ups"] += 1
        elif new < e["level"]:
            b.c["level_downs"] += 1
        e["level"] = new

    def dram_victim():
        """Table 2 once per rotation; the first page at level 1 or 2 (unreferenced, with a DRAM bit). Per page,
        Table 2 is applied before the test (``evaluate_first``) or to the pages the hand passes over."""
        nonlocal dh
        while True:
            x = dh
            e = dram[x]
            if levels and rotation == "page" and evaluate_first:
                evaluate(e)
            found = False
            if dram_ref_bit and e["ref"]:
                e["ref"] = False
            elif e["level"] <= 2:
                found = True
            if levels and rotation == "page" and not evaluate_first and not found:
                evaluate(e)
            dh = (dh + 1) % D
            if dh == 0 and levels and rotation == "sweep":
                for k in range(D):
                    if not (found and k == x):
                        evaluate(dram[k])
            if found:
                return x

    def nvm_slot(i):
        """A free NVM slot; when there is none the hand evicts the first eviction candidate unread since its
        last pass (and, with ``nvm_second_chance``, unreferenced: not written either), reclassifying (and
        clearing the bits of) the pages it passes."""
        s = nvm.take()
        if s is not None:
            return s
        while True:
            e = nvm.slots[nvm.hand]
            touched = e["read"] or (nvm_second_chance and e["ref"])
            if e["cls"] == "eviction" and not touched:
                break
            new = "migration" if e["read"] else "eviction"
            if new != e["cls"]:
                b.c["to_migration_candidate" if new == "migration" else "to_eviction_candidate"] += 1
                e["cls"] = new
            e["read"] = False
            e["ref"] = False
            nvm.advance()
        x = nvm.hand
        e = nvm.slots[x]
        b.evict(i, e, NVM)
        del where[e["page"]]
        nvm.slots[x] = None
        nvm.advance()
        return x

    def move_to_nvm(i, x, s):
        """DRAM slot x's page moves to NVM slot s."""
        e = dram[x]
        nvm.slots[s] = {"page": e["page"], "dirty": e["dirty"], "ref": migrated_referenced, "read": migrated_read,
                        "cls": nvm_class(e["level"])}
        where[e["page"]] = (NVM, s)
        dram[x] = None
        b.c["migrations_dram_nvm"] += 1
        b.row(i, WRITE, MIGRATION, e["page"], NVM)

    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in where
        b.ref(hit, w)
        if not hit:
            mark = len(b.ios)  # where p's read is; Algorithm 1's order moves it after the victim's rows
            if not w or write_miss_read:  # a read miss, or a write miss read first (read-modify-write)
                b.read(i, p, DRAM if D else NVM)
            start = write_level if w else read_level
            if D:  # Algorithm 1, lines 1-6
                if dram_used < D:
                    x = dram_used
                    dram_used += 1
                else:
                    x = dram_victim()
                    if N:
                        s = nvm_slot(i)
                        move_to_nvm(i, x, s)
                    else:
                        b.evict(i, dram[x], DRAM)
                        del where[dram[x]["page"]]
                        dram[x] = None
                dram[x] = {"page": p, "dirty": False, "ref": False, "writes": 0, "level": start}
                where[p] = (DRAM, x)
            else:
                s = nvm_slot(i)
                nvm.slots[s] = {"page": p, "dirty": False, "ref": False, "read": False, "cls": nvm_class(start)}
                where[p] = (NVM, s)
            if not incoming_first and (not w or write_miss_read):
                b.to_end(mark)
        tier, x = where[p]
        # line 7, SetPageBitFlags
        if tier == DRAM:
            e = dram[x]
            b.c["hits_dram"] += hit
            b.c["writes_dram"] += bool(w)
            e["ref"] = hit or insert_referenced
            if w:
                if hit or miss_write_counts:  # the write that brought the page in counts, or not
                    e["writes"] = min(e["writes"] + 1, 3)
                if not e["dirty"]:
                    b.c["dirtyings"] += 1
                e["dirty"] = True
            continue
        e = nvm.slots[x]
        b.c["hits_nvm"] += hit
        referenced_before = e["ref"]
        e["ref"] = True
        if not w:
            e["read"] = True
            continue
        b.c["write_hits_nvm"] += hit
        if not e["dirty"]:
            b.c["dirtyings"] += 1
        test = referenced_before if promote_test == "before" else e["ref"]
        if not (nvm_to_dram and D and test):
            e["dirty"] = True
            b.c["writes_nvm"] += 1
            continue
        # lines 8-11, MigrateToDRAMBuffer
        b.c["migrations_nvm_dram"] += 1
        if dram_used < D:
            g = dram_used
            dram_used += 1
            nvm.slots[x] = None
            nvm.freed.append(x)
            b.row(i, READ, MIGRATION, p, DRAM)
        else:
            g = dram_victim()
            b.c["promote_swaps"] += 1
            mark = len(b.ios)
            b.row(i, READ, MIGRATION, p, DRAM)
            move_to_nvm(i, g, x)  # the DRAM victim takes p's NVM slot
            if not incoming_first:
                b.to_end(mark)
        dram[g] = {"page": p, "dirty": True, "ref": insert_referenced, "writes": 1 if miss_write_counts else 0,
                   "level": promote_level}
        where[p] = (DRAM, g)
        b.c["writes_dram" if promote_write_tier == "dram" else "writes_nvm"] += 1
    return b.end(dram, dh, nvm.slots, nvm.hand, len(pages), flush_at_end)


# --------------------------------------------------------------------------------------------------------
def clock_dnv(pages, is_write, capacity, flush_at_end=False, dram_pages=None, nvm_pages=None, block_pages=64,
              padding="buffer", clean_to_free_nvm=False, write_miss_read=False, cache_reads=True,
              insert_referenced=True, migrated_referenced=False, nvm_free="lifo", pad_order="victim_first",
              incoming_first=False, tiers_out=None):
    D, N = split(capacity, dram_pages, nvm_pages)
    b = Book(("clean_drops", "block_evictions", "padded_nvm_pages", "padded_dram_pages"), tiers_out)
    dram = [None] * D  # entries: page, dirty, ref
    dram_used, dh = 0, 0
    dram_freed = []  # DRAM slots padding="buffer_evict" emptied (taken lowest first)
    nvm = NvmSlots(N, lowest=nvm_free == "lowest")
    where = {}

    def nvm_slot(i, in_transit):
        """A free NVM slot, else CLOCK's victim, evicted with its flash block's pages in the buffer."""
        s = nvm.take()
        if s is not None:
            return s
        while nvm.slots[nvm.hand]["ref"]:
            nvm.slots[nvm.hand]["ref"] = False
            nvm.advance()
        x = nvm.hand
        nvm.advance()
        victim = nvm.slots[x]
        b.c["block_evictions"] += 1
        b.c["evictions"] += 1
        del where[victim["page"]]
        nvm.slots[x] = None
        writes = []  # (page, tier, entry) written to flash, in the order of pad_order
        if victim["dirty"]:
            writes.append((victim["page"], NVM, victim))
        if padding != "none":
            block = victim["page"] // block_pages
            for q in sorted(where):  # in page order, like the kernel's units
                if q // block_pages != block or q == in_transit:
                    continue
                tier, y = where[q]
                if tier == NVM:
                    b.c["padded_nvm_pages"] += 1
                    b.c["evictions"] += 1
                    if nvm.slots[y]["dirty"]:
                        writes.append((q, NVM, nvm.slots[y]))
                    del where[q]
                    nvm.slots[y] = None
                    nvm.freed.append(y)
                elif padding in ("buffer", "buffer_evict"):
                    if dram[y]["dirty"]:
                        b.c["padded_dram_pages"] += 1
                        writes.append((q, DRAM, dram[y]))
                    if padding == "buffer_evict":
                        b.c["evictions"] += 1
                        del where[q]
                        dram[y] = None
                        dram_freed.append(y)
            if pad_order == "page":
                writes.sort(key=lambda t: t[0])
        for q, tier, e in writes:
            b.write_back(i, q, tier)
            e["dirty"] = False
        return x

    for i, (p, w) in enumerate(zip(pages, is_write, strict=True)):
        hit = p in where
        b.ref(hit, w)
        if not hit and not w and not cache_reads:  # a write buffer: read for the host, not kept
            b.row(i, READ, DEMAND, p, DRAM if D else NVM)
            b.c["device_reads"] += 1
            b.c["device_read_requests"] += 1
            continue
        if not hit:
            mark = len(b.ios)  # p's read; the text's order ("migrates ..., then allocates") moves it after
            if not w or write_miss_read:  # a read miss, or a write miss read first (read-modify-write)
                b.read(i, p, DRAM if D else NVM)
            if D:
                if dram_freed:
                    x = min(dram_freed)
                    dram_freed.remove(x)
                elif dram_used < D:
                    x = dram_used
                    dram_used += 1
                else:
                    while dram[dh]["ref"]:
                        dram[dh]["ref"] = False
                        dh = (dh + 1) % D
                    x = dh
                    dh = (dh + 1) % D
                    v = dram[x]
                    if N and (v["dirty"] or (clean_to_free_nvm and nvm.has_room())):
                        s = nvm_slot(i, v["page"])
                        nvm.slots[s] = {"page": v["page"], "dirty": v["dirty"], "ref": migrated_referenced}
                        where[v["page"]] = (NVM, s)
                        b.c["migrations_dram_nvm"] += 1
                        b.row(i, WRITE, MIGRATION, v["page"], NVM)
                    else:
                        if not v["dirty"]:
                            b.c["clean_drops"] += 1
                        b.evict(i, v, DRAM)
                        del where[v["page"]]
                dram[x] = {"page": p, "dirty": False, "ref": False}
                where[p] = (DRAM, x)
            else:
                s = nvm_slot(i, None)
                nvm.slots[s] = {"page": p, "dirty": False, "ref": False}
                where[p] = (NVM, s)
            if not incoming_first and (not w or write_miss_read):
                b.to_end(mark)
        tier, x = where[p]
        e = dram[x] if tier == DRAM else nvm.slots[x]
        e["ref"] = hit or insert_referenced
        t = "dram" if tier == DRAM else "nvm"
        b.c[f"hits_{t}"] += hit
        b.c[f"writes_{t}"] += bool(w)
        if tier == NVM:
            b.c["write_hits_nvm"] += hit and bool(w)
        if w:
            if not e["dirty"]:
                b.c["dirtyings"] += 1
            e["dirty"] = True
    return b.end(dram, dh, nvm.slots, nvm.hand, len(pages), flush_at_end)


# policy name -> (reference, the boolean parameters the generic comparison in tests/test_kernels.py sweeps);
# the other parameters are swept in tests/test_clock_hbm.py
REFERENCES = {"clock_hbm": (clock_hbm, ("dram_ref_bit", "levels", "nvm_to_dram", "nvm_second_chance",
                                       "write_miss_read")),
              "clock_dnv": (clock_dnv, ("clean_to_free_nvm", "write_miss_read", "cache_reads"))}
