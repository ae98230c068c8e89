"""One battle: set-up (HP, pools, mounts, hazards), the clock run to its end, the outcome.

``Battle`` joins the four concepts of the engine, one module each, stacked as one line
of classes (``Battle`` < ``Clock`` < ``Turns`` < ``Combat`` < ``Status``, the order a
mixin list would give, kept single so a compiled build can make each an extension type):
``Clock`` (rounds and initiative), ``Turns`` (a turn's action economy), ``Combat`` (attack
and damage) and ``Status`` (status and victory). Rule systems, effects, morale, tactics and items
never see the battle: they get its ``table`` (dice, log, clock), the fighters they act
on, and (effects) the small ``sim.engine.effects.Host`` interface.

A battle does no I/O: events are plain dicts appended to ``table.log`` when a log is
asked for, and not even built otherwise (every emit sits behind ``if log is not None``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from sim import __version__
from sim.engine.clock import Clock
from sim.engine.effects import expose
from sim.engine.morale import after_check, announce_demoralized, give_tokens, state_of
from sim.engine.outcome import BattleOutcome
from sim.engine.state import DEAD, Fighter
from sim.engine.table import Table
from sim.engine.tactics import arm
from sim.rules.systems import system_for

if TYPE_CHECKING:
    from collections.abc import Callable

    import simpy

    from sim.model import Scenario
    from sim.rules import RuleSystem

SCHEMA = 1


class Battle(Clock):
    """One battle of a scenario, from ``battle_started`` to ``battle_ended``."""

    def __init__(
        self, scenario: Scenario, seed: int, log: bool = False, batch: dict | None = None,
        carry: Callable[[Fighter], None] | None = None, fast: bool = True,
        sink: list[dict] | None = None,
    ) -> None:
        self.scenario = scenario
        self.seed = seed
        self.batch = batch  # {"seed": master seed, "index": i} for a battle of a batch
        # An adventuring day (sim.day.play; sim.day.rest.Member) hands over what its party carries
        # from earlier fights and rests: called on each fighter once its pools are rolled.
        self._carry = carry
        options = scenario.options
        self.rules: RuleSystem = system_for(scenario.rules, options)
        self.morale_on = self.rules.morale_default if options.morale_on is None else options.morale_on
        # The table: dice, log and clock, all that rules, effects, morale and tactics see.
        self.table = table = Table(seed, log, sink)
        self.log = table.log  # the same list (or None): read on every event
        self.emit = table.emit  # events are stamped with the table's round and time
        if self.morale_on:  # morale listens to every check (its reroll), never called by rules
            table.on_check = functools.partial(after_check, table)
            table.despair_disadvantage = options.despair_disadvantage
            table.despair_again = options.despair_again
        self._env: simpy.Environment | None = None  # made when first needed (Clock.env)
        # Clock: who rolls initiative and the two turn orders (filled by _setup).
        self.surprise_side: str | None = None
        self._roller_first: list[Fighter] = []
        self._others_first: list[Fighter] = []
        # Turns: the economy, the rout, positions, the focus tactic's shared targets.
        self.economy = economy = self.rules.economy
        # The economy's numbers every turn reads, bound once (typed fields when compiled).
        self._budget = economy.budget
        self._max_attacks = economy.max_attacks
        self._move_after_attack = economy.move_after_attack
        self._flee_at = options.flee_at
        self._routed: set[str] = set()
        self.spread = scenario.distance > 0  # False while everyone stands at one spot
        # Only hazards and a timeline put anyone where it needs rescuing (water, smoke, a fire
        # zone); they, mounts (a fallen rider) and a rout make turns special (_prepare_turn).
        self._perils = bool(scenario.hazards or scenario.timeline)
        self._special = self._perils or self._flee_at is not None  # see _prepare_turn
        self.focus: dict[str, Fighter] = {}  # side -> shared target of the focus tactic
        # Combat: outnumbering, the system's attack and damage bound once (every attack).
        self._outnumbered_at = options.outnumbered_at
        self._outnumbering = self.rules.outnumbering
        self._wounds = self.rules.serious_wounds  # whether after_damage does anything
        self._resolve_attack = self.rules.attack
        self._roll_damage = self.rules.damage
        # The system's fused attack-and-damage, where it has one, for battles that log nothing
        # and where nothing listens to checks; ``fast=False`` keeps the general path (tests).
        self._strike = self.rules.strike if fast and not log and not self.morale_on else None
        # Status: the fighters, per-side counts that decide victory, destiny, the end.
        self.fighters: list[Fighter] = []
        self._by_side: dict[str, list[Fighter]] = {}
        self._able: dict[str, int] = {side.name: 0 for side in scenario.sides}
        self._starting: dict[str, int] = {}  # side -> members that count, at the start
        self._standing = 0  # sides with at least one able member
        # side -> able enemies, reset on any change of status (read on every attack)
        self.enemies_cache: dict[str, list[Fighter]] = {}
        self._ever_down: set[str] = set()
        self.destiny_left = options.destiny_points
        self._destiny = self.destiny_left > 0  # 0 HP is lethal for party members (rules §5)
        self._rider_falls = options.unconscious_rider == "falls"  # see Status._unseat
        # Stalemate: able fighters with a weapon (kept by _set_status), and the last scripted round.
        self._armed = 0
        self._last_scripted = max((entry.round for entry in scenario.timeline), default=0)
        self.ended = False
        self.winner: str | None = None

    # -- set-up ------------------------------------------------------------------

    def _setup(self) -> None:
        """Roll HP (then the system's pools) for each combatant in listed order."""
        distance = self.scenario.distance
        sides = self.scenario.sides
        # No generator below: a compiled build types this method's fighters (battle.pxd).
        parties = [s for s in sides if s.party]
        home = parties[0] if parties else sides[0]  # the party, else the first side
        table, rng, economy, fatigue = self.table, self.table.rng, self.economy, self.rules.fatigue
        prepare, carry, fighters, able = self.rules.prepare, self._carry, self.fighters, self._able
        mounted = False
        party_side = bool(parties)
        for side in sides:
            x = 0.0 if side is home else distance
            members = self._by_side[side.name] = []
            # The players' characters hold morale tokens, other sides none (rules §4).
            tokens = self.morale_on and self.scenario.options.holds_tokens(side.party, party_side)
            for spec in side.members:
                hp = spec.hp.roll(rng)
                fighter = Fighter(spec, side, len(fighters), hp if hp > 1 else 1, x)
                arm(fighter, economy, fatigue)
                if fighter.items:
                    self._special = True  # potions are weighed before every turn
                prepare(table, fighter)
                if tokens and fighter.counts:  # mounts hold no tokens (rules §4)
                    give_tokens(table, fighter)
                if carry is not None:
                    carry(fighter)  # may leave it down (0 HP) or broken from before
                fighters.append(fighter)
                members.append(fighter)
                mounted = mounted or spec.mount is not None
                if fighter.able:
                    self._armed += bool(spec.weapons)
                    if fighter.counts:
                        able[side.name] += 1
        self._standing = len([count for count in able.values() if count > 0])
        self._starting = dict(able)
        self._roller = roller = home  # rolls initiative
        self._gifted = [f for f in self._by_side[roller.name] if f.initiative_gift]
        # The two possible turn orders: the rolling side first, or the others (in listed order).
        others = [f for side in sides if side is not roller for f in self._by_side[side.name]]
        self._roller_first = [*self._by_side[roller.name], *others]
        self._others_first = [*others, *self._by_side[roller.name]]
        if self.log is not None:
            self.emit(
                "battle_started", schema=SCHEMA, seed=self.seed, rules=self.scenario.rules,
                scenario=self.scenario.name, scenario_path=self.scenario.path,
                scenario_path_resolved=self.scenario.abs_path,
                scenario_sha256=self.scenario.sha256,
                **({"bestiary": list(self.scenario.bestiary)} if self.scenario.bestiary else {}),
                **({"overrides": list(self.scenario.overrides)} if self.scenario.overrides else {}),
                version=__version__, combatants=[self._describe(f) for f in self.fighters],
                **({"batch": self.batch} if self.batch else {}),
            )
        if self.morale_on:
            announce_demoralized(self.table, self.fighters)
        if mounted:
            self._mount_riders()
            self._special = True  # riders fall: someone may need helping up
        if self.scenario.hazards:
            self._place_hazards()

    def _mount_riders(self) -> None:
        """Seat every rider on its mount (listed right after it): they move as one. In a day's
        fight, a rider or a mount still down from the last one (stabilised at 0 HP, or a broken
        mind) is not seated: nobody rides an unconscious mount, and an unconscious rider is out
        of the saddle (rules §6; before, the rider rode its 0-HP horse and rolled riding on it)."""
        by_name = {f.name: f for f in self.fighters}
        for rider in self.fighters:
            if rider.spec.mount is not None:
                mount = by_name[rider.spec.mount]
                if not (rider.able and mount.able):
                    continue
                rider.mounted_on, mount.ridden_by = mount, rider
                if self.log is not None:
                    self.emit("effect_started", target=rider.name, effect="mounted",
                              mount=mount.name)

    def _place_hazards(self) -> None:
        """Fighters that start in water, smoke or fire are exposed from their first turn."""
        by_name = {f.name: f for f in self.fighters}
        for hazard in self.scenario.hazards:
            for name in hazard.members:
                expose(self, by_name[name], hazard.kind, hazard.escape)

    def _describe(self, f: Fighter) -> dict[str, object]:
        entry: dict[str, object] = {"name": f.name, "side": f.side, "hp": f.hp, "max_hp": f.max_hp}
        entry["x"] = f.x
        if f.morale is not None:
            entry["morale"] = f.morale
        if f.heroism:
            entry["heroism"] = f.heroism
        if f.spirit is not None:
            entry["spirit"] = f.spirit
        if f.items:
            entry["items"] = dict(f.items)
        return entry

    def _outcome(self) -> BattleOutcome:
        down = self._ever_down
        morale = self.morale_on
        return BattleOutcome(
            self.seed, self.winner, self.table.round,
            tuple([  # a list, not a generator: a compiled build types ``f`` (battle.pxd)
                (f.hp, f.status, f.cause if f.status == DEAD else None,
                 f.status != DEAD and f.name in down,
                 state_of(f) if morale else None, tuple(sorted(f.learned)) if morale else (),
                 f.items_used)
                for f in self.fighters
            ]),
        )


def run_battle(
    scenario: Scenario, seed: int, log: bool = False, batch: dict | None = None,
    sink: list[dict] | None = None,
) -> tuple[BattleOutcome, list[dict]]:
    """Play one battle; returns its outcome and its events (empty unless ``log``), appended to
    ``sink`` when one is given (sim.events.StreamedLog, CappedLog)."""
    battle = Battle(scenario, seed, log, batch, sink=sink)
    outcome = battle.run()
    return outcome, battle.log or []
