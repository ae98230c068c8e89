"""Replaying one battle: regenerated from a batch or read back from a saved log, stepped
through, narrated, and picked out of a run (worst, median, best).

::

    load      regenerate battle I of a batch, or read a saved event log back
    state     the state of a battle after its first k logged events
    narrate   one readable line per meaningful event of a log
    picks     the party's worst, a median and its best battle of a run
    ui        the keyboard-driven terminal replay (textual: imported only when used)

May import: ``sim.batch``, ``sim.day`` and the layers below; never a decision, a report,
the server or a command.
"""
