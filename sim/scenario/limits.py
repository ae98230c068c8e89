"""What a scenario may hold: the rule systems implemented and the bound of every number.

The bounds keep every number within what the engine, the log and the int32 columns
of battles.parquet hold (HP, damage and rounds are int32 there).
"""

IMPLEMENTED_SYSTEMS = ("d20", "d100", "2d10", "d10")
MAX_NAME = 80
MAX_COUNT = 100
MAX_COMBATANTS = 500
MAX_ROUNDS = 10_000
# max_rounds times the combatants (mounts included): the most turns a battle may take. Fighters
# nobody can bring down (1,000,000 HP, armor no weapon pierces) play to max_rounds: 500 of them
# for 10,000 rounds took an hour and tens of GB of log. 100,000 is about 10 s narrated.
MAX_COMBATANT_ROUNDS = 100_000
# A whole day's turns: its fights' max_rounds times combatants, summed. Fifty fights each at a
# battle's bound took 5.6 GB of log held in memory and hours; a day may take two such battles.
MAX_DAY_TURNS = 2 * MAX_COMBATANT_ROUNDS
DEFAULT_ROUNDS = 100
MAX_HP = 1_000_000
MAX_DAMAGE = 1_000_000  # any one roll of harm: a weapon, an explosion, terror
MAX_TOKENS = 1_000  # starting morale tokens
MAX_MESSAGE = 160
