"""Decisions between variants of an encounter, on common battle seeds.

::

    paired    common random numbers: variants played on the same battle seeds
    compare   ``sim compare``: variants with paired differences
    tune      ``sim tune``: the values of one integer parameter that meet a risk target

May import: ``sim.batch`` and the layers below; never a replay, a report, the server or
a command.
"""
