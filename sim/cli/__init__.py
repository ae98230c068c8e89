"""The ``sim`` command (console script ``sim = sim.launch:main``, and ``python -m sim``).

::

    entry    main: parse, dispatch, exit codes
    args     the parser, argument types, help texts
    common   exit codes, printing, --bestiary / --scheduler checks, the progress bar
    play     run, replay, validate, report
    batch    batch (new, resumed, interrupted)
    decide   compare, tune
    show     show, bestiary
    srd      import (other d20 games' monsters as bestiary files)

May import every layer below it; the server, the report package and the terminal
replay only inside the command that needs them (their libraries are slow to load).
"""

import os

# pyarrow imports numpy, whose OpenBLAS starts a thread per core that spins for about 0.1 s of
# CPU in every process importing it (the store process, the worker pool's server, this one
# when it stores or reports), taking a core from the battles while workers start. sim does
# no linear algebra: one BLAS thread does.
# Set before anything imports numpy; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from sim.cli.entry import main  # after the environment above

__all__ = ["main"]
