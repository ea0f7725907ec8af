"""The tally every plain-Python reference keeps: what a kernel reports, counted directly."""


class Book:
    """Counts exactly what a kernel reports (every counter, derived ones included), by direct counting."""

    def __init__(self, extra=()):
        self.hits, self.ios = [], []
        self.c = dict.fromkeys(("references", "hits", "write_references", "write_hits", "read_hits", "misses",
                                "read_misses", "write_misses", "device_reads", "device_read_requests",
                                "device_writes_eviction", "device_writes_end_flush", "device_write_requests",
                                "device_writes", "dirtyings", "dirty_at_end", "evictions", "resident_at_end",
                                *extra), 0)

    def ref(self, hit, w):
        self.hits.append(hit)
        c = self.c
        c["references"] += 1
        if w:
            c["write_references"] += 1
        if hit:
            c["hits"] += 1
            c["write_hits" if w else "read_hits"] += 1
        else:
            c["misses"] += 1
            c["write_misses" if w else "read_misses"] += 1

    def read(self, i, page):
        self.ios.append((i, 0, 0, page, 1))
        self.c["device_reads"] += 1
        self.c["device_read_requests"] += 1

    def write(self, i, page, cause, n_pages=1):
        self.ios.append((i, 1, cause, page, n_pages))
        self.c["device_writes_eviction" if cause == 1 else "device_writes_end_flush"] += n_pages
        self.c["device_writes"] += n_pages
        self.c["device_write_requests"] += 1

    def end(self, resident_in_order, dirty, n, flush_at_end):
        """``resident_in_order``: the pages held at the end, in the order a flush writes them."""
        for p in resident_in_order:
            if p in dirty:
                if flush_at_end:
                    self.write(n - 1, p, 2)
                else:
                    self.c["dirty_at_end"] += 1
        self.c["resident_at_end"] = len(resident_in_order)
        return self.hits, self.ios, self.c
