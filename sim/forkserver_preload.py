"""Imported by the pool's forkserver only, never by the main process: workers start with
Ctrl-C ignored and the engine already imported.

The forkserver hands each child the SIGINT handler it had after its preloads; ignoring
SIGINT here closes the window between a worker's fork and its initializer, in which a
terminal's Ctrl-C (sent to the whole process group) would print a traceback from a worker
that is only being born.
"""

import signal

from sim.io.arrow import load_arrow, own_process

own_process()  # the forkserver and its workers are sim's: pyarrow loads without numpy
load_arrow()  # preloaded: workers fork with it imported

import sim.batch  # noqa: E402, F401  (preloaded: workers fork with the engine imported)

signal.signal(signal.SIGINT, signal.SIG_IGN)
