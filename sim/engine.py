"""The SimPy round clock: initiative, turns at fractional times, actions, victory and death.

One ``Battle`` is one fight with its own ``random.Random(seed)``. It does no
I/O: events are plain dicts appended to ``log`` when a log is asked for, and
not even built otherwise (every emit sits behind ``if self.log is not None``).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import attrs
import simpy

from sim import __version__
from sim.dice import roll_die
from sim.effects import ESCAPABLE, Asphyxiating, expose, ignite, poison, throw_off
from sim.items import use_items
from sim.model import INITIATIVE_GIFT, MELEE_REACH_M
from sim.morale import announce_demoralized, fallen, give_tokens, state_of, wounded
from sim.rules import system_for
from sim.state import ACTIVE, BROKEN, DEAD, FLED, UNCONSCIOUS, Fighter
from sim.stats import FighterRow
from sim.tactics import approach_gap, arm, choose_target, choose_weapon
from sim.timeline import run_timeline

if TYPE_CHECKING:
    from collections.abc import Callable, Generator

    from sim.model import Scenario, Weapon
    from sim.rules import AttackResult, RuleSystem

SCHEMA = 1
INITIATIVE_WINS_ON = 4  # 4-6 on the d6: the party acts first
# Alive but out of the fight: they die if their side loses (RULES 3 broken minds, RULES 5).
OUT_OF_THE_FIGHT = (UNCONSCIOUS, BROKEN)


@attrs.frozen
class BattleOutcome:
    """The result of one battle, small enough to aggregate by the thousand.

    ``rows`` holds one plain tuple per combatant, in scenario order: cheap to
    build and to send between processes.
    """

    seed: int
    winner: str | None
    rounds: int
    rows: tuple[FighterRow, ...]


class Battle:
    """One battle of a scenario, from ``battle_started`` to ``battle_ended``."""

    def __init__(
        self, scenario: Scenario, seed: int, log: bool = False, batch: dict | None = None,
        carry: Callable[[Fighter], None] | None = None,
    ) -> None:
        self.scenario = scenario
        # An adventuring day (sim.day) hands over what its party carries from earlier
        # fights and rests: called on each fighter once its pools are rolled.
        self._carry = carry
        self.seed = seed
        self.batch = batch  # {"seed": master seed, "index": i} for a battle of a batch
        self.rules: RuleSystem = system_for(scenario.rules)
        self.economy = self.rules.economy_for(scenario.options)
        options = scenario.options
        self.morale_on = self.rules.morale_default if options.morale_on is None else options.morale_on
        self._flee_at = options.flee_at
        self._routed: set[str] = set()
        self._starting: dict[str, int] = {}  # side -> members that count, at the start
        self.rng = random.Random(seed)
        self.env = simpy.Environment()
        self.log: list[dict] | None = [] if log else None
        self.round = 0
        self.t = 0.0
        self.ended = False
        self.winner: str | None = None
        self.focus: dict[str, Fighter] = {}  # side -> shared target of the focus tactic
        self.destiny_left = scenario.options.destiny_points
        self._destiny = self.destiny_left > 0  # 0 HP is lethal for party members (RULES 5)
        self.surprise_side: str | None = None
        self.surprising: str | None = None  # the surprise side during round 1 only
        self._outnumbered_at = scenario.options.outnumbered_at
        self._wounds = self.rules.serious_wounds  # whether after_damage does anything
        self._outnumbering = self.rules.outnumbering
        self._after_hit = self._wounds or self.morale_on  # anything follows a hit that leaves HP
        self._resolve_attack = self.rules.attack  # bound once: called on every attack
        self._roll_damage = self.rules.damage
        self.spread = scenario.distance > 0  # False while everyone stands at one spot
        # Hazards, a timeline or mounts may leave someone to rescue or to help up.
        self._perils = bool(scenario.hazards or scenario.timeline)
        self._special = self._perils or self._flee_at is not None  # see _prepare_turn
        self.fighters: list[Fighter] = []
        self._able: dict[str, int] = {side.name: 0 for side in scenario.sides}
        self._standing = 0  # sides with at least one able member
        # side -> able enemies, reset on any change of status (read by tactics on every attack)
        self.enemies_cache: dict[str, list[Fighter]] = {}
        self._ever_down: set[str] = set()
        self._by_side: dict[str, list[Fighter]] = {}
        self._roller_first: list[Fighter] = []
        self._others_first: list[Fighter] = []
        # Stalemate: able fighters with a weapon (kept by _set_status), and the last scripted round.
        self._armed = 0
        self._last_scripted = max((entry.round for entry in scenario.timeline), default=0)

    # -- logging -----------------------------------------------------------------

    def emit(self, event: str, **fields: object) -> None:
        """Append one event; callers guard with ``if battle.log is not None``."""
        self.log.append({"event": event, "round": self.round, "t": self.t, **fields})  # type: ignore[union-attr]

    # -- set-up ------------------------------------------------------------------

    def _setup(self) -> None:
        """Roll HP (then the system's pools) for each combatant in listed order."""
        distance = self.scenario.distance
        sides = self.scenario.sides
        home = next((s for s in sides if s.party), sides[0])  # the party, else the first side
        for side in sides:
            x = 0.0 if side is home else distance
            for spec in side.members:
                hp = max(1, spec.hp.roll(self.rng))
                fighter = Fighter(spec, side, len(self.fighters), hp, x)
                arm(fighter, self.economy, fatigue=self.scenario.rules == "d100")
                if fighter.items:
                    self._special = True  # potions are weighed before every turn
                self.rules.prepare(self, fighter)
                if self.morale_on:
                    give_tokens(self, fighter)
                if self._carry is not None:
                    self._carry(fighter)  # may leave it down (0 HP) or broken from before
                self.fighters.append(fighter)
                self._armed += fighter.able and bool(spec.weapons)
                if fighter.counts and fighter.able:
                    self._able[side.name] += 1
        self._standing = sum(1 for count in self._able.values() if count > 0)
        self._starting = dict(self._able)
        self._by_side = {side.name: [f for f in self.fighters if f.side == side.name]
                         for side in self.scenario.sides}
        self._roller = roller = home  # rolls initiative
        self._gifted = [f for f in self._by_side[roller.name] if f.spec.has_gift(INITIATIVE_GIFT)]
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
            announce_demoralized(self)
        if any(f.spec.mount is not None for f in self.fighters):
            self._mount_riders()
            self._perils = self._special = True  # riders fall
        if self.scenario.hazards:
            self._place_hazards()

    def _mount_riders(self) -> None:
        """Seat every rider on its mount (listed right after it): they move as one."""
        by_name = {f.name: f for f in self.fighters}
        for rider in self.fighters:
            if rider.spec.mount is not None:
                mount = by_name[rider.spec.mount]
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

    def _roll_surprise(self) -> None:
        """Settle who (if anyone) gets the surprise round, by group check if asked."""
        surprise = self.scenario.surprise
        if surprise is None:
            return
        if surprise.group_check is None:
            self.surprise_side = surprise.side
            return
        members = [f for f in self.fighters if f.side == surprise.side and f.able]
        if self.rules.group_check(self, members, surprise.group_check):
            self.surprise_side = surprise.side

    # -- the clock ---------------------------------------------------------------

    def run(self) -> BattleOutcome:
        """Play the battle to its end and return its outcome."""
        self._setup()
        self._roll_surprise()
        self.env.process(self._clock())
        self.env.run()
        if not self.ended:  # max_rounds reached: a draw
            self.t = float(self.round)
            self._finish(None, stopped="max_rounds")
        return self._outcome()

    def _clock(self) -> Generator[simpy.Event, object, None]:
        """Round r starts at t = r - 1; turn i of n at t = r - 1 + (i + 1) / (n + 1)."""
        slots = len(self.fighters) + 1
        for number in range(1, self.scenario.max_rounds + 1):
            self.round = number
            self.t = float(number - 1)
            yield self.env.timeout(max(0.0, self.t - self.env.now))
            surprise = number == 1 and self.surprise_side is not None
            self.surprising = self.surprise_side if surprise else None
            if self.log is not None:
                fields = {"surprise": self.surprise_side} if surprise else {}
                self.emit("round_started", **fields)
            order = self._surprise_order() if surprise else self._initiative()
            self.rules.round_started(self)
            if self.scenario.timeline:
                run_timeline(self, number)
            if self._decided():
                return
            if self._armed == 0 and number < self.scenario.max_rounds and self._stalemate():
                self._finish(None, stopped="stalemate")
                return
            for i, fighter in enumerate(order):
                effects = fighter.effects
                if not (fighter.able or effects):
                    continue  # dead, fled, or unconscious with nothing ticking
                if effects:
                    # Something waits on this turn: bring the SimPy clock to it so the
                    # effect processes tick at the turn's own time, before it acts.
                    self.t = round(number - 1 + (i + 1) / slots, 6)
                    yield self.env.timeout(max(0.0, self.t - self.env.now))
                    yield from self._tick_effects(fighter)
                else:
                    # Nothing waits: the turn's time is only logged (inlined for speed).
                    if self.log is not None:
                        self.t = round(number - 1 + (i + 1) / slots, 6)
                    self._take_turn(fighter)
                if self._standing <= 1 and self._decided():
                    return

    def _surprise_order(self) -> list[Fighter]:
        return [f for f in self.fighters if f.side == self.surprise_side]

    def _initiative(self) -> list[Fighter]:
        """Group initiative: the party (else the first side) rolls 1d6, 1d8 with the gift."""
        gifted = any(f.able for f in self._gifted)
        die = 8 if gifted else 6
        roll = roll_die(self.rng, die)
        won = roll >= INITIATIVE_WINS_ON
        if self.log is not None:
            first = self._roller.name if won else self._others_first[0].side
            self.emit("initiative_rolled", side=self._roller.name, die=die, roll=roll, first=first)
        return self._roller_first if won else self._others_first

    def _tick_effects(self, fighter: Fighter) -> Generator[simpy.Event, object, None]:
        """Fire the fighter's turn event, let its effects tick, then take the turn."""
        if self.log is not None:
            self.emit("turn_started", actor=fighter.name)
        if fighter.start_turn():
            yield self.env.timeout(0)  # effect processes waiting on the turn run first
            if self._decided():
                return
        self._take_turn(fighter, announced=True)

    # -- actions -----------------------------------------------------------------

    def _take_turn(self, fighter: Fighter, announced: bool = False) -> None:
        """Act if able, unless the turn is lost; the hot path when nothing special is on."""
        if not fighter.able:
            return
        log = self.log
        if log is not None and not announced:
            log.append({"event": "turn_started", "round": self.round, "t": self.t,
                        "actor": fighter.name})
        if fighter.skip_turns > 0:
            fighter.skip_turns -= 1
            if self.log is not None:
                self.emit("turn_skipped", actor=fighter.name)
            return
        budget, moves, can_walk = self.economy.budget, 0, True
        if self._special or fighter.prone or fighter.effects:
            prepared = self._prepare_turn(fighter)
            if prepared is None:
                return
            budget, moves, can_walk = prepared
        elif fighter.weapon_at_hand is None:
            return  # nothing to fight with: it stays where it is
        # Spend the turn's budget: attack what is in reach, else move toward it.
        economy = self.economy
        attacks = 0
        while budget > 0 and fighter.able:
            target = choose_target(self, fighter)
            if target is None:
                return
            if self.spread or not fighter.fixed_at_hand:
                chosen = choose_weapon(fighter, abs(target.x - fighter.x) if self.spread else 0.0)
                if chosen is None:
                    if (not can_walk or moves >= economy.max_moves or economy.move_cost > budget
                            or (attacks and not economy.move_after_attack)):
                        return
                    stop_at = approach_gap(fighter)
                    if stop_at is None:
                        return  # nothing it can use at any distance: it stays out of reach
                    run = self._should_run(fighter, target, budget, moves, stop_at)
                    if not self._move(fighter, target, stop_at, run):
                        return  # already as close as it means to be: no empty move
                    moves += 2 if run else 1
                    budget -= economy.run_cost if run else economy.move_cost  # type: ignore[operator]
                    continue
                weapon, cost = chosen
            else:  # everyone stands together: the weapon at hand, its cost known
                weapon, cost = fighter.weapon_at_hand, fighter.cost_at_hand
            if attacks >= economy.max_attacks or cost > budget:
                return
            ended = self.attack(fighter, target, weapon)
            attacks += 1
            budget -= cost
            if ended or (attacks >= economy.max_attacks and not economy.move_after_attack):
                return  # a fumble, or the turn is over (d20): draw no die, touch no target

    def _prepare_turn(self, fighter: Fighter) -> tuple[int, int, bool] | None:
        """Before a turn where a rout, a fall, a hazard, a rescue or a mount may change
        things: (budget, moves used, whether it may walk), or None when the turn is spent."""
        if self._flee_at is not None and self._routs(fighter.side):
            self.flee(fighter)
            return None
        budget, moves = self._before_acting(fighter, self.economy.budget)
        if budget is None:
            return None  # a full-action rescue
        if fighter.items:
            budget = use_items(self, fighter, budget)  # drink, or pour into a downed ally
        if budget == 0 or fighter.weapon_at_hand is None:
            return None  # the turn is spent, or nothing to fight with
        # A ridden mount moves with its rider; a trapped fighter does not move at all.
        can_walk = fighter.ridden_by is None and not (fighter.effects and self._trapped(fighter))
        return budget, moves, can_walk

    def _before_acting(self, fighter: Fighter, budget: int) -> tuple[int | None, int]:
        """Stand up, get out of a hazard, or rescue a drowning ally: (budget left, moves)."""
        economy = self.economy
        moves = 0
        if fighter.prone and budget >= economy.stand_cost:
            fighter.prone = False
            budget -= economy.stand_cost
            if self.log is not None:
                self.emit("stood_up", actor=fighter.name)
        for effect in list(fighter.effects):
            if isinstance(effect, ESCAPABLE) and effect.escape == "move" and budget >= economy.move_cost:
                effect.end("left the zone")
                budget -= economy.move_cost
                moves += 1
        if not fighter.counts:
            return budget, moves  # a mount neither rescues nor helps anyone up
        # Only an ally free of the hazards can pull another out (RULES 6, rescue).
        if budget == economy.budget and not self._trapped(fighter) and self._rescue(fighter):
            return None, moves  # a rescue is a full action
        if budget >= economy.stand_cost and self._help_up(fighter):
            budget -= economy.stand_cost
        return budget, moves

    def _help_up(self, fighter: Fighter) -> bool:
        """Help a fallen ally in reach to its feet (a half-action): it need not spend its own."""
        for ally in self._by_side[fighter.side]:
            if ally.prone and ally.able and abs(ally.x - fighter.x) <= MELEE_REACH_M:
                ally.prone = False
                if self.log is not None:
                    self.emit("helped_up", actor=fighter.name, target=ally.name)
                return True
        return False

    def _routs(self, side: str) -> bool:
        """Rout (option flee_at): once a side's able members fall below that fraction of those
        it started with, it flees at its next turns."""
        if side not in self._routed and self._able[side] < self._flee_at * self._starting[side]:
            self._routed.add(side)
        return side in self._routed

    def flee(self, fighter: Fighter) -> None:
        """The fighter leaves the battle and survives it; a mount carries its rider away."""
        self._set_status(fighter, FLED)
        if self.log is not None:
            self.emit("fled", target=fighter.name)
        for effect in list(fighter.effects):
            effect.end("fled")
        mount = fighter.mounted_on
        if mount is not None and mount.present:
            self._set_status(mount, FLED)
            if self.log is not None:
                self.emit("fled", target=mount.name)

    def _trapped(self, fighter: Fighter) -> bool:
        """Held in a hazard it cannot leave (``escape: none``): it cannot walk either."""
        return any(isinstance(e, ESCAPABLE) and e.escape == "none" for e in fighter.effects)

    def _rescue(self, fighter: Fighter) -> bool:
        """Pull out an ally in reach who is drowning (or stuck in fire) and cannot get out
        alone (a full action)."""
        for ally in self._by_side[fighter.side]:
            if ally is fighter or abs(ally.x - fighter.x) > MELEE_REACH_M:
                continue
            for effect in ally.effects:
                if not isinstance(effect, ESCAPABLE):
                    continue
                if isinstance(effect, Asphyxiating) and not effect.failed:
                    continue  # still holding its breath: no hurry
                if effect.escape == "none" or not ally.able:  # it cannot get out alone
                    effect.end("rescued")
                    if self.log is not None:
                        self.emit("rescued", actor=fighter.name, target=ally.name)
                    return True
        return False

    def _should_run(self, fighter: Fighter, target: Fighter, budget: int, moves: int,
                    stop_at: float) -> bool:
        """Run (a full action, twice the movement) when one move would not reach the target."""
        run_cost = self.economy.run_cost
        if run_cost is None or budget < run_cost or moves:
            return False
        return abs(target.x - fighter.x) - stop_at > self._movement(fighter)

    def _movement(self, fighter: Fighter) -> float:
        """Metres per move: a rider uses its mount's Movement."""
        mount = fighter.mounted_on
        return (mount or fighter).spec.movement

    def _move(self, fighter: Fighter, target: Fighter, stop_at: float, run: bool = False) -> bool:
        """Move (or run: twice as far) toward the target, stopping ``stop_at`` metres from it
        (its weapon's gap). False, and nothing logged, when there is no way to go."""
        gap = abs(target.x - fighter.x)
        reach = self._movement(fighter) * (2 if run else 1)
        step = min(reach, max(0.0, gap - stop_at))
        if step <= 0:
            return False
        before = fighter.x
        self.spread = True
        fighter.x += step if target.x > fighter.x else -step
        if fighter.mounted_on is not None:
            fighter.mounted_on.x = fighter.x
        if self.log is not None:
            self.emit("moved", actor=fighter.name, toward=target.name, x_before=before,
                      x_after=fighter.x, **({"run": True} if run else {}))
        return True

    def attack(self, attacker: Fighter, target: Fighter, weapon: Weapon) -> bool:
        """One attack: the system resolves hit and damage; the engine applies it.

        Outnumbered (d20): once ``outnumbered_at`` different enemies attacked the
        target this round, later attacks on it that round are favoured. Returns
        True when the attack ends the attacker's turn (a fumble, a fall).
        """
        surprise = attacker.side == self.surprising
        outnumbered = False
        if self._outnumbering:
            if target.attacked_round != self.round:
                target.attacked_round = self.round
                target.attacked_by.clear()
            outnumbered = len(target.attacked_by) >= self._outnumbered_at
            target.attacked_by.add(attacker.name)
        bonus = 0
        if weapon.psy or attacker.mounted_on is not None:
            bonus = self._before_attack(attacker, weapon)
            if bonus is None:
                return True
        # Both sources favour the attacker, so they never cancel: no need to combine.
        advantage = 1 if surprise or outnumbered else 0
        result = self._resolve_attack(self, attacker, target, weapon, advantage)
        log = self.log
        if log is not None:  # a literal, not emit(**fields): one of the most frequent events
            event = {
                "event": "attack_resolved", "round": self.round, "t": self.t,
                "actor": attacker.name, "target": target.name, "weapon": weapon.name,
                "hit": result.hit, "surprise": surprise, "outnumbered": outnumbered,
            }
            if result.defended or result.ends_turn:
                event.update(defended=result.defended, fumble=result.ends_turn)
            log.append(event)
        if result.hit:
            if bonus:
                result = result._replace(damage_bonus=result.damage_bonus + bonus)
            if not weapon.plain:
                for victim in self._blast(attacker, target, weapon) if weapon.area else (target,):
                    self._hit(attacker, victim, weapon, result)
            else:  # a plain hit, inlined: the common case on the hot path
                damage = self._roll_damage(self, attacker, target, weapon, result)
                self.deal_damage(target, damage.amount, attacker, "weapon", damage.armor_piercing,
                                 damage.dice, damage.bonus)
        return result.ends_turn

    def _before_attack(self, attacker: Fighter, weapon: Weapon) -> int | None:
        """Pay a spell; roll riding from the saddle. The damage bonus, or None: attack lost."""
        if weapon.psy:
            self.pay_psy(attacker, weapon.psy)
            if not attacker.able:
                return None
        mount = attacker.mounted_on
        if mount is None:
            return 0
        riding = self.rules.check(self, attacker, "riding")
        if riding.degree == "critical_failure":
            throw_off(self, attacker, "fell from the saddle", check=False)
            return None
        if not riding.success or not mount.able:  # a stunned horse lends no weight
            return 0
        return self.rules.mount_bonus(mount)

    def _blast(self, attacker: Fighter, target: Fighter, weapon: Weapon) -> list[Fighter]:
        """Who an area weapon's hit strikes: the target and every enemy within 2 m of it."""
        near = [e for e in self.able_enemies(attacker)
                if e is not target and abs(e.x - target.x) <= MELEE_REACH_M]
        return [target, *near]

    def _hit(self, attacker: Fighter, victim: Fighter, weapon: Weapon, result: AttackResult) -> None:
        """Damage, then what the weapon carries: fire, poison."""
        damage = self._roll_damage(self, attacker, victim, weapon, result)
        kind = "spell" if weapon.psy else "weapon"
        self.deal_damage(victim, damage.amount, attacker, kind, damage.armor_piercing, damage.dice,
                         damage.bonus)
        if weapon.fire or weapon.poison:
            if weapon.fire:
                ignite(self, victim, attacker)
            if weapon.poison:
                poison(self, victim, attacker)

    def pay_psy(self, caster: Fighter, cost: int) -> None:
        """A spell costs PSY; what PSY cannot pay is paid in HP that cannot be healed today."""
        paid = min(caster.psy, cost)
        if paid:
            caster.psy -= paid
            if self.log is not None:
                self.emit("resource_spent", actor=caster.name, resource="psy", amount=paid,
                          left=caster.psy)
        owed = cost - paid
        if owed:  # kind spell_cost: not the harm a spell does, the price of casting it
            caster.unhealable += owed
            self.deal_damage(caster, owed, caster, "spell_cost", True, ())

    def tire(self, fighter: Fighter, points: int, why: str) -> None:
        """Fatigue: each point costs 5 on physical checks (d100)."""
        fighter.fatigue += points
        if self.log is not None:
            self.emit("fatigue_gained", actor=fighter.name, amount=points, fatigue=fighter.fatigue,
                      reason=why)

    # -- harm --------------------------------------------------------------------

    def deal_damage(
        self,
        target: Fighter,
        amount: int,
        source: Fighter | None,
        kind: str,
        armor_piercing: bool = False,
        dice: tuple[int, ...] = (),
        bonus: int = 0,
    ) -> None:
        """Take ``amount`` HP from the target (never below 0); at 0 it drops. ``dice`` and
        ``bonus`` (the flat part, before armor) are only logged: the narration shows them."""
        before = target.hp
        target.hp = after = before - amount if before > amount else 0
        log = self.log
        if log is not None:
            log.append({
                "event": "damage_dealt", "round": self.round, "t": self.t,
                "target": target.name, "amount": amount,
                "source": None if source is None else source.name, "kind": kind,
                "armor_piercing": armor_piercing, "hp_before": before, "hp_after": after,
                "dice": list(dice), "bonus": bonus,
            })
        if before > 0 and after == 0 and target.present:
            self._drop(target, kind, source)
        elif amount > 0 and self._after_hit:
            if self.morale_on:
                wounded(self, target, amount, self.scenario.options.wound_divisor)
            if self._wounds:
                self.rules.after_damage(self, target, amount, kind)

    def _drop(self, fighter: Fighter, cause: str, source: Fighter | None) -> None:
        """At 0 HP: unconscious (RULES 5). With destiny points a party member (a player
        character, not its horse) dies outright unless the party spends a point to keep it
        alive, unconscious; everyone else follows the normal rule."""
        fighter.cause = cause
        lethal = self._destiny and fighter.party and fighter.counts
        if lethal and self.destiny_left == 0:
            self.kill(fighter, cause)
        else:
            if lethal:
                self.destiny_left -= 1
                fighter.saved = True
                if self.log is not None:
                    self.emit("resource_spent", actor=fighter.name, resource="destiny", amount=1,
                              left=self.destiny_left)
            self._set_status(fighter, UNCONSCIOUS)
            self._ever_down.add(fighter.name)
            if self.log is not None:
                self.emit("knocked_out", target=fighter.name, cause=cause,
                          source=None if source is None else source.name)
        if self.morale_on:
            fallen(self, fighter, source)
        self._unseat(fighter, "mount fell")

    def _unseat(self, fighter: Fighter, why: str) -> None:
        """Out of the fight in the saddle, or under a rider (RULES 6, mounted combat): a rider
        slides off unhurt; a mount throws its rider (riding check, failure 1d10)."""
        if fighter.mounted_on is not None:
            throw_off(self, fighter, "slid out of the saddle", check=False)
        if fighter.ridden_by is not None:
            throw_off(self, fighter.ridden_by, why, check=True)

    def kill(self, fighter: Fighter, cause: str | None) -> None:
        """The fighter dies now; its ongoing effects end with it."""
        fighter.cause = cause
        self._set_status(fighter, DEAD)
        if self.log is not None:
            self.emit("died", target=fighter.name, cause=cause)
        for effect in list(fighter.effects):
            effect.end("died")

    def lose_spirit(self, member: Fighter, loss: int, source: Fighter) -> None:
        """Spirit points lost to terror; at 0 the mind is broken (out of the fight, alive)."""
        before = member.spirit or 0
        member.spirit = max(0, before - loss)
        if self.log is not None:
            self.emit(
                "spirit_lost", target=member.name, amount=loss, source=source.name,
                spirit_before=before, spirit_after=member.spirit,
            )
        if member.spirit == 0 and member.able:
            member.cause = "terror"  # what it dies of if its side loses (RULES 3, 5)
            self._set_status(member, BROKEN)
            if self.log is not None:
                self.emit("effect_started", target=member.name, effect="broken")

    def set_unconscious(self, fighter: Fighter, cause: str) -> None:
        """Knocked out with HP left (a serious wound): out of the fight until it wakes.
        It has fallen all the same: knocked out in the stats, a blow to its allies' morale."""
        fighter.cause = cause  # what it dies of if its side loses while it is out
        self._set_status(fighter, UNCONSCIOUS)
        self._ever_down.add(fighter.name)
        if self.log is not None:
            self.emit("knocked_out", target=fighter.name, cause=cause, source=None,
                      serious_wound=True)
        if self.morale_on:
            fallen(self, fighter, None)
        self._unseat(fighter, "mount knocked out")

    def wake(self, fighter: Fighter) -> None:
        """Back in the fight after a knock-out that left it HP. A destiny point spent on it
        saved it once: should it fall again, that save no longer keeps it alive (RULES 5)."""
        fighter.saved = False
        self._set_status(fighter, ACTIVE)

    def _set_status(self, fighter: Fighter, status: str) -> None:
        """Change a status, keeping ``able``, the per-side counts and caches in step."""
        was, now = fighter.status == ACTIVE, status == ACTIVE
        fighter.status = status
        fighter.able = now
        if was == now:
            return
        self.enemies_cache.clear()
        if fighter.spec.weapons:
            self._armed += 1 if now else -1
        if not fighter.counts:
            return  # a mount: its state never decides victory
        before = self._able[fighter.side]
        self._able[fighter.side] = after = before + (1 if now else -1)
        self._standing += (after > 0) - (before > 0)

    def allies_of(self, fighter: Fighter) -> list[Fighter]:
        """Every member of the fighter's side, itself included, in listed order."""
        return self._by_side[fighter.side]

    def able_enemies(self, fighter: Fighter) -> list[Fighter]:
        """Able members of every other side, in listed order (cached until a status changes)."""
        enemies = self.enemies_cache.get(fighter.side)
        if enemies is None:
            side = fighter.side
            enemies = [f for f in self.fighters if f.able and f.side != side]
            self.enemies_cache[side] = enemies
        return enemies

    # -- the end -----------------------------------------------------------------

    def _decided(self) -> bool:
        """Victory: at most one side has able members. Ends the battle when so."""
        if self.ended:
            return True
        if self._standing > 1:
            return False
        standing = [side for side, count in self._able.items() if count > 0]
        self._finish(standing[0] if standing else None)
        return True

    def _stalemate(self) -> bool:
        """Certain that nobody can ever change anybody's HP or status again: nobody able holds
        a weapon (checked by the caller) nor a potion (it may heal or wake someone), nothing
        is ongoing (fire, poison, water, a serious wound that will wake), no scripted event is
        left and no side is about to rout."""
        if self.round < self._last_scripted:
            return False
        if any(f.effects or (f.able and f.items) for f in self.fighters):
            return False
        if self._flee_at is None:
            return True
        return not any(0 < able < self._flee_at * self._starting[side]
                       for side, able in self._able.items())

    def _finish(self, winner: str | None, stopped: str | None = None) -> None:
        """Losing sides' unconscious members and broken minds die (unless saved by destiny);
        log the end. ``stopped`` says why a draw came before any side won: stalemate or max_rounds."""
        self.ended = True
        self.winner = winner
        for fighter in self.fighters:
            lost = fighter.side != winner and self._able[fighter.side] == 0
            if lost and fighter.status in OUT_OF_THE_FIGHT and not fighter.saved:
                self.kill(fighter, fighter.cause)
        if self.log is not None:
            names = {status: [f.name for f in self.fighters if f.status == status]
                     for status in (DEAD, UNCONSCIOUS, BROKEN, FLED)}
            self.emit(
                "battle_ended", winner=winner, rounds=self.round,
                survivors=[f.name for f in self.fighters if f.status != DEAD],
                dead=names[DEAD], knocked_out=names[UNCONSCIOUS], broken=names[BROKEN],
                fled=names[FLED], **({"stopped": stopped} if stopped else {}),
            )

    def _outcome(self) -> BattleOutcome:
        down = self._ever_down
        morale = self.morale_on
        return BattleOutcome(
            self.seed, self.winner, self.round,
            tuple(
                (f.hp, f.status, f.cause if f.status == DEAD else None,
                 f.status != DEAD and f.name in down,
                 state_of(f) if morale else None, tuple(sorted(f.learned)) if morale else (),
                 f.items_used)
                for f in self.fighters
            ),
        )


def run_battle(
    scenario: Scenario, seed: int, log: bool = False, batch: dict | None = None
) -> tuple[BattleOutcome, list[dict]]:
    """Play one battle; returns its outcome and its events (empty unless ``log``)."""
    battle = Battle(scenario, seed, log, batch)
    outcome = battle.run()
    return outcome, battle.log or []
