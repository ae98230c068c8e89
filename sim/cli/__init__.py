"""The ``sim`` command (console script ``sim = sim.cli:main``, and ``python -m sim``).

::

    entry    main: parse, dispatch, exit codes
    args     the parser, argument types, help texts
    common   exit codes, printing, --bestiary / --scheduler checks, the progress bar
    play     run, replay, validate, report
    batch    batch (new, resumed, interrupted)
    decide   compare, tune
    show     show, bestiary
"""

from sim.cli.entry import main

__all__ = ["main"]
