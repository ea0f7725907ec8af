"""Android app SQL statement traces (DICL/mobile-traces) replayed through a real SQLite engine into a file-level
block trace with sync and delete events: the ``android-sql`` trace format (paper 5).

An app folder holds ``loading.sql`` (an sqlite3 ``.dump`` of the database's initial state), ``threads/<tid>.sql``
(each thread's statements, one a line) and ``benchset/<k>.sql`` (the threads grouped into a few client
streams). :func:`replay` builds the database from ``loading.sql`` (not traced), reopens it through a VFS shim
(:class:`LogVFS`, an ``apsw.VFS`` over SQLite's default one) that records every ``xRead``, ``xWrite``,
``xSync``, ``xTruncate`` and ``xDelete`` with file, offset and size, runs the statements one by one in
rollback-journal mode, and turns the log into a :class:`~flashrepro.traces.trace.Trace`. Both phases go
through the shim, which records every ``xSync`` but does not perform it: the scratch database is thrown
away, SQLite sees a sync succeed either way, and the fsyncs made a cold replay wait on the disk ~15x its
CPU time (the traces are identical, checked on every app and setting of notebook 05):

* every file is a file id; a block is ``(file id << 32) | (offset // 4096)``, so pages are numbered per file
  (:mod:`.filelevel`);
* reads and writes become READ/WRITE requests of the blocks they touch; ``xSync`` an ``Op.SYNC`` of that
  file; ``xTruncate`` an ``Op.TRIM`` of the file's blocks past the new end, ``xDelete`` a TRIM of all of them;
* **merged writes** (``merge_writes``): SQLite writes each journal record as 4 B + page + 4 B at unaligned
  offsets, so consecutive syscalls touch the same block twice. A write's blocks that the previous operation
  on the same file (a write) already covered are not written again: one block write per block per run of
  consecutive writes, as a page cache sees them. Without merging, per-syscall counting finds almost no
  journal block written once;
* **a journal re-created after a delete is a new file** (``journal_identity="generation"``, the default: it is
  a new inode). ``"path"`` keeps one file per path, and then nearly every journal block looks rewritten;
* **time**: the traces carry no timestamps (the Android statement log has none; the few epoch values inside
  statements are data). Statement ``k`` of ``n`` gets ``k * span_s / n`` seconds, so the replay spans the
  paper's 15-20 minutes (``span_s``, default 1,050 s, the middle) in statement order;
* **PRAGMAs** are run one at a time and their results fetched and checked (a multi-statement string runs
  lazily and would skip them silently). ``synchronous`` (FULL or NORMAL) and SQLite's own page cache
  (``cache_pages``, ``PRAGMA cache_size``) change the trace and are settings;
* statements of the threads that fail are counted by error and reported in ``Trace.meta`` (never hidden);
  a statement of ``loading.sql`` that fails stops the replay with the file, line, statement and SQLite's error
  (the app's statements would run on the wrong database).

Replays are cached under ``data/interim/replays/`` keyed by the content of every input file, the settings,
and the SQLite and apsw versions.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from .. import paths
from .._io import TraceFormatError, atomic_path
from .filelevel import FileBlocks
from .trace import Trace

REPLAY_VERSION = 1
SOURCES = ("threads", "benchset")
JOURNAL_MODES = ("delete", "truncate", "persist")  # the rollback journals (the replay records their file I/O)
SYNCHRONOUS = ("full", "normal", "off")
JOURNAL_IDENTITIES = ("generation", "path")


@dataclasses.dataclass(frozen=True)
class ReplaySettings:
    """How an app folder is replayed (every field is a choice the traces leave open)."""

    source: str = "threads"  # "threads": every thread file, in thread-id order; "benchset": the client streams
    journal_mode: str = "delete"  # rollback journal, deleted at commit
    synchronous: str = "full"  # "full" | "normal" | "off"
    cache_pages: int = 500  # SQLite's page cache (PRAGMA cache_size); 500 x 4 KiB = SQLite's default 2,000 KiB
    page_size: int = 4096
    merge_writes: bool = True
    journal_identity: str = "generation"  # "generation" | "path"
    span_s: float = 1050.0

    def check(self) -> None:
        """A bad setting is an error that says what is allowed and why."""
        if self.source not in SOURCES:
            raise ValueError(f"the statement source must be one of {', '.join(SOURCES)} (threads/*.sql or "
                             f"benchset/*.sql), got {self.source!r}")
        if self.journal_mode not in JOURNAL_MODES:
            why = {"wal": "WAL writes a -wal file and no rollback journal",
                   "memory": "MEMORY keeps the journal in memory, so the journal's file I/O would vanish",
                   "off": "OFF keeps no journal at all"}.get(str(self.journal_mode).lower(), "")
            raise ValueError(f"the journal mode must be one of the rollback modes {', '.join(JOURNAL_MODES)} "
                             f"(lower case), got {self.journal_mode!r}" + (f": {why}" if why else ""))
        if self.synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)} (lower case), got "
                             f"{self.synchronous!r}")
        ps = self.page_size
        if isinstance(ps, bool) or not isinstance(ps, (int, np.integer)) or not 512 <= ps <= 65536 or ps & (ps - 1):
            raise ValueError(f"the SQLite page size must be a power of two from 512 to 65536 bytes (SQLite's "
                             f"rule), got {ps!r}")
        cp = self.cache_pages
        if isinstance(cp, bool) or not isinstance(cp, (int, np.integer)) or cp <= 0:
            raise ValueError(f"SQLite's page cache must be a positive whole number of pages, got {cp!r} (SQLite "
                             "reads a negative cache_size as KiB; give pages here)")
        if not isinstance(self.merge_writes, (bool, np.bool_)):
            raise ValueError(f"merge_writes must be True or False, got {self.merge_writes!r}")
        if self.journal_identity not in JOURNAL_IDENTITIES:
            raise ValueError(f"the journal identity must be 'generation' (a journal re-created after a delete is "
                             f"a new file) or 'path' (one file per path), got {self.journal_identity!r}")
        sp = self.span_s
        if isinstance(sp, bool) or not isinstance(sp, (int, float, np.integer, np.floating)) \
                or not math.isfinite(sp) or sp <= 0:
            raise ValueError(f"the span (seconds the statements are spread over: the traces have no timestamps) "
                             f"must be a positive finite number, got {sp!r}")


def statement_files(folder: Path, source: str) -> list[Path]:
    sub = folder / source
    files = sorted(sub.glob("*.sql"), key=lambda p: (int(p.stem) if p.stem.isdigit() else 1 << 62, p.stem))
    if not files:
        raise TraceFormatError(f"{folder}: no {source}/*.sql statement files")
    return files


def is_app_folder(folder: Path) -> bool:
    return (folder / "loading.sql").is_file() and any((folder / s).is_dir() for s in SOURCES)


# --- the VFS shim ---------------------------------------------------------------------------------------
def _vfs_classes():
    import apsw

    class LogVFS(apsw.VFS):
        """SQLite's default VFS, every file operation appended to ``self.log`` as
        ``(statement, op, path, offset, size)``."""

        def __init__(self, name: str, log: list):
            self.log = log
            self.statement = -1
            self.temp = 0
            self.vfsname = name
            super().__init__(name, "")

        def xOpen(self, name, flags):
            path = name.filename() if isinstance(name, apsw.URIFilename) else name
            if path is None:
                self.temp += 1
                path = f"<temp {self.temp}>"
            return LogFile(self, Path(path).name if not path.startswith("<") else path, name, flags)

        def xDelete(self, filename, syncdir):
            self.log.append((self.statement, "delete", Path(filename).name, 0, 0))
            return super().xDelete(filename, False)  # no directory fsync: see LogFile.xSync

    class LogFile(apsw.VFSFile):
        def __init__(self, vfs, path, name, flags):
            self.vfs, self.path = vfs, path
            super().__init__("", name, flags)

        def xRead(self, amount, offset):
            data = super().xRead(amount, offset)
            if len(data):
                self.vfs.log.append((self.vfs.statement, "read", self.path, offset, len(data)))
            return data

        def xWrite(self, data, offset):
            self.vfs.log.append((self.vfs.statement, "write", self.path, offset, len(data)))
            return super().xWrite(data, offset)

        def xSync(self, flags):
            # Recorded, not performed: the scratch database is thrown away, so its durability is worth nothing,
            # and SQLite sees a successful sync either way (it makes no decision on how long one takes). With
            # the fsyncs a cold replay of the four apps' 11 settings waited ~5 minutes on the disk for ~20 s of
            # CPU (measured); the log, and so the trace, is the same (compared on every setting).
            self.vfs.log.append((self.vfs.statement, "sync", self.path, 0, 0))

        def xTruncate(self, newsize):
            self.vfs.log.append((self.vfs.statement, "truncate", self.path, newsize, 0))
            return super().xTruncate(newsize)

    return LogVFS


def _statements(text: str):
    """``(line, statement)``: the complete SQL statements of a ``.dump`` file (a statement may span lines),
    each with the 1-based line it starts on."""
    import apsw

    buf = []
    start = 1
    for number, line in enumerate(text.splitlines(), 1):
        if not buf:
            start = number
        buf.append(line)
        joined = "\n".join(buf)
        if apsw.complete(joined):
            yield start, joined
            buf = []
    if buf and "\n".join(buf).strip():
        yield start, "\n".join(buf)


def _load(con, path: Path, log: list) -> None:
    """Run ``loading.sql`` (the database's initial state) statement by statement. A statement SQLite refuses
    stops the replay with the file, the line, the statement and SQLite's error: every later statement would
    run on a database that is not the app's (missing tables make them fail, and the trace shrinks)."""
    import apsw

    for line, sql in _statements(path.read_text(encoding="utf-8", errors="replace")):
        log.clear()  # what the initial state's statements do is not part of the trace
        try:
            for _ in con.execute(sql):
                pass
        except apsw.Error as e:
            shown = " ".join(sql.split())
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            raise TraceFormatError(f"{path}:{line}: SQLite refused the statement {shown!r}: "
                                   f"{type(e).__name__}: {e}") from None


def _pragma(con, name: str, value) -> str:
    """Run one PRAGMA alone and fetch its result (a PRAGMA inside a multi-statement string may never run)."""
    rows = list(con.execute(f"PRAGMA {name}={value}"))
    got = list(con.execute(f"PRAGMA {name}"))
    return str(got[0][0]) if got else (str(rows[0][0]) if rows else "")


_SYNC_CODE = {"off": "0", "normal": "1", "full": "2"}


def _configure(con, s: ReplaySettings) -> dict:
    out = {"journal_mode": _pragma(con, "journal_mode", s.journal_mode),
           "synchronous": _pragma(con, "synchronous", s.synchronous.upper()),
           "cache_size": _pragma(con, "cache_size", s.cache_pages),
           "page_size": str(list(con.execute("PRAGMA page_size"))[0][0])}
    if out["journal_mode"].lower() != s.journal_mode or out["synchronous"] != _SYNC_CODE[s.synchronous] \
            or out["cache_size"] != str(s.cache_pages) or out["page_size"] != str(s.page_size):
        raise RuntimeError(f"SQLite did not take the settings: asked {s}, got {out}")
    return out


def run_sqlite(folder, settings: ReplaySettings = ReplaySettings()) -> tuple[list, dict]:
    """Replay ``folder`` through SQLite; returns the raw VFS log and facts about the run (statements, failures
    by error, the PRAGMA results)."""
    import apsw

    folder = Path(folder)
    settings.check()
    files = statement_files(folder, settings.source)
    LogVFS = _vfs_classes()
    log: list = []
    failures: Counter = Counter()
    examples: dict = {}
    with tempfile.TemporaryDirectory(prefix="flashrepro-sql-") as tmp:
        db = str(Path(tmp) / "app.db")
        # the initial state is built through the shim too, only for its skipped syncs (the dump runs one
        # statement per transaction: a sync each); what it records is dropped
        load_log: list = []
        load_vfs = LogVFS(f"flashrepro-load-{id(load_log)}", load_log)
        try:
            con = apsw.Connection(db, vfs=load_vfs.vfsname)
            _pragma(con, "page_size", settings.page_size)
            _pragma(con, "journal_mode", settings.journal_mode)
            try:
                _load(con, folder / "loading.sql", load_log)
                if con.in_transaction:
                    con.execute("COMMIT")
            finally:
                con.close()
        finally:
            load_vfs.unregister()
        vfs = LogVFS(f"flashrepro-log-{id(log)}", log)
        try:
            con = apsw.Connection(db, vfs=vfs.vfsname)
            pragmas = _configure(con, settings)
            log.clear()  # the PRAGMAs' own reads are not part of the app's trace
            n = 0
            for path in files:
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    sql = line.strip()
                    if not sql:
                        continue
                    vfs.statement = n
                    n += 1
                    try:
                        for _ in con.execute(sql):
                            pass
                    except apsw.Error as e:
                        key = f"{type(e).__name__}: {str(e).split(':')[0][:60]}"
                        failures[key] += 1
                        examples.setdefault(key, f"{path.name}: {sql[:120]}")
            vfs.statement = n
            if con.in_transaction:
                con.execute("COMMIT")
            con.close()
        finally:
            vfs.unregister()
    facts = {"statements": n, "failed": sum(failures.values()), "failures": dict(sorted(failures.items())),
             "failure_examples": dict(sorted(examples.items())), "loading_failed": 0,  # else _load raised
             "statement_files": len(files), "pragmas": pragmas, "sqlite": apsw.sqlite_lib_version(),
             "apsw": apsw.apsw_version()}
    return log, facts


def to_trace(log: list, facts: dict, settings: ReplaySettings, name: str, source: str) -> Trace:
    """The VFS log as a file-level block trace (see the module docstring and :mod:`.filelevel`)."""
    dt = settings.span_s / max(facts["statements"], 1)
    fb = FileBlocks(settings.merge_writes)
    ids: dict = {}  # (path, generation) -> file id
    generation: Counter = Counter()
    kinds: Counter = Counter()

    def fid(path):
        key = (path, generation[path] if settings.journal_identity == "generation" else 0)
        if key not in ids:
            ids[key] = fb.new_file(f"{path}#{key[1]}" if key[1] else path)
        return ids[key]

    for stmt, kind, path, offset, size in log:
        t = stmt * dt
        kinds[kind] += 1
        if kind == "delete":
            key = (path, generation[path] if settings.journal_identity == "generation" else 0)
            if key in ids:
                fb.delete(t, ids[key])
            generation[path] += 1  # a file re-created at this path is a new file
        elif kind == "sync":
            fb.sync(t, fid(path))
        elif kind == "truncate":
            fb.truncate(t, fid(path), offset)
        elif kind == "read":
            fb.read(t, fid(path), offset, size)
        else:
            fb.write(t, fid(path), offset, size)
    meta = {"format": "android-sql", **facts, "settings": dataclasses.asdict(settings),
            "vfs_calls": dict(sorted(kinds.items())),
            "time": f"statement k of n at k * {settings.span_s:g} / n s (the traces have no timestamps)"}
    return fb.trace(name, source, meta)


def cache_key(folder: Path, settings: ReplaySettings) -> str:
    import apsw

    h = hashlib.sha256()
    for p in [folder / "loading.sql", *statement_files(folder, settings.source)]:
        h.update(p.name.encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    spec = json.dumps({"settings": dataclasses.asdict(settings), "v": REPLAY_VERSION,
                       "sqlite": apsw.sqlite_lib_version(), "apsw": apsw.apsw_version()}, sort_keys=True)
    h.update(spec.encode())
    return h.hexdigest()[:24]


def replay(folder, settings: ReplaySettings | None = None, *, cache: bool = True, name: str | None = None,
           **overrides) -> Trace:
    """The block trace of an app folder (cached under data/interim/replays); ``overrides`` are
    :class:`ReplaySettings` fields."""
    folder = Path(folder)
    if not is_app_folder(folder):
        raise TraceFormatError(f"{folder}: not an android-sql app folder (loading.sql and threads/ or benchset/)")
    settings = dataclasses.replace(settings or ReplaySettings(), **overrides)
    settings.check()
    name = name or folder.name
    target = paths.interim / "replays" / f"{folder.name}-{cache_key(folder, settings)}.npz"
    if cache and target.is_file():
        with np.load(target, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("loading_failed"):  # kept by an older version that went on: replay it to say why
                return _replay_uncached(folder, settings, name, target, cache)
            return Trace(z["time_s"], z["op"], z["offset_bytes"], z["size_bytes"], name=name, source=str(folder),
                         meta=meta, file=z["file_id"])
    return _replay_uncached(folder, settings, name, target, cache)


def _replay_uncached(folder: Path, settings: ReplaySettings, name: str, target: Path, cache: bool) -> Trace:
    log, facts = run_sqlite(folder, settings)
    tr = to_trace(log, facts, settings, name, str(folder))
    if cache:
        with atomic_path(target) as tmp, open(tmp, "wb") as f:
            np.savez(f, time_s=tr.time_s, op=tr.op, offset_bytes=tr.offset_bytes, size_bytes=tr.size_bytes,
                     file_id=tr.file, meta=np.array(json.dumps(tr.meta)))  # (savez takes file=)
    return tr


def read_folder(path, **opts) -> Trace:
    """The ``android-sql`` format's reader: ``opts`` are :class:`ReplaySettings` fields (and ``cache``)."""
    return replay(path, **opts)


def file_kinds(tr: Trace) -> np.ndarray:
    """Per request: "db", "journal" or "temp" from the file names the replay recorded."""
    names = tr.meta.get("files", [])
    kind = np.array(["journal" if "-journal" in n else ("temp" if n.startswith("<temp") else "db") for n in names]
                    + ["none"])
    return kind[np.where(tr.file >= 0, tr.file, len(names))]
