"""What a battle's result counts as, and the counts of a batch.

::

    party     what happened to the party in one battle: the facts behind the GM metrics
    columns   a chunk's battles as columns (fighter rows dictionary-coded)
    stats     lethality metrics: Wilson intervals and a streaming, fixed-memory aggregate

May import: ``sim.engine`` (a combatant's state) and the layers below it; never a day,
a batch, a decision, a report or a command.
"""
