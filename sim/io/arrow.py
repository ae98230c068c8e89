"""How pyarrow is loaded: in a process of sim's own, without numpy.

pyarrow imports numpy whenever it can: 0.11 s with it, 0.04 s without on this
machine, paid by every process that stores or reads a run (the sim command on one
core, its store process, its pool's forkserver). sim never hands numpy to pyarrow:
the report reads Arrow buffers itself. So a process that says it is sim's own
(``own_process``: the sim command as it starts, the store process, the forkserver)
loads pyarrow with numpy held back, and numpy stays importable afterwards (the plots
use it). A program that imports sim keeps its pyarrow whole (pandas needs it so).
"""

from __future__ import annotations

import sys
import threading

# Whether this process is sim's own: set once, as it starts.
_own_process = False


def own_process() -> None:
    """Say this process is sim's own: nothing but sim uses its pyarrow."""
    global _own_process  # one switch a process, thrown as it starts
    _own_process = True


def load_arrow() -> None:
    """Import what storing and reading runs needs: pyarrow, its Parquet writer, its compute
    registry. Called before anything else imports pyarrow: by a worker's first part, the
    store process, the forkserver and the run folder's readers."""
    if "pyarrow.parquet" in sys.modules and "pyarrow._compute" in sys.modules:
        return
    # Held back only while this thread is the only one: None in sys.modules is seen by every
    # thread, and another one importing numpy then (a Dask client's, say) would fail.
    alone = threading.active_count() == 1
    if _own_process and alone and "numpy" not in sys.modules and "pyarrow" not in sys.modules:
        sys.modules["numpy"] = None  # type: ignore[assignment]  (its import raises ImportError)
        try:
            import pyarrow._compute
            import pyarrow.parquet
            return
        except ImportError:  # a pyarrow that cannot do without numpy: loaded whole below
            for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
                del sys.modules[name]
        finally:
            del sys.modules["numpy"]
    import pyarrow._compute
    import pyarrow.parquet  # noqa: F401
