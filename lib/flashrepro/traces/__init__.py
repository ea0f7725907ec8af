"""Traces: the Trace type, readers of real formats, the parse cache, synthetic generators, the catalog."""

from .._io import TraceFormatError, TraceWarning
from .readers import CSV_PRESETS, FORMATS, CsvLayout, Format, format_names, iter_trace, read_trace, register_format
from .trace import Op, PageRefs, StreamSpec, Trace, dense_remap

__all__ = ["CSV_PRESETS", "FORMATS", "CsvLayout", "Format", "Op", "PageRefs", "StreamSpec", "Trace",
           "TraceFormatError", "TraceWarning", "dense_remap", "format_names", "iter_trace", "read_trace",
           "register_format"]

from . import catalog, synthetic  # noqa: E402
from .store import load_trace, open_trace  # noqa: E402

__all__ += ["catalog", "load_trace", "open_trace", "synthetic"]
