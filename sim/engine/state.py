"""Mutable state of one combatant during one battle, kept apart from its frozen spec."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.model import INITIATIVE_GIFT
from sim.rules import actors

if TYPE_CHECKING:
    import simpy

    from sim.model import Combatant, Side, Weapon
    from sim.rules.actors import Arm

# Status values, in the words the event log and the batch summary use.
ACTIVE = "active"
UNCONSCIOUS = "unconscious"
DEAD = "dead"
FLED = "fled"
BROKEN = "broken"  # d20 spirit points at 0: out of the fight, alive unless its side loses
# Unconscious or broken on a side that lost while a member of it got away (fled): alive at its
# HP, where the fight left it; it takes no part in the day's later fights (rules §5).
LEFT_BEHIND = "left_behind"


class Fighter(actors.Fighter):
    """One combatant in one battle: HP, position, pools and status.

    Slotted and plain (not attrs) because the engine touches these fields on
    every attack; read ``spec`` for anything that never changes. The fields the rules
    read and write are declared by its base, ``sim.rules.actors.Fighter``.
    """

    __slots__ = ("_turn_event", "arm_at_hand", "arsenal", "attacked_by", "attacked_round", "cause",
                 "cost_at_hand", "counts", "effects", "fatigues", "fire_damage", "fixed_at_hand",
                 "fixed_reach", "index", "initiative_gift", "items", "items_used", "learned",
                 "morale", "mounted_on", "policy", "potion_at", "prefers", "prone", "psy", "reach",
                 "ridden_by", "saved", "social_burnt", "status", "unhealable", "weapon_at_hand", "x")

    def __init__(self, spec: Combatant, side: Side, index: int, hp: int, x: float) -> None:
        self.spec = spec
        # What it takes from its stat block and its side, worked out once per spec and side, not
        # per battle (memoized on the spec beside its armory, checked by the side's identity: a
        # spec may serve another side, in another scenario of a compare). Read on every attack:
        # the member's tactics override its side's key by key (see sim.engine.tactics).
        memo = spec.armory.get("fighter")
        if memo is None or memo[0] is not side:
            memo = spec.armory["fighter"] = _taken_from(spec, side)
        (_, self.name, self.side, self.party, self.heroism, self.level, self.armor, self.reach,
         self.attack_threshold, self.defense_threshold, self.counts, self.psy, self.policy,
         self.prefers, self.potion_at, self.initiative_gift) = memo
        self.index = index
        self.hp = hp
        self.max_hp = hp
        self.x = x
        self.spirit: int | None = None
        self.max_spirit: int | None = None
        self.status = ACTIVE
        # Can act and counts for victory (conscious, present, mind intact). A plain
        # field, not a property: read on every target choice. Battle._set_status keeps it.
        self.able = True
        self.cause: str | None = None  # what knocked it out or killed it
        self.saved = False  # a destiny point kept it alive
        self.skip_turns = 0
        self.effects: list = []  # sim.engine.effects.OngoingEffect instances still running
        self.attacked_by: set[str] = set()  # enemies who attacked it in attacked_round
        self.attacked_round = 0
        self.defended_round = -1  # d100, ``defense_per: round``: the round it last rolled defense
        self._turn_event: simpy.Event | None = None
        # Weapons in order of preference with their cost in half-actions and their Arm (what
        # an attack reads: sim.rules.actors.Arm), the one used while everyone stands together,
        # its cost and Arm, whether it never changes (no spell, no tiring shot), and whether
        # the system tires fighters (d100): set by sim.engine.tactics.arm.
        self.arsenal: tuple[tuple[Weapon, int, Arm], ...]
        self.weapon_at_hand: Weapon | None
        self.cost_at_hand: int
        self.arm_at_hand: Arm | None
        self.fixed_at_hand: bool
        self.fixed_reach: bool  # its reach is its stat block's (no spell, no shot that may fail)
        self.fatigues: bool
        # Items (rules §8): name -> how many are left. Battle state, not the spec's: a
        # day of several fights carries what is left over.
        self.items: dict[str, int] = {i.name: i.count for i in spec.items} if spec.items else {}
        self.items_used = 0
        # d100 (seed 002) state.
        self.fatigue = 0  # each point is -5 on physical checks
        self.weakened = False  # after a serious wound: -20 on every check
        self.unhealable = 0  # HP paid for spells
        self.prone = False  # fallen (from a mount): standing up costs a half-action
        self.mounted_on: Fighter | None = None  # the mount it rides
        self.ridden_by: Fighter | None = None  # for a mount: its rider, while mounted
        self.fire_damage = 0  # HP lost to fire this battle (not the dice rolled at 0 HP)
        self.social_lost = 0  # social lost to fire, this battle and earlier fights of its day
        self.social_burnt = False  # whether fire took social this battle (once a battle, rules §6)
        # Morale (seed 000), when the option is on.
        self.morale: int | None = None  # tokens; None: morale is off
        self.despairing = False
        self.learned: set[str] = set()  # skills whose learning box was ticked

    @property
    def present(self) -> bool:
        """Still on the battlefield, whatever its state (not dead, not fled)."""
        return self.status not in (DEAD, FLED)

    def next_turn(self, env: simpy.Environment) -> simpy.Event:
        """The event fired at the start of this fighter's next turn (effects wait on it)."""
        if self._turn_event is None:
            self._turn_event = env.event()
        return self._turn_event

    def start_turn(self) -> bool:
        """Fire the pending turn event, if anything waits on it; True when something did."""
        event, self._turn_event = self._turn_event, None
        if event is None:
            return False
        event.succeed()
        return True

    def __repr__(self) -> str:
        return f"Fighter({self.name!r}, hp={self.hp}/{self.max_hp}, {self.status})"


def _taken_from(spec: Combatant, side: Side) -> tuple:
    """(side, name, side's name, party, heroism, level, armor, reach, attack and defense
    thresholds, whether it counts for victory (mounts do not), PSY, target policy, weapon names in
    order of preference or None, potion threshold, whether it has the initiative gift): what a
    fighter takes from its spec and side."""
    tactics = side.tactics if spec.tactics is None else spec.tactics.over(side.tactics)
    return (side, spec.name, side.name, side.party, spec.heroism, spec.level, spec.armor,
            spec.reach, spec.effective_attack_threshold, spec.effective_defense_threshold,
            spec.rider is None, spec.psy, tactics.policy, tactics.weapons, tactics.drink_at,
            spec.has_gift(INITIATIVE_GIFT))
