"""Adventuring days (rules §7): encounters chained with rests, what the party carries
between them, and the batch aggregate of whole days.

::

    file      day files: loading and validating a day, its steps, its composed encounters
    compose   a day's encounter composed with the day's party, every value traced to its file
    options   a day's ``options:``: destiny points, how rests give back unhealable HP
    rest      rests and what the party carries between fights
    play      playing a day (or a single scenario): one seed per fight, ``run_any``
    stats     lethality of whole days: the batch aggregate, step by step

May import: ``sim.tally``, ``sim.events``, ``sim.scenario``, ``sim.engine``, ``sim.rules``,
``sim.model`` and the layers below; never a batch, a decision, a report or a command.
"""
