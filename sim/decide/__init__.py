"""Decisions between variants of an encounter, on common battle seeds.

::

    paired    common random numbers: variants played on the same battle seeds
    compare   ``sim compare``: variants with paired differences
    tune      ``sim tune``: the values of one integer parameter that meet a risk target
    presets   named ways of fighting, each a set of tactics keys set on a whole side
    spread    ``sim spread``: as written, each preset of each side and the corners

May import: ``sim.batch`` and the layers below; never a replay, a report, the server or
a command.
"""
