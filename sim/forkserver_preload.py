"""Imported by the pool's forkserver only, never by the main process: workers start with
Ctrl-C ignored and the engine already imported.

The forkserver hands each child the SIGINT handler it had after its preloads; ignoring
SIGINT here closes the window between a worker's fork and its initializer, in which a
terminal's Ctrl-C (sent to the whole process group) would print a traceback from a worker
that is only being born.
"""

import signal

import pyarrow.parquet  # noqa: F401  (preloaded: workers fork with it imported)

import sim.batch  # noqa: F401  (preloaded: workers fork with the engine imported)

signal.signal(signal.SIGINT, signal.SIG_IGN)
