"""What a scenario may hold: the rule systems implemented and the bound of every number.

The bounds keep every number within what the engine, the log and the int32 columns
of battles.parquet hold (HP, damage and rounds are int32 there).
"""

IMPLEMENTED_SYSTEMS = ("d20", "d100", "2d10", "d10")
MAX_NAME = 80
MAX_COUNT = 100
MAX_COMBATANTS = 500
MAX_ROUNDS = 10_000
DEFAULT_ROUNDS = 100
MAX_HP = 1_000_000
MAX_DAMAGE = 1_000_000  # any one roll of harm: a weapon, an explosion, terror
MAX_TOKENS = 1_000  # starting morale tokens
MAX_MESSAGE = 160
